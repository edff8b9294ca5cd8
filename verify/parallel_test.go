package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// TestSplitBlocks: the heap parts are contiguous, open at both ends, and
// as many as asked unless the table has fewer blocks.
func TestSplitBlocks(t *testing.T) {
	bound := regexp.MustCompile(`ctid (>=|<) '\((\d+),0\)'`)
	for _, blocks := range []uint64{0, 1, 2, 5, 1000, 1 << 31} {
		for _, n := range []int{1, 2, 3, 7} {
			parts := splitBlocks(blocks, n)
			want := int(min(uint64(n), max(blocks, 1)))
			if len(parts) != want {
				t.Fatalf("%d blocks, %d ways: %d parts, want %d", blocks, n, len(parts), want)
			}
			if want == 1 {
				if parts[0] != "" {
					t.Fatalf("%d blocks, %d ways: single part %q, want the whole table", blocks, n, parts[0])
				}
				continue
			}
			prevHi := ""
			for i, p := range parts {
				ms := bound.FindAllStringSubmatch(p, -1)
				var lo, hi string
				for _, m := range ms {
					if m[1] == ">=" {
						lo = m[2]
					} else {
						hi = m[2]
					}
				}
				if (i == 0) != (lo == "") || (i == len(parts)-1) != (hi == "") {
					t.Fatalf("%d blocks, %d ways: part %d %q: want open only at the ends", blocks, n, i, p)
				}
				if i > 0 && lo != prevHi {
					t.Fatalf("%d blocks, %d ways: part %d starts at %s, previous ends at %s", blocks, n, i, lo, prevHi)
				}
				if lo != "" && hi != "" {
					l, _ := strconv.ParseUint(lo, 10, 64)
					h, _ := strconv.ParseUint(hi, 10, 64)
					if l >= h {
						t.Fatalf("%d blocks, %d ways: empty part %d %q", blocks, n, i, p)
					}
				}
				prevHi = hi
			}
		}
	}
}

// TestParallelLevel0DigestsEqualSerial: in one pinned snapshot, with
// writers changing the table all along, level 0 split over workers that
// imported the snapshot returns exactly the serial query's bucket
// digests, for each bucket scheme's query.
func TestParallelLevel0DigestsEqualSerial(t *testing.T) {
	url := pg.NewDB(t)
	setup := connect(t, url, nil)
	mustExec(t, setup, `CREATE TABLE t (id int8 PRIMARY KEY, k text, v text);
INSERT INTO t SELECT i, 'k' || i, repeat('v', i % 50) FROM generate_series(1, 30000) i;
DELETE FROM t WHERE id % 7 = 0;
UPDATE t SET v = 'u' WHERE id % 11 = 0`)
	ctx := t.Context()
	p, err := Pin(ctx, mustConfig(t, url), PinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	tbl, err := LoadTable(ctx, p.Conn(), "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := ExportSnapshot(ctx, p.Conn())
	if err != nil {
		t.Fatal(err)
	}
	// Writers change every part of the heap while the scans run: rows
	// the snapshot must not see.
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := connect(t, url, nil)
		for i := 0; wctx.Err() == nil; i++ {
			id := (i*7919)%40000 + 1
			_, err := w.Exec(wctx, fmt.Sprintf(`INSERT INTO t VALUES (%d, 'new', 'w') ON CONFLICT (id) DO UPDATE SET v = t.v || 'x'; DELETE FROM t WHERE id = %d`, id, id+3)).ReadAll()
			if err != nil && wctx.Err() == nil {
				t.Errorf("writer: %v", err)
				return
			}
		}
	}()
	defer func() { stop(); wg.Wait() }()
	time.Sleep(100 * time.Millisecond)
	workers, err := OpenWorkers(ctx, mustConfig(t, url), snap, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := CloseWorkers(ctx, workers); err != nil {
			t.Error(err)
		}
	}()
	bounds := []string{"2", "9", "10000", "15000", "25000"} // int8 order
	queries := map[string]func(where string) (string, error){
		"fixed": func(w string) (string, error) { return clampedBucketDigestQuery(tbl, rowhash.PGHash64, 512, 0, 58, w) },
		"boundary": func(w string) (string, error) {
			return boundaryDigestQuery(tbl, rowhash.PGHash64, bounds, w)
		},
		"hash": func(w string) (string, error) { return hashBucketDigestQuery(tbl, rowhash.PGHash64, 6, w) },
	}
	for name, q := range queries {
		serial, err := serialLevel0{p.Conn()}.digests(ctx, tbl, q)
		if err != nil {
			t.Fatalf("%s serial: %v", name, err)
		}
		par, err := parallelLevel0{workers}.digests(ctx, tbl, q)
		if err != nil {
			t.Fatalf("%s parallel: %v", name, err)
		}
		if len(serial) < 2 {
			t.Fatalf("%s: %d buckets: the test does not exercise bucketing", name, len(serial))
		}
		if !maps.Equal(serial, par) {
			t.Fatalf("%s: parallel digests differ from serial: total %v vs %v", name, sumDigests(par), sumDigests(serial))
		}
		if total := sumDigests(serial); total.Count != 30000-30000/7 {
			t.Fatalf("%s: %d rows in the snapshot, want %d", name, total.Count, 30000-30000/7)
		}
	}
	parts, err := heapParts(ctx, workers[0], tbl, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 {
		t.Fatalf("%d heap parts, want 3 (the table has several blocks)", len(parts))
	}
}

// normalized drops what differs between two runs of the same comparison
// (timings, the level-0 worker count).
func normalized(tr TableReport) TableReport {
	tr.Seconds, tr.DirtySeconds, tr.Workers = 0, 0, 0
	return tr
}

// TestRunParallelMatchesSerial: through the whole Runner, a parallel
// level 0 (threshold forced low) gives the serial run's table reports, on
// an equal mirror and on a corrupted one, for the fixed-width, boundary
// and hash bucket schemes.
func TestRunParallelMatchesSerial(t *testing.T) {
	p := newPipeline(t, []string{"public.acct", "public.names", "public.pairs"},
		`CREATE TABLE acct (id int8 PRIMARY KEY, name text, balance numeric)`,
		`CREATE TABLE names (k text PRIMARY KEY, v text)`,
		`CREATE TABLE pairs (a int4, b text, v text, PRIMARY KEY (a, b))`)
	p.exec(`INSERT INTO acct SELECT i, 'name ' || i, i * 1.50 FROM generate_series(1, 8000) i`,
		`INSERT INTO names SELECT 'k' || i, 'v' || i FROM generate_series(1, 8000) i`,
		`INSERT INTO pairs SELECT i % 40, 'k' || i, 'v' || i FROM generate_series(1, 8000) i`)
	p.start()
	p.exec(`UPDATE acct SET balance = balance + 1 WHERE id % 3 = 0`, `DELETE FROM names WHERE k LIKE '%7'`,
		`UPDATE pairs SET v = 'u' WHERE a = 3`)
	cases := []struct {
		name, table, scheme string
		noFixed             bool
		hook                func(ctx context.Context, t *mirror.Tree) (*mirror.Tree, error)
		diffs               int
	}{
		{"fixed equal", "public.acct", "fixed", false, nil, 0},
		{"fixed corrupted", "public.acct", "fixed", false, corrupt("1234", "4321", "99999"), 3},
		{"boundary corrupted", "public.acct", "boundary", true, corrupt("1234", "4321", "99999"), 3},
		{"text boundary equal", "public.names", "boundary", false, nil, 0},
		{"text boundary corrupted", "public.names", "boundary", false, corrupt("k1234", "k4321", "zzz"), 3},
		{"hash equal", "public.pairs", "hash", false, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var reps [2]TableReport
			for i, workers := range []int{1, 3} {
				r := p.runner()
				r.Workers = workers
				r.Options.ParallelRows = 1
				r.Options.NoFixedWidth = c.noFixed
				r.tree = c.hook
				var reported []uint32
				r.OnWorkers = func(table string, pids []uint32) {
					if table != c.table {
						t.Errorf("OnWorkers for %s, verifying %s", table, c.table)
					}
					reported = pids
				}
				rep := mustRun(t, r, c.table)
				tr := rep.Tables[0]
				if tr.Result == ResultError {
					t.Fatalf("workers %d: %s", workers, tr.Error)
				}
				if want := map[int]int{1: 0, 3: 3}[workers]; tr.Workers != want {
					t.Fatalf("workers %d: level 0 ran on %d connections, want %d (0 = serial)", workers, tr.Workers, want)
				}
				if tr.Scheme != c.scheme || tr.Differences != c.diffs {
					t.Fatalf("workers %d: scheme %s, %d differences; want %s, %d:\n%s", workers, tr.Scheme, tr.Differences, c.scheme, c.diffs, reportSummary(rep))
				}
				if len(reported) != tr.Workers || (len(reported) > 0 && reported[0] == 0) {
					t.Fatalf("workers %d: OnWorkers reported pids %v for %d level-0 connections", workers, reported, tr.Workers)
				}
				reps[i] = normalized(tr)
			}
			js, err1 := json.Marshal(reps[0])
			jp, err2 := json.Marshal(reps[1])
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if string(js) != string(jp) {
				t.Fatalf("parallel report differs from serial:\nserial   %s\nparallel %s", js, jp)
			}
		})
	}
}

// TestRunParallelUnderWriteLoad: with writers changing the table and the
// stream applying their commits, repeated parallel verifications report
// equal: every worker sees exactly the pinned snapshot.
func TestRunParallelUnderWriteLoad(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text, balance numeric)`)
	p.exec(`INSERT INTO acct SELECT i, 'name ' || i, i FROM generate_series(1, 20000) i`)
	p.start()
	seed := seed.New(t, seedFlag)
	stop := p.writeLoad(t, seed, false)
	defer stop()
	for i := range 4 {
		r := p.runner()
		r.Workers, r.Options.ParallelRows = 2, 1
		r.Options.NoFixedWidth = i%2 == 1
		rep := mustRun(t, r)
		if rep.Result != ResultEqual {
			t.Fatalf("seed %d: run %d under load at %s: want equal:\n%s", seed, i, rep.LSN, reportSummary(rep))
		}
		if rep.Tables[0].Workers != 2 {
			t.Fatalf("run %d: level 0 on %d connections, want 2", i, rep.Tables[0].Workers)
		}
	}
	if n := stop(); n < 20 {
		t.Errorf("only %d writes ran during the verifications: the load test did not load", n)
	}
}
