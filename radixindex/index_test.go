package radixindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"testing"
)

// bank is a concurrent stand-in for the heap: row id → (key, balance).
// The writer adds rows under the Index's write lock; readers read them
// under its read lock.
type bank struct {
	keys     [][]byte
	balances []int64
}

func (b *bank) add(k []byte, bal int64) uint64 {
	b.keys = append(b.keys, k)
	b.balances = append(b.balances, bal)
	return uint64(len(b.keys) - 1)
}

func (b *bank) keyOf(dst []byte, id uint64) []byte { return append(dst, b.keys[id]...) }

// TestIndexBank runs a writer moving money between accounts (each
// transfer replaces two rows by new row ids, and some batches also delete
// and insert a volatile key; now and then the index is rebuilt in bulk and
// swapped in) against readers that check, inside View, that the total and
// the account count never change, against chunked Scans that must deliver
// every account exactly once, in order, and against a checkpointer whose
// every checkpoint must restore to a state with the same total. Run it
// with -race.
func TestIndexBank(t *testing.T) {
	seed := testSeed(t)
	const accounts, start = 3000, 1000
	b := &bank{}
	ix := NewIndex(b.keyOf)
	ix.scanChunk = 97 // many chunk gaps per scan
	acct := func(i int) []byte { return binary.BigEndian.AppendUint32([]byte{'a'}, uint32(i)) }
	ix.Update(1, func(tr *Tree) {
		for i := range accounts {
			k := acct(i)
			tr.Put(k, b.add(k, start))
		}
	})
	batches := 1000
	if testing.Short() {
		batches = 500
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 16)
	report := func(s string) {
		select {
		case errs <- s:
		default:
		}
	}
	// Writer.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		rng := rand.New(rand.NewPCG(seed, 1))
		for lsn := uint64(2); lsn < uint64(batches)+2; lsn++ {
			ix.Update(lsn, func(tr *Tree) {
				for range 1 + rng.IntN(20) {
					from, to := acct(rng.IntN(accounts)), acct(rng.IntN(accounts))
					if bytes.Equal(from, to) {
						continue
					}
					amt := int64(rng.IntN(50))
					fid, _ := tr.Get(from)
					fbal := b.balances[fid]
					tr.Put(from, b.add(from, fbal-amt))
					tid, _ := tr.Get(to)
					tr.Put(to, b.add(to, b.balances[tid]+amt))
				}
				// Volatile keys under "v": balance 0, so totals hold.
				v := binary.BigEndian.AppendUint32([]byte{'v'}, uint32(rng.IntN(500)))
				if _, ok := tr.Delete(v); !ok {
					tr.Put(v, b.add(v, 0))
				}
			})
			if lsn%200 == 0 {
				// Swap in a bulk-built copy of the same contents while
				// the readers run (this goroutine is the only writer, so
				// nothing changes between the View and the swap).
				var ids []uint64
				ix.View(func(tr *Tree, _ uint64) {
					it := tr.Iter(nil)
					for ok := it.First(); ok; ok = it.Next() {
						ids = append(ids, it.RowID())
					}
				})
				err := ix.Rebuild(lsn, func(yield func([]byte, uint64) bool) {
					for _, id := range ids {
						if !yield(b.keys[id], id) {
							return
						}
					}
				})
				if err != nil {
					report("Rebuild: " + err.Error())
				}
			}
		}
	}()
	// Checkpointer: every checkpoint restores to one committed state.
	wg.Add(1)
	go func() {
		defer wg.Done()
		var buf bytes.Buffer
		untilStopped(stop, func() {
			buf.Reset()
			lsn, _, err := ix.Checkpoint(&buf)
			if err != nil {
				report("Checkpoint: " + err.Error())
				return
			}
			back, err := RestoreIndex(buf.Bytes(), b.keyOf)
			if err != nil || back.LSN() != lsn {
				report("RestoreIndex: LSN or error")
				return
			}
			// Rows are append-only, so the restored snapshot's rows are
			// still there; read them under the live index's read lock.
			ix.View(func(*Tree, uint64) {
				var total int64
				count := 0
				back.Scan([]byte{'a'}, nil, func(id uint64) bool {
					total += b.balances[id]
					count++
					return true
				})
				if count != accounts || total != accounts*start {
					report("restored checkpoint at LSN " + itoa(lsn) + ": " + itoa(uint64(count)) + " accounts, total " + itoa(uint64(total)))
				}
			})
		})
	}()
	// Snapshot readers.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			untilStopped(stop, func() {
				ix.View(func(tr *Tree, lsn uint64) {
					var total int64
					count := 0
					it := tr.Iter([]byte{'a'})
					var prev []byte
					for ok := it.First(); ok; ok = it.Next() {
						total += b.balances[it.RowID()]
						count++
						if k := it.Key(); prev != nil && bytes.Compare(prev, k) >= 0 {
							report("View: keys out of order")
						} else {
							prev = append(prev[:0], k...)
						}
					}
					if count != accounts || total != accounts*start {
						report("View at LSN " + itoa(lsn) + ": " + itoa(uint64(count)) + " accounts, total " + itoa(uint64(total)))
					}
				})
			})
		}()
	}
	// Chunked scanner.
	wg.Add(1)
	go func() {
		defer wg.Done()
		untilStopped(stop, func() {
			seen := 0
			var prev []byte
			ix.Scan(nil, nil, func(id uint64) bool {
				k := b.keys[id]
				if prev != nil && bytes.Compare(prev, k) >= 0 {
					report("Scan: keys out of order or repeated")
				}
				prev = k
				if k[0] == 'a' {
					if int(binary.BigEndian.Uint32(k[1:])) != seen {
						report("Scan: account skipped")
					}
					seen++
				}
				return true
			})
			if seen != accounts {
				report("Scan: " + itoa(uint64(seen)) + " accounts")
			}
		})
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("seed %d: %s", seed, e)
	}
	if ix.LSN() != uint64(batches)+1 {
		t.Fatalf("LSN %d", ix.LSN())
	}
	ix.View(func(tr *Tree, _ uint64) {
		if err := tr.Verify(); err != nil {
			t.Fatal(err)
		}
	})
}

// untilStopped runs fn repeatedly until stop is closed, at least once.
func untilStopped(stop <-chan struct{}, fn func()) {
	for {
		fn()
		select {
		case <-stop:
			return
		default:
		}
	}
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// TestIndexScanBounds: Scan honours prefix, start and an early stop, and
// Rebuild and Checkpoint round-trip through the Index.
func TestIndexScanBounds(t *testing.T) {
	rs := &rows{}
	ix := NewIndex(rs.keyOf)
	ix.scanChunk = 3
	ix.Update(5, func(tr *Tree) {
		for _, k := range []string{"a1", "a2", "a3", "b1", "b2", "b3", "b4", "c"} {
			tr.Put([]byte(k), rs.add([]byte(k)))
		}
	})
	collect := func(prefix, start string, limit int) string {
		var out []byte
		n := 0
		ix.Scan([]byte(prefix), []byte(start), func(id uint64) bool {
			out = append(out, rs.keys[id]...)
			out = append(out, ' ')
			n++
			return n < limit
		})
		return string(out)
	}
	for _, c := range []struct {
		prefix, start string
		limit         int
		want          string
	}{
		{"", "", 100, "a1 a2 a3 b1 b2 b3 b4 c "},
		{"b", "", 100, "b1 b2 b3 b4 "},
		{"b", "b2", 100, "b2 b3 b4 "},
		{"b", "a", 100, "b1 b2 b3 b4 "},
		{"b", "c", 100, ""},
		{"", "b25", 2, "b3 b4 "},
		{"x", "", 100, ""},
	} {
		if got := collect(c.prefix, c.start, c.limit); got != c.want {
			t.Errorf("Scan(%q, %q, %d) = %q, want %q", c.prefix, c.start, c.limit, got, c.want)
		}
	}
	var buf bytes.Buffer
	lsn, _, err := ix.Checkpoint(&buf)
	if err != nil || lsn != 5 {
		t.Fatalf("Checkpoint: %d, %v", lsn, err)
	}
	back, err := RestoreIndex(buf.Bytes(), rs.keyOf)
	if err != nil || back.LSN() != 5 || back.Len() != 8 {
		t.Fatalf("RestoreIndex: %v", err)
	}
	err = back.Rebuild(9, func(yield func([]byte, uint64) bool) {
		yield([]byte("a2"), 1)
	})
	if err != nil || back.LSN() != 9 || back.Len() != 1 {
		t.Fatalf("Rebuild: %v, LSN %d, Len %d", err, back.LSN(), back.Len())
	}
	if id, ok := back.Get([]byte("a2")); !ok || id != 1 {
		t.Fatalf("Get after Rebuild = %d, %v", id, ok)
	}
}
