package mirror

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// intakeProbe is a consumer whose copy builds record every row they are
// given and when: before or after the test called TableCopied (copied).
type intakeProbe struct {
	anyOrder bool

	mu     sync.Mutex
	copied bool // set by the test right before TableCopied
	builds []*intakeBuild
	handed []CopyBuild // builds reset batches handed over
}

type intakeBuild struct {
	p                  *intakeProbe
	keys               map[string]bool
	before, after, dup int
	// discarded: Discard came before a reset handed the build over
	// (after it, Discard does nothing: CopyBuild).
	discarded, handed bool
}

func (p *intakeProbe) Durable() Position { return Position{} }

func (p *intakeProbe) Apply(_ context.Context, b *Batch) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range b.Tables {
		if bt := b.Tables[i].Built(); bt != nil {
			p.handed = append(p.handed, bt)
			bt.(*intakeBuild).handed = true
		}
	}
	return nil
}

func (p *intakeProbe) BuildCopy(string, *wal.Relation) CopyBuild {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := &intakeBuild{p: p, keys: map[string]bool{}}
	p.builds = append(p.builds, b)
	return b
}

func (p *intakeProbe) BuildsInAnyOrder() bool { return p.anyOrder }

func (b *intakeBuild) Add(key, _ []byte) {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	if b.keys[string(key)] {
		b.dup++
	}
	b.keys[string(key)] = true
	if b.p.copied {
		b.after++
	} else {
		b.before++
	}
}

func (b *intakeBuild) Discard() {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	if !b.handed {
		b.discarded = true
	}
}

// TestCopyIntakeFeedsBuildsBeforeTableCopied (issue 24 item 5): a
// consumer whose builds take rows in any order (the in-memory HEAD) gets
// every row of a copy from its ranges as they are delivered, before the
// last range ends and TableCopied merges the runs into the tree — the
// HEAD build overlaps the COPY instead of following it (proved by the
// order of events, not by time). The build is handed over with the
// table's reset. A consumer that needs key order still gets the rows
// from the merge, in order. A range that aborts after its rows were fed
// discards the intake build, and TableCopied builds from the merge
// instead: the rows of the aborted range are in no build.
func TestCopyIntakeFeedsBuildsBeforeTableCopied(t *testing.T) {
	const ranges, perRange = 4, 30_000
	row := func(id int) []wal.Value {
		s := strconv.Itoa(id)
		return []wal.Value{{Kind: wal.Text, Bytes: []byte(s)}, {Kind: wal.Text, Bytes: []byte("a" + s)}, {Kind: wal.Text, Bytes: []byte("b")}}
	}
	// copyRanges writes ranges concurrently (small runs: several cuts a
	// range, some to files), each range r holding ids r, r+ranges, …;
	// abort makes range 0 abort after its rows and be copied again.
	copyRanges := func(h *mharness, rel *wal.Relation, abort bool) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, ranges+1)
		write := func(r int, fail bool) {
			w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				errs <- err
				return
			}
			for i := range perRange {
				if err := w.WriteRow(row(i*ranges + r)); err != nil {
					errs <- err
					return
				}
			}
			if fail {
				w.Abort()
				return
			}
			errs <- w.Close()
		}
		for r := range ranges {
			wg.Go(func() { write(r, abort && r == 0) })
		}
		wg.Wait()
		if abort {
			write(0, false)
		}
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	waitHanded := func(p *intakeProbe, n int) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			p.mu.Lock()
			got := len(p.handed)
			p.mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d builds handed over, want %d", got, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	cases := []struct {
		name     string
		anyOrder bool
		abort    bool
		// wantBefore: every row reached the build before TableCopied.
		wantBefore bool
		builds     int // builds started (an aborted intake's and the merge's)
	}{
		{"any order: fed at the intake", true, false, true, 1},
		{"key order: fed by the merge", false, false, false, 1},
		{"any order, a range aborted: rebuilt from the merge", true, true, false, 2},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newMHarness(t, Options{CopyMemory: 4 << 20, CopyRunBytes: 256 << 10})
			p := &intakeProbe{anyOrder: c.anyOrder}
			sub, err := h.m.Subscribe(p, SubscribeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			rel := testRel(16900+uint32(ci), "intake")
			copyRanges(h, rel, c.abort)
			p.mu.Lock()
			p.copied = true
			p.mu.Unlock()
			h.lsn += 10
			if err := h.m.TableCopied(t.Context(), rel, h.lsn); err != nil {
				t.Fatal(err)
			}
			if err := h.m.StreamReached(t.Context(), h.lsn); err != nil {
				t.Fatal(err)
			}
			waitHanded(p, 1)
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.builds) != c.builds {
				t.Fatalf("%d builds started, want %d", len(p.builds), c.builds)
			}
			last := p.builds[len(p.builds)-1]
			if p.handed[0] != CopyBuild(last) {
				t.Fatalf("the reset handed over another build than the last one started")
			}
			if c.abort && !p.builds[0].discarded {
				t.Fatalf("the intake build fed an aborted range's rows was not discarded")
			}
			if last.discarded {
				t.Fatalf("the build handed over was discarded")
			}
			total := ranges * perRange
			t.Logf("rows before TableCopied %d, after %d, duplicates %d", last.before, last.after, last.dup)
			if len(last.keys) != total || last.dup != 0 {
				t.Fatalf("the build got %d distinct keys (%d twice), want %d once each", len(last.keys), last.dup, total)
			}
			if c.wantBefore && last.before != total {
				t.Fatalf("%d of %d rows reached the build before TableCopied: the build does not overlap the copy", last.before, total)
			}
			if !c.wantBefore && last.after != total {
				t.Fatalf("%d of %d rows reached the build from the merge", last.after, total)
			}
		})
	}
}
