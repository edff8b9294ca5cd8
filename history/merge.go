package history

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// MergeRequest asks for a three-way merge of Theirs into Ours.
type MergeRequest struct {
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
	// Base is the common ancestor; default: the older of the two commits
	// (for a branch, the commit it was made from), which is the common
	// ancestor on the mirror's linear history.
	Base string `json:"base,omitempty"`
	// Branch, when set, stores the result (every table) as a new branch.
	Branch string   `json:"branch,omitempty"`
	Tables []string `json:"tables,omitempty"` // default: every table
	// Patch streams, per table, the row events that turn Ours into the
	// result (the SQL patch of `merge --format sql` and of revert).
	Patch bool `json:"patch,omitempty"`
}

// MergeSummary is the outcome of a merge.
type MergeSummary struct {
	Ours      string       `json:"ours"`
	Theirs    string       `json:"theirs"`
	Base      string       `json:"base"`
	Branch    string       `json:"branch,omitempty"`
	Tables    []TableMerge `json:"tables"`
	Conflicts int          `json:"conflicts"`
	Changes   int64        `json:"changes"` // rows the result differs from ours in
}

// TableMerge counts one table's merge.
type TableMerge struct {
	Table     string `json:"table"`
	Applied   int    `json:"applied"`  // changes of theirs applied to ours
	Resolved  int    `json:"resolved"` // rows both changed, merged column by column
	Conflicts int    `json:"conflicts"`
	Root      string `json:"root"`
}

// Merge runs a three-way merge per table: changes only theirs made are
// applied to ours; rows both changed merge column by column when they
// changed different columns; otherwise the row is a conflict (ours' row
// is kept) reported as a conflict event with the base, ours and theirs
// rows. fn receives, per table, a table event, the conflicts and (with
// Patch) the row events from ours to the result.
func (s *Service) Merge(ctx context.Context, req MergeRequest, fn func(*Event) error) (MergeSummary, error) {
	defer s.mirror.Reading()()
	var sum MergeSummary
	if req.Branch != "" {
		if err := refs.ValidateName(req.Branch); err != nil {
			return sum, fmt.Errorf("branch %q: %w: %w", req.Branch, ErrBadRequest, err)
		}
		if _, err := s.refs.Resolve(ctx, req.Branch); err == nil {
			return sum, fmt.Errorf("branch %q: %w: the name is already a tag or branch", req.Branch, ErrBadRequest)
		}
	}
	ours, err := s.refs.Resolve(ctx, req.Ours)
	if err != nil {
		return sum, err
	}
	theirs, err := s.refs.Resolve(ctx, req.Theirs)
	if err != nil {
		return sum, err
	}
	var base refs.Point
	if req.Base != "" {
		if base, err = s.refs.Resolve(ctx, req.Base); err != nil {
			return sum, err
		}
	} else {
		at := min(ours.LSN(), theirs.LSN())
		if at == 0 {
			return sum, fmt.Errorf("%w: no common ancestor of %s and %s; pass --base", ErrBadRequest, req.Ours, req.Theirs)
		}
		if base, err = s.refs.Resolve(ctx, at.String()); err != nil {
			return sum, fmt.Errorf("common ancestor of %s and %s: %w", req.Ours, req.Theirs, err)
		}
	}
	tables, err := s.tables(req.Tables)
	if err != nil {
		return sum, err
	}
	sum.Ours, sum.Theirs, sum.Base, sum.Branch = refName(ours), refName(theirs), refName(base), req.Branch
	result := refs.Branch{Name: req.Branch, From: ours.LSN(), Created: s.now().UTC()}
	type mergedTree struct {
		table string
		root  prolly.Root
		eng   *prolly.Engine
	}
	// Every table's schemas first: a schema change in the third table must
	// refuse the merge before the first table's events are printed (a
	// patch cut short after BEGIN is worse than no patch).
	for _, t := range tables {
		if err := s.checkMergeSchemas(ctx, t, base, ours, theirs, sum); err != nil {
			return sum, err
		}
	}
	var results []mergedTree
	merged := map[string]bool{}
	for _, t := range tables {
		tm, root, eng, err := s.mergeTable(ctx, t, base, ours, theirs, req, &sum, fn)
		if err != nil {
			return sum, err
		}
		sum.Tables = append(sum.Tables, tm)
		sum.Conflicts += tm.Conflicts
		merged[t] = true
		results = append(results, mergedTree{t, root, eng})
	}
	if req.Branch == "" {
		return sum, nil
	}
	// Persisting skips nodes already stored: GC must not sweep one of
	// them before the branch naming it is written. Held only here, not
	// while events stream to a client (a slow reader would hold GC and,
	// behind it, tag creation). Until then the results' nodes are in
	// memory and their bases are protected by this read (Reading).
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	for _, r := range results {
		if err := s.persist(ctx, r.eng, r.root); err != nil {
			return sum, fmt.Errorf("store merge of %s: %w", r.table, err)
		}
		result.Roots = append(result.Roots, refs.TableRoot{Table: r.table, Root: r.root})
	}
	for _, info := range s.mirror.Tables() {
		if merged[info.Name] {
			continue
		}
		tr, err := s.treeAt(ctx, ours, info.Name)
		if err != nil {
			return sum, err
		}
		if !tr.exists {
			continue
		}
		if err := s.persist(ctx, tr.eng, tr.root); err != nil {
			return sum, err
		}
		result.Roots = append(result.Roots, refs.TableRoot{Table: info.Name, Root: tr.root})
	}
	if err := s.refs.Catalog.CreateBranch(ctx, result); err != nil {
		return sum, err
	}
	return sum, nil
}

// checkMergeSchemas refuses a merge of table whose base, ours and theirs
// versions have different columns (mergeSchemaError).
func (s *Service) checkMergeSchemas(ctx context.Context, table string, base, ours, theirs refs.Point, sum MergeSummary) error {
	var sides []mergeSide
	for _, p := range []struct {
		role, ref string
		at        refs.Point
	}{{"base", sum.Base, base}, {"ours", sum.Ours, ours}, {"theirs", sum.Theirs, theirs}} {
		tr, err := s.treeAt(ctx, p.at, table)
		if err != nil {
			return err
		}
		sides = append(sides, mergeSide{p.role, p.ref, tr})
	}
	return mergeSchemaError(table, sides...)
}

func (s *Service) mergeTable(ctx context.Context, table string, base, ours, theirs refs.Point, req MergeRequest,
	sum *MergeSummary, fn func(*Event) error) (TableMerge, prolly.Root, *prolly.Engine, error) {
	tm := TableMerge{Table: table}
	bt, err := s.treeAt(ctx, base, table)
	if err != nil {
		return tm, prolly.Root{}, nil, err
	}
	ot, err := s.treeAt(ctx, ours, table)
	if err != nil {
		return tm, prolly.Root{}, nil, err
	}
	tt, err := s.treeAt(ctx, theirs, table)
	if err != nil {
		return tm, prolly.Root{}, nil, err
	}
	// Rows of different schemas cannot be merged column-wise by position.
	if err := mergeSchemaError(table, mergeSide{"base", sum.Base, bt}, mergeSide{"ours", sum.Ours, ot}, mergeSide{"theirs", sum.Theirs, tt}); err != nil {
		return tm, prolly.Root{}, nil, err
	}
	// Always a joined engine: its writes stay in memory, so a merge that
	// is only printed (revert) leaves nothing in the node store; persist
	// writes what a kept branch needs.
	eng, err := s.joinEngines(bt, ot, tt)
	if err != nil {
		return tm, prolly.Root{}, nil, err
	}
	var res prolly.MergeResult
	if ot.codec == nil {
		// REPLICA IDENTITY FULL: a multiset of whole rows (multiset.go).
		res, err = mergeMultiset(ctx, eng, bt.root, ot.root, tt.root)
	} else {
		res, err = eng.Merge(ctx, bt.root, ot.root, tt.root, columnResolver(ot.rel))
	}
	if err != nil {
		return tm, prolly.Root{}, nil, fmt.Errorf("merge %s: %w", table, err)
	}
	tm.Applied, tm.Resolved, tm.Conflicts, tm.Root = res.Applied, res.Resolved, len(res.Conflicts), res.Root.Hash.String()
	if err := fn(&Event{Type: EventTable, Table: table, FromRef: sum.Ours, ToRef: "merge", Columns: columnsOf(ot.rel)}); err != nil {
		return tm, res.Root, eng, err
	}
	for _, c := range res.Conflicts {
		e := &Event{Type: EventConflict, Table: table, Kind: c.Kind.String()}
		for _, side := range []struct {
			v   prolly.KeyState
			dst **Row
		}{{c.Base, &e.Base}, {c.Ours, &e.Ours}, {c.Theirs, &e.Theirs}} {
			if !side.v.Exists {
				continue
			}
			if *side.dst, err = decodeRow(ot.rel, side.v.Value); err != nil {
				return tm, res.Root, eng, err
			}
			if e.Key == nil {
				e.Key = keyOf(ot.rel, *side.dst)
			}
		}
		if err := fn(e); err != nil {
			return tm, res.Root, eng, err
		}
	}
	if !req.Patch {
		return tm, res.Root, eng, nil
	}
	rt := &tree{table: table, root: res.Root, eng: eng, rel: ot.rel, codec: ot.codec, exists: true}
	otj := &tree{table: table, root: ot.root, eng: eng, rel: ot.rel, codec: ot.codec, exists: ot.exists}
	err = s.diffTrees(ctx, otj, rt, KeyRange{}, func(d prolly.DiffEntry) (bool, error) {
		e, err := rowEvent(table, otj, rt, d)
		if err != nil {
			return false, err
		}
		sum.Changes++
		return true, fn(e)
	})
	return tm, res.Root, eng, err
}

// columnResolver merges a row both sides changed, column by column: a
// column only one side changed takes that side's value; a column both
// changed to the same value takes it; a column both changed differently,
// a delete against a change, or rows of different widths (a schema
// change between versions) stay conflicts.
func columnResolver(rel *wal.Relation) prolly.Resolver {
	return func(c prolly.Conflict) (prolly.Resolution, error) {
		if !c.Base.Exists || !c.Ours.Exists || !c.Theirs.Exists {
			return prolly.Resolution{}, nil
		}
		b, err := rowenc.Decode(c.Base.Value)
		if err != nil {
			return prolly.Resolution{}, fmt.Errorf("decode base row of %s: %w", rel.QualifiedName(), err)
		}
		o, err := rowenc.Decode(c.Ours.Value)
		if err != nil {
			return prolly.Resolution{}, fmt.Errorf("decode our row of %s: %w", rel.QualifiedName(), err)
		}
		t, err := rowenc.Decode(c.Theirs.Value)
		if err != nil {
			return prolly.Resolution{}, fmt.Errorf("decode their row of %s: %w", rel.QualifiedName(), err)
		}
		if len(b) != len(o) || len(o) != len(t) {
			return prolly.Resolution{}, nil
		}
		out := make([][]byte, len(o))
		for i := range o {
			switch {
			case sameBytes(o[i], b[i]):
				out[i] = t[i]
			case sameBytes(t[i], b[i]), sameBytes(o[i], t[i]):
				out[i] = o[i]
			default:
				return prolly.Resolution{}, nil
			}
		}
		return prolly.Resolution{Resolved: true, Merged: prolly.KeyState{Value: rowenc.Encode(out), Exists: true}}, nil
	}
}

// sameBytes compares two column values (nil is NULL, distinct from "").
func sameBytes(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return string(a) == string(b)
}

// RevertRequest asks to undo what happened between From and To on top of
// Onto (default HEAD).
type RevertRequest struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Onto   string   `json:"onto,omitempty"` // default HEAD
	Tables []string `json:"tables,omitempty"`
}

// Revert is the three-way merge base = To, ours = Onto, theirs = From,
// streamed as the patch from Onto to the result: applied to PostgreSQL
// (which is at Onto) it restores what the changes between From and To
// removed or altered and keeps every later write; rows both the bad
// change and later writes touched are conflict events, left as Onto has
// them.
func (s *Service) Revert(ctx context.Context, req RevertRequest, fn func(*Event) error) (MergeSummary, error) {
	onto := req.Onto
	if onto == "" {
		onto = "HEAD"
	}
	return s.Merge(ctx, MergeRequest{Ours: onto, Theirs: req.From, Base: req.To, Tables: req.Tables, Patch: true}, fn)
}
