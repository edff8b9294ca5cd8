package mirror

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"weak"

	"github.com/sidecar-dev/sidecar/wal"
)

// dropProbe is a CopyBuild that, once past the first runs' rows, checks
// that the arena chunk of the copy's first row was reclaimed.
type dropProbe struct {
	t        *testing.T
	n        int
	checkAt  int
	first    weak.Pointer[byte]
	reclaimd bool
	checked  bool
}

func (p *dropProbe) Add(key, _ []byte) {
	if p.n == 0 {
		p.first = weak.Make(&key[0])
	}
	p.n++
	if p.n == p.checkAt {
		p.checked = true
		runtime.GC()
		runtime.GC()
		p.reclaimd = p.first.Value() == nil
	}
}

func (p *dropProbe) Discard() {}

// TestCopyBuildDropsDrainedRuns (issue 24 item 5): while a copy's build
// goes on, the rows of a run kept in memory that the merge has passed are
// garbage (the builders copy what they keep), so the HEAD built beside
// the tree reuses their memory instead of touching fresh pages — a first
// touch costs ~20 µs a page on this VM, a 1M-row copy held ~125 MB of
// rows until its build ended. Before, every run kept its arena chunks
// until releaseRuns, after the whole build.
func TestCopyBuildDropsDrainedRuns(t *testing.T) {
	const (
		ranges   = 4
		perRange = 40_000
	)
	h := newMHarness(t, Options{})
	rel := testRel(16530, "copydrop")
	filler := strings.Repeat("x", 100)
	for r := range ranges { // disjoint key ranges, one run each (in memory)
		w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: ranges})
		if err != nil {
			t.Fatal(err)
		}
		for i := range perRange {
			id := strconv.Itoa(r*perRange + i)
			vals := []wal.Value{{Kind: wal.Text, Bytes: []byte(id)}, {Kind: wal.Text, Bytes: []byte(filler)}, {Kind: wal.Text, Bytes: []byte("v" + id)}}
			if err := w.WriteRow(vals); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	h.m.copyMu.Lock()
	tc := h.m.copies[rel.QualifiedName()]
	h.m.copyMu.Unlock()
	if tc == nil {
		t.Fatal("no table copy")
	}
	for _, r := range tc.runs {
		if r.path != "" {
			t.Fatalf("a run went to a file (%d runs): the test needs them in memory", len(tc.runs))
		}
	}
	// Past the first two ranges' rows and the batches in flight.
	p := &dropProbe{t: t, checkAt: 3*perRange + perRange/2}
	if _, err := tc.build(t.Context(), h.m.eng, 8<<20, copyBuilds{&Subscription{}: p}); err != nil {
		t.Fatal(err)
	}
	if !p.checked || p.n != ranges*perRange {
		t.Fatalf("the build passed %d rows, want %d", p.n, ranges*perRange)
	}
	if !p.reclaimd {
		t.Fatalf("three runs into the build the first run's rows are still held")
	}
	h.m.releaseRuns(tc)
}
