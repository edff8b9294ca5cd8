package bench

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
)

// The checkpoint-stall benchmark of issue 24: how long the in-memory
// HEAD's writer stops applying commits while a periodic checkpoint takes
// its cut under the model's writer lock. A table of Rows rows is copied
// by an in-process daemon with heap.checkpoint_interval = Interval, then
// one connection commits single-row UPDATEs every WriteEvery for
// Duration while the model's applied-batch counter is polled every
// millisecond. Per checkpoint the model logs cut= (the writer lock held)
// and encode=; the figure is the longest gap between two applied batches
// that overlaps the cut, against the gaps outside any checkpoint. Memory
// is sampled every 5 ms (the Go heap's live objects and the process's
// RSS): per checkpoint, its value just before the checkpoint started and
// its peak while it ran.

// CkptStallOptions configure RunCkptStall.
type CkptStallOptions struct {
	Rows        int
	Interval    time.Duration // heap.checkpoint_interval
	Duration    time.Duration // the write load after the copy
	WriteEvery  time.Duration // one single-row UPDATE commit per this
	MemoryLimit string
	Dir         string
	Logf        func(string, ...any)
}

// CkptSample is one checkpoint seen in the write load.
type CkptSample struct {
	Cut, Encode, Took time.Duration
	// Gap is the longest time between two applied batches that overlaps
	// the cut's window.
	Gap time.Duration
	// HeapBefore and RSSBefore are the last samples before the checkpoint
	// started, HeapPeak and RSSPeak the highest while it ran (bytes).
	HeapBefore, HeapPeak, RSSBefore, RSSPeak uint64
	// IndexCopied is the index chunks the writer copied while the
	// checkpoint held its frozen views (logged index_copied=; builds
	// before slab copy-on-write copy the whole index at the cut and log
	// none: -1).
	IndexCopied int64
}

// memSample is the process's memory at one moment.
type memSample struct {
	at        time.Time
	heap, rss uint64
}

// sampleMem reads the Go heap's live-object bytes (runtime/metrics, no
// stop-the-world) and the RSS (/proc/self/statm).
func sampleMem(ms []metrics.Sample) memSample {
	metrics.Read(ms)
	m := memSample{at: time.Now(), heap: ms[0].Value.Uint64()}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				m.rss = pages * uint64(os.Getpagesize())
			}
		}
	}
	return m
}

// CkptStallReport is what RunCkptStall measured.
type CkptStallReport struct {
	Rows    int
	Samples []CkptSample
	// Early are the checkpoints that started before the write load (the
	// first one after the copy can): cut, encode and took only.
	Early      []CkptSample
	Batches    int           // applied during the load
	MedianGap  time.Duration // between applied batches outside checkpoints
	MaxOutside time.Duration // the longest gap outside any checkpoint's write
	LoadStart  string
	LoadEnd    string
	Log        string
}

// RunCkptStall runs the benchmark once.
func RunCkptStall(ctx context.Context, o CkptStallOptions) (*CkptStallReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	rep := &CkptStallReport{Rows: o.Rows, LoadStart: loadAvg()}
	var pgVersion string
	scratch, _, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-ckptstall-", replDB, o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	conn, err := connectScratch(ctx, url, readsDDL+"; CREATE PUBLICATION "+replPub+" FOR TABLE t, marker", &pgVersion)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	o.Logf("loading %d rows", o.Rows)
	if err := insertSeedRows(ctx, conn, 1, o.Rows); err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) t"); err != nil {
		return nil, fmt.Errorf("vacuum: %w", err)
	}
	slot := "ckptstall"
	dataDir := filepath.Join(scratch, slot)
	file := filepath.Join(scratch, slot+".yaml")
	body := fmt.Sprintf("postgres:\n  url: %s\npublication: %s\nslot: %s\ntables: [%s, %s]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: \"\"\nheap:\n  checkpoint_interval: %s\n",
		url, replPub, slot, replTable, replMarker, dataDir, o.Interval)
	if o.MemoryLimit != "" {
		body += "memory:\n  limit: " + o.MemoryLimit + "\n"
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("write sidecar config: %w", err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		return nil, fmt.Errorf("load sidecar config: %w", err)
	}
	rep.Log = filepath.Join(scratch, slot+".log")
	models := make(chan *head.Model, 1)
	sc, err := startSidecarWith(ctx, cfg, rep.Log, func(do *daemon.Options) {
		do.OnHead = func(m *head.Model) { models <- m }
	})
	if err != nil {
		return nil, err
	}
	defer sc.stop() //nolint:errcheck // the figures are taken before
	if _, err := waitReadyEvery(ctx, sc, 200*time.Millisecond); err != nil {
		return nil, err
	}
	model := <-models
	for model.Len("public.t") != o.Rows {
		if err := sc.failed(); err != nil {
			return nil, err
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
	}
	o.Logf("HEAD holds %d rows; write load for %s", o.Rows, o.Duration)
	// The poller records when the applied-batch counter moves.
	var (
		mu    sync.Mutex
		moves []time.Time
		mems  []memSample
	)
	pollCtx, stopPoll := context.WithCancel(ctx)
	var pollWG sync.WaitGroup
	pollWG.Add(1)
	go func() {
		defer pollWG.Done()
		last := model.Batches()
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		ms := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for tick := 0; ; tick++ {
			select {
			case <-pollCtx.Done():
				return
			case <-tk.C:
			}
			if tick%5 == 0 {
				m := sampleMem(ms)
				mu.Lock()
				mems = append(mems, m)
				mu.Unlock()
			}
			if b := model.Batches(); b != last {
				last = b
				mu.Lock()
				moves = append(moves, time.Now())
				mu.Unlock()
			}
		}
	}()
	loadStart := time.Now()
	end := loadStart.Add(o.Duration)
	tk := time.NewTicker(o.WriteEvery)
	for time.Now().Before(end) {
		if _, err := conn.Exec(ctx, "UPDATE t SET score = score + 1 WHERE id = $1", 1+rand.IntN(o.Rows)); err != nil {
			tk.Stop()
			stopPoll()
			pollWG.Wait()
			return nil, fmt.Errorf("write: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-tk.C:
		}
	}
	tk.Stop()
	stopPoll()
	pollWG.Wait()
	rep.LoadEnd = loadAvg()
	all, err := readCheckpointLines(rep.Log, time.Time{})
	if err != nil {
		return nil, err
	}
	var ckpts []ckptLine
	for _, c := range all {
		if c.start.Before(loadStart) {
			rep.Early = append(rep.Early, c.CkptSample)
			continue
		}
		ckpts = append(ckpts, c)
	}
	rep.Batches = len(moves)
	var outside []time.Duration
	for i := 1; i < len(moves); i++ {
		a, b := moves[i-1], moves[i]
		in := false
		for j := range ckpts {
			c := &ckpts[j]
			if a.Before(c.cutEnd) && b.After(c.start) { // overlaps the cut
				c.Gap = max(c.Gap, b.Sub(a))
			}
			if a.Before(c.end) && b.After(c.start) {
				in = true
			}
		}
		if !in {
			outside = append(outside, b.Sub(a))
		}
	}
	for j := range ckpts {
		c := &ckpts[j]
		for _, m := range mems {
			switch {
			case m.at.Before(c.start):
				c.HeapBefore, c.RSSBefore = m.heap, m.rss
			case !m.at.After(c.end):
				c.HeapPeak, c.RSSPeak = max(c.HeapPeak, m.heap), max(c.RSSPeak, m.rss)
			}
		}
		rep.Samples = append(rep.Samples, c.CkptSample)
	}
	if len(outside) > 0 {
		slices.Sort(outside)
		rep.MedianGap, rep.MaxOutside = outside[len(outside)/2], outside[len(outside)-1]
	}
	return rep, nil
}

type ckptLine struct {
	CkptSample
	start, cutEnd, end time.Time
}

// readCheckpointLines reads the model's "in-memory HEAD checkpointed"
// lines logged after since: the line is logged at the checkpoint's end,
// so it started took before and its cut ended cut after that.
func readCheckpointLines(path string, since time.Time) ([]ckptLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sidecar log: %w", err)
	}
	defer f.Close()
	var out []ckptLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `msg="in-memory HEAD checkpointed"`) {
			continue
		}
		c := ckptLine{CkptSample: CkptSample{IndexCopied: -1}}
		var at time.Time
		for _, f := range strings.Fields(line) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			switch k {
			case "time":
				at, _ = time.Parse(time.RFC3339Nano, v)
			case "cut":
				c.Cut, _ = time.ParseDuration(v)
			case "encode":
				c.Encode, _ = time.ParseDuration(v)
			case "took":
				c.Took, _ = time.ParseDuration(v)
			case "index_copied":
				c.IndexCopied, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		c.end = at
		c.start = at.Add(-c.Took)
		c.cutEnd = c.start.Add(c.Cut)
		if c.start.Before(since) {
			continue
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// insertSeedRows inserts rows lo..hi of the seed-003 table t (readsDDL).
func insertSeedRows(ctx context.Context, conn *pgx.Conn, lo, hi int) error {
	if _, err := conn.Exec(ctx, `INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
		((g * 7919) % 1000)::int, (g % 100)::int FROM generate_series($1::bigint, $2::bigint) g`, lo, hi); err != nil {
		return fmt.Errorf("load rows %d..%d: %w", lo, hi, err)
	}
	return nil
}
