package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// The reads benchmark of issue 13: the seed-003 workload applied by
// PostgreSQL and by the sidecar following it (commit → applied in the tree,
// then the in-memory HEAD's heap and index), PostgreSQL's VACUUM and VACUUM
// FULL against the heap's incremental and full compaction, then point gets
// and 10k-row ranges through the daemon's HTTP API against PostgreSQL
// prepared statements (and in process on the model), footprints and peak
// RSS. One PostgreSQL and one sidecar on the same data, in the same run;
// every repetition measures both.

// ReadsOptions configure RunReads.
type ReadsOptions struct {
	Rows int // rows of t for the seed-003 workload
	// ReadRows (≥ Rows) is the table's size for the reads and the
	// footprint: rows Rows+1… are inserted after the seed-003 cells, 1M
	// per transaction.
	ReadRows int
	Reps     int // repetitions of every cell (median, min, max reported)
	Gets     int // point gets per repetition and side
	Ranges   int // 10k-row ranges per repetition and side
	Dir      string
	Logf     func(string, ...any)
}

// ReadsCell is one measured cell: samples per side (ns per operation).
type ReadsCell struct {
	Name     string
	Sidecar  []time.Duration
	Postgres []time.Duration
	Note     string
}

// ReadsReport is what RunReads measured.
type ReadsReport struct {
	Env         Env
	Started     time.Time
	Took        time.Duration
	Rows, Reps  int
	ReadRows    int
	Gets        int
	Ranges      int
	PGVersion   string
	Cells       []*ReadsCell
	InProcGet   []time.Duration // Model.Get per op, in process
	InProcRange []time.Duration // Model.Range of 10k rows, in process
	Served      int64           // reads the in-memory HEAD answered during the API cells
	APIReads    int64           // API reads issued
	// Footprints, bytes.
	HeadHeap, HeadIndex, HeadKeys int64 // checkpoint of the in-memory HEAD
	IndexMem, KeysMem             int64 // in memory
	DataDir                       int64
	PGTotal, PGHeap, PGIndexes    int64
	PeakRSS                       int64
	Loads                         []string // uptime load averages, at each repetition
}

const readsDDL = `CREATE TABLE t (id bigint PRIMARY KEY, k text NOT NULL, v text NOT NULL, score int NOT NULL, grp int NOT NULL);
CREATE TABLE marker (id int PRIMARY KEY, tag text);
INSERT INTO marker VALUES (1, 'init');`

// RunReads runs the benchmark.
func RunReads(ctx context.Context, o ReadsOptions) (*ReadsReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Gets <= 0 {
		o.Gets = 2000
	}
	if o.Ranges <= 0 {
		o.Ranges = 20
	}
	rep := &ReadsReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), Rows: o.Rows, ReadRows: max(o.ReadRows, o.Rows), Reps: o.Reps, Gets: o.Gets, Ranges: o.Ranges}
	scratch, _, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-reads-", replDB, o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	conn, err := connectScratch(ctx, url, readsDDL, &rep.PGVersion)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	o.Logf("loading %d rows", o.Rows)
	if _, err := conn.Exec(ctx, `INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
		((g * 7919) % 1000)::int, (g % 100)::int FROM generate_series(1, $1::bigint) g`, o.Rows); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	for _, q := range []string{"VACUUM (ANALYZE) t", "CHECKPOINT", "CREATE PUBLICATION " + replPub + " FOR TABLE t, marker"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	dataDir := filepath.Join(scratch, "data")
	cfg, err := sidecarConfig(scratch, url, "reads", dataDir)
	if err != nil {
		return nil, err
	}
	models := make(chan *head.Model, 1)
	sc, err := startReadsSidecar(ctx, cfg, filepath.Join(scratch, "sidecar.log"), models)
	if err != nil {
		return nil, err
	}
	defer sc.stop()
	model := <-models
	if _, err := sc.waitCopied(ctx, 30*time.Minute); err != nil {
		return nil, err
	}
	r := &readsRun{o: o, conn: conn, sc: sc, model: model, rep: rep}
	markerKey, err := rowenc.EncodeKey([]rowenc.KeyKind{rowenc.KindInt4}, "1")
	if err != nil {
		return nil, err
	}
	r.markerKey = markerKey
	if err := r.waitApplied(ctx, "init"); err != nil {
		return nil, err
	}
	for model.Len("public.t") != o.Rows { // the copy of t may be delivered after the marker's
		if err := sc.failed(); err != nil {
			return nil, err
		}
		if err := sleepCtx(ctx, time.Millisecond); err != nil {
			return nil, err
		}
	}
	o.Logf("copied; the in-memory HEAD holds %d rows", model.Len("public.t"))
	if err := r.seed003(ctx); err != nil {
		return nil, err
	}
	if err := r.grow(ctx, rep.ReadRows); err != nil {
		return nil, err
	}
	if err := r.reads(ctx); err != nil {
		return nil, err
	}
	if err := r.footprint(ctx, dataDir); err != nil {
		return nil, err
	}
	rep.PeakRSS, _ = readPeakRSS()
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

// startReadsSidecar is startSidecar with the in-memory HEAD handed out.
func startReadsSidecar(ctx context.Context, cfg *config.Config, logPath string, models chan<- *head.Model) (*sidecarRun, error) {
	return startSidecarWith(ctx, cfg, logPath, func(o *daemon.Options) {
		o.OnHead = func(m *head.Model) { models <- m }
	})
}

type readsRun struct {
	o         ReadsOptions
	conn      *pgx.Conn
	sc        *sidecarRun
	model     *head.Model
	rep       *ReadsReport
	markerKey []byte
	seq       int
}

func (r *readsRun) cell(name, note string) *ReadsCell {
	c := &ReadsCell{Name: name, Note: note}
	r.rep.Cells = append(r.rep.Cells, c)
	return c
}

// commit runs stmts and the marker's update as one transaction (one round
// trip) and returns how long PostgreSQL took, until the commit returned,
// and the marker's tag.
func (r *readsRun) commit(ctx context.Context, stmts string) (time.Duration, string, error) {
	r.seq++
	tag := "m" + strconv.Itoa(r.seq)
	t0 := time.Now()
	if _, err := r.conn.Exec(ctx, "BEGIN; "+stmts+"; UPDATE marker SET tag = '"+tag+"' WHERE id = 1; COMMIT"); err != nil {
		return 0, "", fmt.Errorf("%s: %w", stmts, err)
	}
	return time.Since(t0), tag, nil
}

// waitApplied polls the in-memory HEAD (every 200 µs) until its marker
// row holds tag: the transaction that set it is applied in the tree, then
// in the heap and the index (the model applies whole transactions).
func (r *readsRun) waitApplied(ctx context.Context, tag string) error {
	want := []byte(tag)
	deadline := time.Now().Add(30 * time.Minute)
	var buf []byte
	for {
		if err := r.sc.failed(); err != nil {
			return err
		}
		row, found, err := r.model.Get("public.marker", r.markerKey, r.model.LSN(), buf[:0])
		buf = row
		if err == nil && found {
			if v, null, err := rowenc.Column(row, 1); err == nil && !null && bytes.Equal(v, want) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the in-memory HEAD never showed marker %s", tag)
		}
		if err := sleepCtx(ctx, 200*time.Microsecond); err != nil {
			return err
		}
	}
}

func (r *readsRun) exec(ctx context.Context, q string) (time.Duration, error) {
	t0 := time.Now()
	if _, err := r.conn.Exec(ctx, q); err != nil {
		return 0, fmt.Errorf("%s: %w", q, err)
	}
	return time.Since(t0), nil
}

// seed003 is the seed-003 workload, Reps times: UPDATE of the first half,
// DELETE of the first fifth, VACUUM vs the heap's incremental compaction,
// VACUUM FULL vs full compaction; then the table is put back (untimed).
func (r *readsRun) seed003(ctx context.Context) error {
	n := r.o.Rows
	upd := r.cell("UPDATE t SET score = score + 10 WHERE id <= half", "PostgreSQL: statement + commit; sidecar: commit returned → applied in tree, heap and index")
	del := r.cell("DELETE FROM t WHERE id <= fifth", "as above")
	vac := r.cell("VACUUM t vs incremental compaction (Heap.Vacuum)", "after the DELETE; the DELETE's apply already compacted the pages it emptied past the dead-space threshold")
	full := r.cell("VACUUM FULL t vs full compaction (Model.CompactTable)", "heap rewrite + index repointed")
	for i := range r.o.Reps {
		r.rep.Loads = append(r.rep.Loads, loadAvg())
		r.o.Logf("seed-003 rep %d (load %s)", i+1, loadAvg())
		for _, step := range []struct {
			c    *ReadsCell
			stmt string
		}{
			{upd, fmt.Sprintf("UPDATE t SET score = score + 10 WHERE id <= %d", n/2)},
			{del, fmt.Sprintf("DELETE FROM t WHERE id <= %d", n/5)},
		} {
			pgTime, tag, err := r.commit(ctx, step.stmt)
			if err != nil {
				return err
			}
			t0 := time.Now()
			if err := r.waitApplied(ctx, tag); err != nil {
				return err
			}
			step.c.Postgres = append(step.c.Postgres, pgTime)
			step.c.Sidecar = append(step.c.Sidecar, time.Since(t0))
		}
		if got, want := r.model.Len("public.t"), n-n/5; got != want {
			return fmt.Errorf("after the DELETE the in-memory HEAD holds %d rows, want %d", got, want)
		}
		d, err := r.exec(ctx, "VACUUM t")
		if err != nil {
			return err
		}
		vac.Postgres = append(vac.Postgres, d)
		t := r.model.Table("public.t")
		t0 := time.Now()
		t.Heap().Vacuum()
		vac.Sidecar = append(vac.Sidecar, time.Since(t0))
		if d, err = r.exec(ctx, "VACUUM FULL t"); err != nil {
			return err
		}
		full.Postgres = append(full.Postgres, d)
		st, err := r.model.CompactTable("public.t")
		if err != nil {
			return err
		}
		full.Sidecar = append(full.Sidecar, st.Took)
		// Back to the starting state, untimed.
		_, tag, err := r.commit(ctx, fmt.Sprintf(`INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
			((g * 7919) %% 1000)::int, (g %% 100)::int FROM generate_series(1::bigint, %d) g; UPDATE t SET score = score - 10 WHERE id > %d AND id <= %d`, n/5, n/5, n/2))
		if err != nil {
			return err
		}
		if err := r.waitApplied(ctx, tag); err != nil {
			return err
		}
		for _, q := range []string{"VACUUM FULL t", "ANALYZE t", "CHECKPOINT"} {
			if _, err := r.exec(ctx, q); err != nil {
				return err
			}
		}
		if _, err := r.model.CompactTable("public.t"); err != nil {
			return err
		}
		if got := r.model.Len("public.t"); got != n {
			return fmt.Errorf("after putting the table back the in-memory HEAD holds %d rows, want %d", got, n)
		}
	}
	return nil
}

// grow inserts rows up to n, 1M per transaction, each waited for, then
// vacuums PostgreSQL's table and compacts the model (untimed).
func (r *readsRun) grow(ctx context.Context, n int) error {
	for lo := r.o.Rows + 1; lo <= n; lo += 1_000_000 {
		hi := min(n, lo+999_999)
		r.o.Logf("inserting rows %d..%d", lo, hi)
		_, tag, err := r.commit(ctx, fmt.Sprintf(`INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
			((g * 7919) %% 1000)::int, (g %% 100)::int FROM generate_series(%d::bigint, %d) g`, lo, hi))
		if err != nil {
			return err
		}
		if err := r.waitApplied(ctx, tag); err != nil {
			return err
		}
	}
	for _, q := range []string{"VACUUM (ANALYZE) t", "CHECKPOINT"} {
		if _, err := r.exec(ctx, q); err != nil {
			return err
		}
	}
	if got := r.model.Len("public.t"); got != n {
		return fmt.Errorf("the in-memory HEAD holds %d rows, want %d", got, n)
	}
	return nil
}

// reads measures point gets and 10k-row ranges through the API and on
// PostgreSQL, alternating which goes first, then in process on the model.
func (r *readsRun) reads(ctx context.Context) error {
	n := r.rep.ReadRows
	get := r.cell("point get by primary key", "API: GET /api/get over HTTP/1.1 keep-alive; PostgreSQL: pgx prepared SELECT … WHERE id = $1; per get, random keys")
	rng10k := r.cell("10k-row range in key order", "API: GET /api/scan?from=&limit=10000, body read whole; PostgreSQL: prepared SELECT … WHERE id >= $1 ORDER BY id LIMIT 10000, every value read")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	base := "http://" + r.sc.addr
	served0 := r.model.Served()
	rng := rand.New(rand.NewPCG(13, 1))
	codec, err := rowenc.NewKeyCodec(rowenc.KindInt8)
	if err != nil {
		return err
	}
	for i := range r.o.Reps {
		r.o.Logf("reads rep %d (load %s)", i+1, loadAvg())
		keys := make([]int, r.o.Gets)
		for j := range keys {
			keys[j] = 1 + rng.IntN(n)
		}
		froms := make([]int, r.o.Ranges)
		for j := range froms {
			froms[j] = 1 + rng.IntN(n-10_000)
		}
		apiGet := func() error {
			t0 := time.Now()
			for _, k := range keys {
				body, err := httpGet(ctx, client, base+"/api/get?table=public.t&pk="+strconv.Itoa(k))
				if err != nil {
					return err
				}
				if !bytes.Contains(body, []byte(`{"id":"`+strconv.Itoa(k)+`"`)) {
					return fmt.Errorf("get %d: %.200s", k, body)
				}
			}
			get.Sidecar = append(get.Sidecar, time.Since(t0)/time.Duration(len(keys)))
			r.rep.APIReads += int64(len(keys))
			return nil
		}
		pgGet := func() error {
			var id int64
			var k, v string
			var score, grp int32
			t0 := time.Now()
			for _, key := range keys {
				if err := r.conn.QueryRow(ctx, "SELECT id, k, v, score, grp FROM t WHERE id = $1", key).Scan(&id, &k, &v, &score, &grp); err != nil {
					return err
				}
			}
			get.Postgres = append(get.Postgres, time.Since(t0)/time.Duration(len(keys)))
			return nil
		}
		apiRange := func() error {
			t0 := time.Now()
			for _, f := range froms {
				body, err := httpGet(ctx, client, base+"/api/scan?table=public.t&limit=10000&from="+strconv.Itoa(f))
				if err != nil {
					return err
				}
				if c := bytes.Count(body, []byte{'\n'}); c != 10_001 {
					return fmt.Errorf("scan from %d: %d lines", f, c)
				}
			}
			rng10k.Sidecar = append(rng10k.Sidecar, time.Since(t0)/time.Duration(len(froms)))
			r.rep.APIReads += int64(len(froms))
			return nil
		}
		pgRange := func() error {
			t0 := time.Now()
			for _, f := range froms {
				rows, err := r.conn.Query(ctx, "SELECT id, k, v, score, grp FROM t WHERE id >= $1 ORDER BY id LIMIT 10000", f)
				if err != nil {
					return err
				}
				c := 0
				for rows.Next() {
					if _, err := rows.Values(); err != nil {
						rows.Close()
						return err
					}
					c++
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
				if c != 10_000 {
					return fmt.Errorf("PostgreSQL range from %d: %d rows", f, c)
				}
			}
			rng10k.Postgres = append(rng10k.Postgres, time.Since(t0)/time.Duration(len(froms)))
			return nil
		}
		order := []func() error{apiGet, pgGet, apiRange, pgRange}
		if i%2 == 1 {
			order = []func() error{pgGet, apiGet, pgRange, apiRange}
		}
		for _, f := range order {
			if err := f(); err != nil {
				return err
			}
		}
		// In process, on the model (no HTTP, no JSON): the server-side cost.
		at := r.model.LSN()
		var buf []byte
		ks := make([][]byte, len(keys))
		for j, k := range keys {
			if ks[j], err = codec.Encode(strconv.Itoa(k)); err != nil {
				return err
			}
		}
		t0 := time.Now()
		for _, k := range ks {
			row, found, err := r.model.Get("public.t", k, at, buf[:0])
			if err != nil || !found {
				return fmt.Errorf("in-process get: found %v, %v", found, err)
			}
			buf = row
		}
		r.rep.InProcGet = append(r.rep.InProcGet, time.Since(t0)/time.Duration(len(ks)))
		t0 = time.Now()
		for _, f := range froms {
			from, err := codec.Encode(strconv.Itoa(f))
			if err != nil {
				return err
			}
			c := 0
			if err := r.model.Range("public.t", from, nil, 10_000, at, func(_, row []byte) bool { c += len(row) & 1; return true }); err != nil {
				return err
			}
		}
		r.rep.InProcRange = append(r.rep.InProcRange, time.Since(t0)/time.Duration(len(froms)))
	}
	r.rep.Served = r.model.Served() - served0
	return nil
}

func httpGet(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(bufio.NewReaderSize(resp.Body, 64<<10))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %d %.200s", url, resp.StatusCode, body)
	}
	return body, nil
}

// footprint compacts the model (every heap page then written by the next
// checkpoint), checkpoints it, and reads the sizes of both sides.
func (r *readsRun) footprint(ctx context.Context, dataDir string) error {
	if _, err := r.model.CompactTable("public.t"); err != nil {
		return err
	}
	st, err := r.model.Checkpoint()
	if err != nil {
		return err
	}
	r.rep.HeadHeap, r.rep.HeadIndex, r.rep.HeadKeys = int64(st.HeapBytes), int64(st.IndexBytes), int64(st.KeyBytes)
	idx, keys := r.model.Table("public.t").IndexBytes()
	r.rep.IndexMem, r.rep.KeysMem = int64(idx), int64(keys)
	if r.rep.DataDir, err = diskUsage(dataDir); err != nil {
		return err
	}
	return r.conn.QueryRow(ctx, "SELECT pg_total_relation_size('t'), pg_relation_size('t'), pg_indexes_size('t')").
		Scan(&r.rep.PGTotal, &r.rep.PGHeap, &r.rep.PGIndexes)
}

// WriteReadsMarkdown writes the report.
func WriteReadsMarkdown(w io.Writer, rep *ReadsReport, command string) error {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# Reads and apply at HEAD: the in-memory HEAD (heap + radix index) vs PostgreSQL\n\n")
	measuredBy(&b, rep.Started, rep.Took, command, rep.Env)
	p(".\nMachine: %s, %d CPUs, %s, %s; PostgreSQL %s (fsync on, shared_buffers 1GB) in the same run on the same data.\n", rep.Env.CPU, rep.Env.NumCPU, rep.Env.MemTotal, rep.Env.GoVersion, rep.PGVersion)
	p("Load average at each repetition: %s.\n\n", strings.Join(rep.Loads, "; "))
	p("Table `t (id bigint PRIMARY KEY, k text, v text, score int, grp int)`: %s rows for the seed-003 cells, then grown to %s rows for the reads and the footprint. Every cell: %d repetitions, median (min–max); ratio = sidecar / PostgreSQL (below 1: sidecar faster).\n\n", fmtRecords(rep.Rows), fmtRecords(rep.ReadRows), rep.Reps)
	p("| cell | sidecar | PostgreSQL | ratio | note |\n|---|---:|---:|---:|---|\n")
	for _, c := range rep.Cells {
		s, q := median(c.Sidecar), median(c.Postgres)
		p("| %s | %s (%s–%s) | %s (%s–%s) | %s× | %s |\n", c.Name, fmtDur(s), fmtDur(minDur(c.Sidecar)), fmtDur(maxDur(c.Sidecar)),
			fmtDur(q), fmtDur(minDur(c.Postgres)), fmtDur(maxDur(c.Postgres)), strconv.FormatFloat(float64(s)/float64(q), 'g', 3, 64), c.Note)
	}
	p("\nIn process on the model (no HTTP, no JSON; `Model.Get` / `Model.Range`: version check, index, heap row re-printed as canonical bytes): point get %s (%s–%s), 10k-row range %s (%s–%s).\n",
		fmtDur(median(rep.InProcGet)), fmtDur(minDur(rep.InProcGet)), fmtDur(maxDur(rep.InProcGet)),
		fmtDur(median(rep.InProcRange)), fmtDur(minDur(rep.InProcRange)), fmtDur(maxDur(rep.InProcRange)))
	p("The in-memory HEAD answered %d of the %d API reads (the rest would have gone to the tree).\n\n", rep.Served, rep.APIReads)
	pgTI := rep.PGTotal
	headTotal := rep.HeadHeap + rep.HeadIndex + rep.HeadKeys
	p("## Footprint\n\n| | bytes | per row | ratio to PostgreSQL table + indexes |\n|---|---:|---:|---:|\n")
	row := func(name string, v int64) {
		p("| %s | %s | %.1f | %.2f× |\n", name, fmtBytes(v), float64(v)/float64(rep.ReadRows), float64(v)/float64(pgTI))
	}
	row("HEAD checkpoint: heap pages (s2)", rep.HeadHeap)
	row("HEAD checkpoint: radix index", rep.HeadIndex)
	row("HEAD checkpoint: key store", rep.HeadKeys)
	row("HEAD checkpoint, total", headTotal)
	row("sidecar data directory (trees, history, HEAD checkpoint; du)", rep.DataDir)
	row("PostgreSQL pg_total_relation_size('t')", rep.PGTotal)
	row("PostgreSQL heap (pg_relation_size)", rep.PGHeap)
	row("PostgreSQL indexes", rep.PGIndexes)
	p("\nRadix index in memory: %s, %.1f bytes per key (dense int8 keys); key store %s (%.1f per key). Peak RSS of the benchmark process (daemon + clients; PostgreSQL is separate): %s.\n",
		fmtBytes(rep.IndexMem), float64(rep.IndexMem)/float64(rep.ReadRows), fmtBytes(rep.KeysMem), float64(rep.KeysMem)/float64(rep.ReadRows), fmtBytes(rep.PeakRSS))
	_, err := io.WriteString(w, b.String())
	return err
}

func minDur(xs []time.Duration) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxDur(xs []time.Duration) time.Duration {
	m := time.Duration(0)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// connectScratch connects to the scratch cluster at url, reads its
// server_version into *version and runs ddl (the benchmark's tables).
func connectScratch(ctx context.Context, url, ddl string, version *string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	_ = conn.QueryRow(ctx, "SHOW server_version").Scan(version)
	if _, err := conn.Exec(ctx, ddl); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("create tables: %w", err)
	}
	return conn, nil
}

// startScratch makes a scratch directory and starts a throwaway
// PostgreSQL ready for logical replication with one database db; cleanup
// stops the cluster and removes the directory.
func startScratch(ctx context.Context, dir, prefix, db string, logf func(string, ...any)) (scratch string, pg *pgtest.Cluster, url string, cleanup func(), err error) {
	scratch, err = os.MkdirTemp(dir, prefix)
	if err != nil {
		return "", nil, "", nil, err
	}
	pg, err = pgtest.Start(ctx, pgtest.Options{Settings: pubSettings, Logf: logf})
	if err != nil {
		os.RemoveAll(scratch)
		return "", nil, "", nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	cleanup = func() {
		pg.Stop()
		os.RemoveAll(scratch)
	}
	if url, err = pg.CreateDB(ctx, db); err != nil {
		cleanup()
		return "", nil, "", nil, err
	}
	return scratch, pg, url, cleanup, nil
}
