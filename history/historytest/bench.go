package historytest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// RevertHistory is the history issue #7's benchmarks measure: a table
// public.big(id, v, n) of N rows; version A; changes random upserts in
// commits of 1,000; version B; an empty commit Before; a DELETE of changes
// random rows (Bad); then changes more random upserts, some of which
// re-create deleted rows (the revert's conflicts).
type RevertHistory struct {
	Rel                *wal.Relation
	A, B, Before, Bad  string        // end LSNs, as refs
	Changed            map[int]bool  // ids the upserts between A and B touched
	Deleted, Rewritten map[int]bool  // ids Bad deleted; ids the later upserts touched
	Copy, Total        time.Duration // time of the initial copy, of the whole build
	rng                *rand.Rand
}

// BuildRevertHistory writes RevertHistory into f (seeded: the same n and
// changes give the same history).
func (f *Fixture) BuildRevertHistory(n, changes int) *RevertHistory {
	f.T.Helper()
	h := &RevertHistory{rng: rand.New(rand.NewPCG(1, 2)),
		Rel: Rel(1, "public", "big", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})}
	start := time.Now()
	rows := make([][]*string, 0, n)
	for id := range n {
		rows = append(rows, []*string{S(strconv.Itoa(id)), S(fmt.Sprintf("value %d", id)), S(strconv.Itoa(id % 1000))})
	}
	f.CreateTable(h.Rel, rows)
	h.Copy = time.Since(start)
	empty := func() string { return f.Commit(func(*Tx) {}).EndLSN.String() }
	h.A = empty()
	h.Changed = h.update(f, n, changes, 1000)
	h.B = empty()
	h.Before = empty()
	h.Deleted = map[int]bool{}
	h.Bad = f.Commit(func(tx *Tx) {
		for len(h.Deleted) < changes {
			if id := h.rng.IntN(n); !h.Deleted[id] {
				h.Deleted[id] = true
				tx.Delete(h.Rel, strconv.Itoa(id))
			}
		}
	}).EndLSN.String()
	h.Rewritten = h.update(f, n, changes, 1000)
	h.Total = time.Since(start)
	return h
}

// update writes count random upserts, perTxn per commit, and returns the
// distinct ids it touched (each upsert changes its row: "changed
// <random>" never equals an earlier value).
func (h *RevertHistory) update(f *Fixture, n, count, perTxn int) map[int]bool {
	touched := map[int]bool{}
	for done := 0; done < count; done += perTxn {
		f.Commit(func(tx *Tx) {
			for range perTxn {
				id := h.rng.IntN(n)
				touched[id] = true
				tx.Upsert(h.Rel, []*string{S(strconv.Itoa(id)), S(fmt.Sprintf("changed %d", h.rng.Int())), S("1")})
			}
		})
	}
	return touched
}

// Conflicts counts the deleted rows the later upserts re-created: the
// rows a revert of Bad reports as conflicts.
func (h *RevertHistory) Conflicts() int {
	both := 0
	for id := range h.Deleted {
		if h.Rewritten[id] {
			both++
		}
	}
	return both
}
