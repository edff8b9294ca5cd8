// The copy's rows handed to consumers as the tree is built (issue 24 item
// 5: build tree and HEAD in one pass, no second decode): a consumer that
// implements CopyBuilder gets the merge's sorted rows while the builder
// turns them into the tree, instead of reading the recorded tree back
// after it.

package mirror

import (
	"context"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// CopyBuilder is implemented by a consumer that can build a table sent
// whole by its copy from the copy's own rows. BuildCopy is called when
// the copy's build starts, from the copy's goroutine (concurrently with
// Apply of other batches): what it builds must stay invisible until the
// table's BatchReset hands it back (TableBatch.Built). It may return nil
// to decline.
type CopyBuilder interface {
	BuildCopy(table string, rel *wal.Relation) CopyBuild
}

// CopyBuild receives one copy's rows. Add is called with every row of
// the table once, in key order, from one goroutine; key and val are
// valid only during the call. An error of the build is the consumer's to
// keep: it must not fail the copy, and a build that failed is declined at
// its reset (the consumer then reads the table whole: TableBatch.Whole).
// Discard is called when the build will never be handed over (the copy
// failed, or the consumer is caught up by a diff instead); it may come
// after the build was taken, and must then do nothing.
type CopyBuild interface {
	Add(key, val []byte)
	Discard()
}

// Built returns the build the consumer made of this table from the copy's
// rows (CopyBuilder), or nil. When it is not nil, Edits yields the
// changes from those rows to the table's rows after the batch (none
// today: a build is handed over only when the recorded tree is the one
// built from them); a consumer that cannot use the build reads the
// table whole with Whole instead.
func (t *TableBatch) Built() CopyBuild { return t.built }

// Whole calls fn with every row of the table after the batch, in key
// order (a reset read from the tree, whatever Built offers).
func (t *TableBatch) Whole(ctx context.Context, fn func(prolly.Edit) error) error {
	w := *t
	if w.eng != nil {
		w.from = w.eng.EmptyRoot()
	}
	return w.Edits(ctx, fn)
}

// copyBuilds are the consumers' builds of one copy, by subscription.
type copyBuilds map[*Subscription]CopyBuild

// startCopyBuilds asks the subscribed CopyBuilders for a build of rel:
// with intake, only those whose builds take rows in any order
// (CopyIntakeBuilder), fed by the ranges; otherwise every one not in
// skip (those the intake already builds for), fed by the merge.
func (m *Mirror) startCopyBuilds(name string, rel *wal.Relation, intake bool, skip copyBuilds) copyBuilds {
	var bs copyBuilds
	for _, s := range m.subs.snapshot() {
		cb, ok := s.c.(CopyBuilder)
		if !ok {
			continue
		}
		if _, done := skip[s]; done {
			continue
		}
		if ib, ok := cb.(CopyIntakeBuilder); intake && (!ok || !ib.BuildsInAnyOrder()) {
			continue
		}
		if b := cb.BuildCopy(name, rel); b != nil {
			if bs == nil {
				bs = copyBuilds{}
			}
			bs[s] = b
		}
	}
	return bs
}

// addBatch passes a batch of rows to every build, a build at a time.
func (bs copyBuilds) addBatch(batch []kv) {
	for _, b := range bs {
		for _, r := range batch {
			b.Add(r.key, r.val)
		}
	}
}

// discard drops every build not handed over.
func (bs copyBuilds) discard() {
	for s, b := range bs {
		b.Discard()
		delete(bs, s)
	}
}
