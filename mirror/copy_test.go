package mirror

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// referenceRoot builds the tree of rows the plain way: each row inserted
// by the stream's rowEdits into a map, one sort, one Builder. Every copy
// path must give this root (DESIGN.md invariant 3).
func referenceRoot(t *testing.T, m *Mirror, rel *wal.Relation, rows [][]wal.Value) prolly.Root {
	t.Helper()
	tb, err := newTable(tableRecord{Name: rel.QualifiedName(), Rel: rel})
	if err != nil {
		t.Fatal(err)
	}
	rowsByKey := map[string][]byte{}
	current := func(key []byte) ([]byte, bool, error) {
		v, ok := rowsByKey[string(key)]
		return v, ok, nil
	}
	for _, r := range rows {
		if err := rowEdits(tb, wal.Insert, wal.NoOld, r, nil, current, func(key string, e edit) {
			rowsByKey[key] = e.val
		}); err != nil {
			t.Fatal(err)
		}
	}
	var kvs []kv
	for k, v := range rowsByKey {
		kvs = append(kvs, kv{[]byte(k), v})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
	b := m.eng.NewBuilder(t.Context())
	for _, e := range kvs {
		if err := b.Add(e.key, e.val); err != nil {
			t.Fatal(err)
		}
	}
	root, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// copyRows copies rows through CopyRange in ranges (rows[i] goes to range
// assign(i)), the ranges written concurrently, then TableCopied; it
// returns the table's recorded root.
func copyRows(t *testing.T, h *mharness, rel *wal.Relation, rows [][]wal.Value, ranges int, assign func(i int) int) prolly.Root {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, ranges)
	for r := range ranges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				errs <- err
				return
			}
			for i, row := range rows {
				if assign(i) != r {
					continue
				}
				// The parser reuses its buffers: so must the writer's caller.
				vals := make([]wal.Value, len(row))
				for c, v := range row {
					vals[c] = wal.Value{Kind: v.Kind, Bytes: append([]byte(nil), v.Bytes...)}
				}
				if err := w.WriteRow(vals); err != nil {
					errs <- err
					return
				}
				for c := range vals {
					clear(vals[c].Bytes)
				}
			}
			errs <- w.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	h.lsn += 10
	if err := h.m.TableCopied(t.Context(), rel, h.lsn); err != nil {
		t.Fatal(err)
	}
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	return h.m.tables[rel.QualifiedName()].rec.Root
}

// TestCopyRootMatchesReference copies the same rows through several
// ranges in the ways the copy can see them (key-ordered ranges as a
// serial key in heap order gives, interleaved ranges, shuffled rows), with
// runs kept in memory or spilled to files, and checks that the root is
// byte-identical to the reference build. Rows hold NULLs, empty strings
// and every byte COPY escapes.
func TestCopyRootMatchesReference(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 11))
	const n = 30_000
	rel := testRel(16500, "copied")
	rows := make([][]wal.Value, n)
	for i := range rows {
		a := wal.Value{Kind: wal.Null}
		if i%7 != 0 {
			b := make([]byte, rng.IntN(40))
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
			a = wal.Value{Kind: wal.Text, Bytes: b}
		}
		rows[i] = []wal.Value{
			{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i*3 - n))}, // negative keys too
			a,
			{Kind: wal.Text, Bytes: []byte{}},
		}
	}
	const ranges = 4
	perm := rng.Perm(n)
	cases := []struct {
		name     string
		runBytes int64 // CopyRunBytes: small values make many runs, most in files
		assign   func(i int) int
		order    []int // rows in this order (nil: as is)
	}{
		{"key-ordered ranges, in memory", 0, func(i int) int { return i * ranges / n }, nil},
		{"key-ordered ranges, spilled", 16 << 10, func(i int) int { return i * ranges / n }, nil},
		{"interleaved ranges, in memory", 0, func(i int) int { return i % ranges }, nil},
		{"shuffled, spilled", 16 << 10, func(i int) int { return i % ranges }, perm},
		{"shuffled, tiny runs", 2 << 10, func(i int) int { return i % ranges }, perm},
	}
	var want prolly.Root
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newMHarness(t, Options{CopyRunBytes: c.runBytes})
			if ci == 0 {
				want = referenceRoot(t, h.m, rel, rows)
			}
			in := rows
			if c.order != nil {
				in = make([][]wal.Value, n)
				for i, p := range c.order {
					in[i] = rows[p]
				}
			}
			got := copyRows(t, h, rel, in, ranges, c.assign)
			if got != want {
				t.Fatalf("seed %d: copied root %s, reference %s", seed, got.Hash.Short(), want.Hash.Short())
			}
			cnt, err := h.m.eng.Count(t.Context(), got)
			if err != nil || cnt != n {
				t.Fatalf("count %d, %v; want %d", cnt, err, n)
			}
			if left, _ := filepath.Glob(filepath.Join(h.m.opts.TempDir, "sidecar-copy-*")); len(left) != 0 {
				t.Errorf("run directories left behind: %v", left)
			}
		})
	}
}

// TestCopyFullIdentityDuplicates: a REPLICA IDENTITY FULL table is a
// multiset: duplicate rows stay distinct occurrences, whether they meet in
// one run or across runs, and the root equals the reference build (the
// stream's inserts, one by one).
func TestCopyFullIdentityDuplicates(t *testing.T) {
	rel := testRel(16501, "full")
	rel.Identity = wal.IdentityFull
	for i := range rel.Columns {
		rel.Columns[i].Key = true
	}
	var rows [][]wal.Value
	for i := range 5000 {
		row := []wal.Value{
			{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i % 1700))},
			{Kind: wal.Null},
			{Kind: wal.Text, Bytes: fmt.Appendf(nil, "v%d", i%1700)},
		}
		rows = append(rows, row)
	}
	for _, runBytes := range []int64{0, 4 << 10} {
		t.Run(fmt.Sprint(runBytes), func(t *testing.T) {
			h := newMHarness(t, Options{CopyRunBytes: runBytes})
			want := referenceRoot(t, h.m, rel, rows)
			got := copyRows(t, h, rel, rows, 3, func(i int) int { return i % 3 })
			if got != want {
				t.Fatalf("copied root %s, reference %s", got.Hash.Short(), want.Hash.Short())
			}
			if cnt, err := h.m.eng.Count(t.Context(), got); err != nil || cnt != 5000 {
				t.Fatalf("count %d, %v; want 5000", cnt, err)
			}
		})
	}
}

// TestCopyDuplicateKeyRejected: two rows with one key and different
// values are an error, in memory and across files.
func TestCopyDuplicateKeyRejected(t *testing.T) {
	rel := testRel(16502, "dup")
	rows := [][]wal.Value{}
	for i := range 3000 {
		rows = append(rows, []wal.Value{
			{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i))},
			{Kind: wal.Text, Bytes: []byte("x")},
			{Kind: wal.Null},
		})
	}
	rows = append(rows, []wal.Value{{Kind: wal.Text, Bytes: []byte("1500")}, {Kind: wal.Text, Bytes: []byte("y")}, {Kind: wal.Null}})
	for _, runBytes := range []int64{0, 4 << 10} {
		t.Run(fmt.Sprint(runBytes), func(t *testing.T) {
			h := newMHarness(t, Options{CopyRunBytes: runBytes})
			for r := range 2 {
				w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: 2})
				if err != nil {
					t.Fatal(err)
				}
				for i, row := range rows {
					if i%2 == r {
						if err := w.WriteRow(row); err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			err := h.m.TableCopied(t.Context(), rel, 10)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte("two rows with key")) {
				t.Fatalf("TableCopied = %v, want a duplicate key error", err)
			}
		})
	}
}

// TestCopyMemoryBudget: runs stay in memory only within the budget; the
// rest go to files, which the build removes.
func TestCopyMemoryBudget(t *testing.T) {
	h := newMHarness(t, Options{CopyRunBytes: 8 << 10, CopyMemory: 1 << 20})
	rel := testRel(16503, "budget")
	w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20_000 {
		if err := w.WriteRow([]wal.Value{{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i))}, {Kind: wal.Text, Bytes: []byte("abcdefgh")}, {Kind: wal.Null}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rw := w.(*rangeWriter)
	var inMem, inFiles int
	for _, r := range rw.runs {
		if r.path != "" {
			inFiles++
			if _, err := os.Stat(r.path); err != nil {
				t.Errorf("run file: %v", err)
			}
		} else {
			inMem++
		}
	}
	used, peak, limit := h.m.CopyMemory()
	if inMem == 0 || inFiles == 0 || used > limit/2 || peak > limit+h.m.copyChunk() {
		t.Errorf("%d runs in memory, %d in files, copy memory %d (peak %d) of %d; want runs in both, the memory ones within half the copy memory", inMem, inFiles, used, peak, limit)
	}
	if err := h.m.TableCopied(t.Context(), rel, 10); err != nil {
		t.Fatal(err)
	}
	if used, _, _ := h.m.CopyMemory(); used != 0 {
		t.Errorf("copy memory %d after the build; want 0", used)
	}
	for _, r := range rw.runs {
		if r.path != "" {
			if _, err := os.Stat(r.path); !os.IsNotExist(err) {
				t.Errorf("run file %s still there: %v", r.path, err)
			}
		}
	}
}

// TestCopyAbortReleasesMemory: an aborted range gives its in-memory runs
// back to the budget exactly (a FULL identity table, whose key and value
// are one slice, included), and its rows are not in the tree.
func TestCopyAbortReleasesMemory(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprint("full=", full), func(t *testing.T) {
			h := newMHarness(t, Options{CopyRunBytes: 8 << 10})
			rel := testRel(16504, "abort")
			if full {
				rel.Identity = wal.IdentityFull
				for i := range rel.Columns {
					rel.Columns[i].Key = true
				}
			}
			write := func(r, from, to int) wal.RowWriter {
				w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: 2})
				if err != nil {
					t.Fatal(err)
				}
				for i := from; i < to; i++ {
					if err := w.WriteRow([]wal.Value{{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i))}, {Kind: wal.Text, Bytes: []byte("abcdefgh")}, {Kind: wal.Null}}); err != nil {
						t.Fatal(err)
					}
				}
				return w
			}
			kept := write(0, 0, 500)
			if err := kept.Close(); err != nil {
				t.Fatal(err)
			}
			tc := h.m.copies[rel.QualifiedName()]
			h.m.copyMu.Lock()
			before := tc.mem
			h.m.copyMu.Unlock()
			aborted := write(1, 500, 1500)
			if err := aborted.(*rangeWriter).cut(); err != nil {
				t.Fatal(err)
			}
			aborted.Abort()
			h.m.copyMu.Lock()
			after := tc.mem
			h.m.copyMu.Unlock()
			if before <= 0 || after != before {
				t.Fatalf("copy memory %d before the aborted range, %d after its Abort; want equal and positive", before, after)
			}
			if err := h.m.TableCopied(t.Context(), rel, 10); err != nil {
				t.Fatal(err)
			}
			h.m.mu.Lock()
			root := h.m.tables[rel.QualifiedName()].rec.Root
			h.m.mu.Unlock()
			if n, err := h.m.eng.Count(t.Context(), root); err != nil || n != 500 {
				t.Fatalf("count %d, %v; want the 500 rows of the closed range", n, err)
			}
		})
	}
}
