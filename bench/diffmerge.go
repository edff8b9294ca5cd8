package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/prolly"
)

// diffs times Diff(base, tree of a batch repetition) for each pattern, from
// a cleared node cache, and checks every entry: exactly the inserted rows,
// as Added, in key order, with their values.
func (r *sizeRun) diffs(ctx context.Context) error {
	for _, pat := range []string{patAppend, patClustered, patRandom} {
		id := "diff/" + pat
		trees := r.batchRoots[pat]
		if len(trees) < r.o.Reps {
			return fmt.Errorf("%s: %d batch trees to diff against, want %d", id, len(trees), r.o.Reps)
		}
		err := r.repeat(ctx, id, r.o.Batch, func(ctx context.Context, rep int, tm *timer) error {
			m := trees[rep]
			eds := r.edits(m.slots, m.ver)
			var bad error
			n := 0
			r.clearCaches()
			tm.start()
			d, err := r.e.Diff(ctx, r.base, m.root, prolly.DiffOptions{})
			if err != nil {
				return err
			}
			for d.Next() {
				en := d.Entry()
				if bad == nil && (n >= len(eds) || en.Kind != prolly.Added || !bytes.Equal(en.Key, eds[n].Key) || !bytes.Equal(en.To, eds[n].Value)) {
					bad = fmt.Errorf("diff entry %d: %v %x → %x, want added %x", n, en.Kind, en.Key, en.To, keyAt(eds, n))
				}
				n++
			}
			tm.stop()
			switch {
			case d.Err() != nil:
				return d.Err()
			case bad != nil:
				return bad
			case n != len(eds):
				return fmt.Errorf("diff has %d entries, want %d", n, len(eds))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func keyAt(eds []prolly.Edit, i int) []byte {
	if i < len(eds) {
		return eds[i].Key
	}
	return nil
}

// merges times the three-way merge (plus the Flush of its nodes) of two
// disjoint 10k-row insert batches made on the base: ours is a batch
// repetition's tree, theirs inserts 10k other keys of the same pattern
// (adjacent positions for append and clustered, other random positions for
// random). Checked: no conflicts, theirs' rows all applied, the merged row
// count, and every row of both sides read back.
func (r *sizeRun) merges(ctx context.Context) error {
	for _, pat := range []string{patAppend, patClustered, patRandom} {
		id := "merge/" + pat
		ourTrees := r.batchRoots[pat]
		if len(ourTrees) < r.o.Reps {
			return fmt.Errorf("%s: %d batch trees to merge, want %d", id, len(ourTrees), r.o.Reps)
		}
		err := r.repeat(ctx, id, 2*r.o.Batch, func(ctx context.Context, rep int, tm *timer) error {
			ours := ourTrees[rep]
			slots := r.w.inserts(pat, r.o.Batch, r.w.rng(id, rep), 1, 2)
			ver := uint32(200 + rep)
			var theirs prolly.Root
			var err error
			untimed(ctx, func(ctx context.Context) {
				if theirs, err = r.e.Mutate(ctx, r.base, r.edits(slots, ver)); err == nil {
					err = r.ns.Flush(ctx)
				}
			})
			if err != nil {
				return fmt.Errorf("make theirs: %w", err)
			}
			r.clearCaches()
			tm.start()
			res, err := r.e.Merge(ctx, r.base, ours.root, theirs, nil)
			if err == nil {
				err = r.ns.Flush(ctx)
			}
			tm.stop()
			if err != nil {
				return err
			}
			if len(res.Conflicts) != 0 || res.Applied != len(slots) {
				return fmt.Errorf("merge: %d conflicts, %d of theirs' %d rows applied", len(res.Conflicts), res.Applied, len(slots))
			}
			all := append(r.edits(ours.slots, ours.ver), r.edits(slots, ver)...)
			sortEdits(all)
			return r.checkRows(ctx, res.Root, r.w.n+len(all), all)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sortEdits sorts edits by key.
func sortEdits(eds []prolly.Edit) {
	slices.SortFunc(eds, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
}

// digests times DigestRange over 10k rows and over half the table, and
// checks both against row hashes computed here (off the clock).
func (r *sizeRun) digests(ctx context.Context) error {
	for _, c := range []struct {
		id   string
		rows func() int
	}{
		{"digest/10k", func() int { return r.o.Batch }},
		{"digest/half", func() int { return r.w.n / 2 }},
	} {
		k := c.rows()
		err := r.repeat(ctx, c.id, k, func(ctx context.Context, rep int, tm *timer) error {
			ps := r.w.samplePositions(k, r.w.rng(c.id, rep), true)
			lo, hi := r.w.key(ps[0], 0), r.w.key(ps[0]+uint64(k), 0)
			var want prolly.Digest
			untimed(ctx, func(context.Context) {
				key, val := make([]byte, KeySize), make([]byte, ValueSize)
				for p := ps[0]; p < ps[0]+uint64(k); p++ {
					r.w.putKey(key, p, 0)
					r.w.putValue(val, p, 0, 0)
					want = want.Add(prolly.Digest{Count: 1, Sum: r.e.RowHash(key, val)})
				}
			})
			r.clearCaches()
			tm.start()
			got, err := r.e.DigestRange(ctx, r.base, lo, hi)
			tm.stop()
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("digest of rows %d…%d: %+v, want %+v", ps[0], ps[0]+uint64(k)-1, got, want)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
