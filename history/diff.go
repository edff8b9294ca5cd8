package history

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/wal"
)

// Event types of a diff or merge stream.
const (
	EventTable    = "table"    // a table's section starts: its columns, the refs compared
	EventRow      = "row"      // a row added, removed or changed
	EventStat     = "stat"     // per-table counts (--stat)
	EventConflict = "conflict" // a row both sides of a merge changed differently
)

// Row operations.
const (
	OpAdded   = "added"
	OpRemoved = "removed"
	OpChanged = "changed"
)

// Event is one line of a diff or merge stream; its JSON form (one object
// per line, "--format json") is a stable contract:
//
//	{"type":"table","table":"public.t","from_ref":"0/16B3748","to_ref":"0/16B9000",
//	 "columns":[{"name":"id","type":"int8","key":true},{"name":"v","type":"text"}],
//	 "schema_change":{"added":["w"],"dropped":[]}}              (only when the columns differ; "retyped":[…] too
//	                                                             when a column's type or type modifier changed)
//	{"type":"row","table":"public.t","op":"added","key":{"id":"3"},"to":{"id":"3","v":"x"}}
//	{"type":"row","table":"public.t","op":"removed","key":{"id":"1"},"from":{"id":"1","v":null}}
//	{"type":"row","table":"public.t","op":"changed","key":{"id":"2"},"from":{…},"to":{…},"changed":["v"]}
//	{"type":"stat","table":"public.t","rows_added":1,"rows_removed":1,"rows_changed":1}
//	{"type":"conflict","table":"public.t","kind":"modify/modify","key":{"id":"2"},"base":{…},"ours":{…},"theirs":{…}}
//
// A row is an object keyed by column name, in column order, whose values
// are PostgreSQL's text output (strings) or null; an absent row (the
// "from" of an added one, a deleted side of a conflict) is omitted.
type Event struct {
	Type  string `json:"type"`
	Table string `json:"table"`

	FromRef      string        `json:"from_ref,omitempty"`
	ToRef        string        `json:"to_ref,omitempty"`
	Columns      []Column      `json:"columns,omitempty"`
	SchemaChange *SchemaChange `json:"schema_change,omitempty"`

	Op      string   `json:"op,omitempty"`
	Kind    string   `json:"kind,omitempty"`
	Key     *Row     `json:"key,omitempty"`
	From    *Row     `json:"from,omitempty"`
	To      *Row     `json:"to,omitempty"`
	Changed []string `json:"changed,omitempty"`

	Base   *Row `json:"base,omitempty"`
	Ours   *Row `json:"ours,omitempty"`
	Theirs *Row `json:"theirs,omitempty"`

	RowsAdded   *int64 `json:"rows_added,omitempty"`
	RowsRemoved *int64 `json:"rows_removed,omitempty"`
	RowsChanged *int64 `json:"rows_changed,omitempty"`
}

// SchemaChange lists how the columns of a table differ between the two
// versions of a diff: Added are in the newer ("to") version only, Dropped
// in the older ("from") only, Retyped in both with another type or type
// modifier (e.g. numeric(12,2) to numeric(12,3); omitted when none).
// Rows are compared by column name (see Service.Diff), so a diff across a
// schema change lists only rows whose values changed; a retyped column's
// values are compared as PostgreSQL prints them under each type.
type SchemaChange struct {
	Added   []string `json:"added"`
	Dropped []string `json:"dropped"`
	Retyped []string `json:"retyped,omitempty"`
}

// schemaChange compares two versions' columns by name; nil when they
// have the same names, types and type modifiers.
func schemaChange(from, to *wal.Relation) *SchemaChange {
	find := func(r *wal.Relation, n string) (wal.Column, bool) {
		for _, c := range r.Columns {
			if c.Name == n {
				return c, true
			}
		}
		return wal.Column{}, false
	}
	sc := &SchemaChange{Added: []string{}, Dropped: []string{}}
	for _, c := range to.Columns {
		fc, ok := find(from, c.Name)
		switch {
		case !ok:
			sc.Added = append(sc.Added, c.Name)
		case fc.TypeOID != c.TypeOID || fc.TypeName != c.TypeName || fc.TypeMod != c.TypeMod:
			sc.Retyped = append(sc.Retyped, c.Name)
		}
	}
	for _, c := range from.Columns {
		if _, ok := find(to, c.Name); !ok {
			sc.Dropped = append(sc.Dropped, c.Name)
		}
	}
	if len(sc.Added)+len(sc.Dropped)+len(sc.Retyped) == 0 {
		return nil
	}
	return sc
}

// sameLayout reports whether rows of a and b have the same columns in the
// same order (types may differ: values are compared as text).
func sameLayout(a, b *wal.Relation) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i, c := range a.Columns {
		if c.Name != b.Columns[i].Name {
			return false
		}
	}
	return true
}

// DiffRequest asks for the differences between two refs.
type DiffRequest struct {
	From, To string
	Tables   []string // default: every table
	Where    string   // key-range condition on the first primary-key column
	Limit    int      // at most this many row events in all (<= 0: all)
	Stat     bool     // counts per table instead of rows
}

// DiffSummary counts what a diff found.
type DiffSummary struct {
	Rows      int64 // row differences (counted even under Stat)
	Truncated bool  // Limit stopped the diff
}

type diffPlan struct {
	table    string
	from, to *tree
	kr       KeyRange
}

// Diff streams the differences between req.From and req.To: per table a
// table event, then its row events in key order (or one stat event).
// Every argument is checked (refs, tables, --where on each table) before
// the first event, so a bad request produces no output.
//
// # Schema changes
//
// Each version's rows are decoded with that version's own columns (the
// Relation its copy or resync was made with), and a row present in both
// is compared by column name:
//
//   - a column both versions have is changed when its values differ;
//   - a column only the newer version has (added) is changed when its
//     value is not NULL: the older version reads as NULL there, which is
//     what ALTER TABLE … ADD COLUMN without a default gives every row;
//   - a column only the older version has (dropped) never makes a row
//     changed; the table event's schema_change lists it.
//
// A row whose values are equal under this rule is not reported, although
// its stored bytes differ (it has one value more or fewer), and --stat
// and --limit count only reported rows. With ADD COLUMN … DEFAULT, every
// row whose new column holds the default is therefore changed. The
// table event carries the newer version's columns and, when the two
// versions' columns differ, schema_change {added, dropped[, retyped]}.
//
// A side where the table did not exist reads as empty and has no schema
// of its own: no schema_change, and the columns are the other side's.
//
// Across a schema change every stored row differs, so the Prolly diff
// cannot skip equal subtrees: such a diff reads both versions whole,
// O(table), comparing each row pair by name in place (nameMatch), under
// --stat too. TestSchemaDiffBench, 1M rows, 100 rows updated: 1-7 ms with
// the same columns, 0.31-0.41 s across ADD COLUMN.
func (s *Service) Diff(ctx context.Context, req DiffRequest, fn func(*Event) error) (DiffSummary, error) {
	defer s.mirror.Reading()()
	var sum DiffSummary
	if req.Stat && req.Limit > 0 {
		return sum, fmt.Errorf("%w: --stat counts every difference; it cannot be combined with --limit", ErrBadRequest)
	}
	from, err := s.refs.Resolve(ctx, req.From)
	if err != nil {
		return sum, err
	}
	to, err := s.refs.Resolve(ctx, req.To)
	if err != nil {
		return sum, err
	}
	tables, err := s.tables(req.Tables)
	if err != nil {
		return sum, err
	}
	preds, err := parseWhere(req.Where)
	if err != nil {
		return sum, err
	}
	var plans []diffPlan
	for _, t := range tables {
		ft, err := s.treeAt(ctx, from, t)
		if err != nil {
			return sum, err
		}
		tt, err := s.treeAt(ctx, to, t)
		if err != nil {
			return sum, err
		}
		keyCol := ""
		if ks := tt.rel.KeyColumns(); len(ks) > 0 {
			keyCol = tt.rel.Columns[ks[0]].Name
		}
		kr, err := keyRange(t, keyCol, tt.codec, preds)
		if err != nil {
			return sum, err
		}
		plans = append(plans, diffPlan{table: t, from: ft, to: tt, kr: kr})
	}
	for _, p := range plans {
		if req.Limit > 0 && sum.Rows >= int64(req.Limit) {
			sum.Truncated = true
			break
		}
		if err := s.diffTable(ctx, from, to, p, req, &sum, fn); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func refName(p refs.Point) string {
	if p.Branch != nil {
		return p.Branch.Name
	}
	return p.LSN().String()
}

func (s *Service) diffTable(ctx context.Context, from, to refs.Point, p diffPlan, req DiffRequest, sum *DiffSummary, fn func(*Event) error) error {
	// A side where the table did not exist has no columns of its own (it
	// reads as empty, under the table's current ones): the columns are
	// the other side's, and there is no schema change to report.
	cols := p.to.rel
	if !p.to.exists && p.from.exists {
		cols = p.from.rel
	}
	ev := &Event{Type: EventTable, Table: p.table, FromRef: refName(from), ToRef: refName(to), Columns: columnsOf(cols)}
	if p.from.exists && p.to.exists {
		ev.SchemaChange = schemaChange(p.from.rel, p.to.rel)
	}
	if err := fn(ev); err != nil {
		return err
	}
	// With the same columns in the same order, stored rows differ exactly
	// when a value differs; otherwise a changed pair must be compared by
	// name, and may turn out equal.
	var match *nameMatch
	if !sameLayout(p.from.rel, p.to.rel) {
		match = newNameMatch(p.from.rel, p.to.rel)
	}
	var added, removed, changed int64
	err := s.diffTrees(ctx, p.from, p.to, p.kr, func(d prolly.DiffEntry) (bool, error) {
		if match != nil && d.Kind == prolly.Changed {
			eq, err := match.equal(d.From, d.To)
			if err != nil {
				return false, err
			}
			if eq {
				return true, nil // equal by column name: not a difference
			}
		}
		var e *Event
		if !req.Stat {
			var err error
			if e, err = rowEvent(p.table, p.from, p.to, d); err != nil {
				return false, err
			}
		}
		switch d.Kind {
		case prolly.Added:
			added++
		case prolly.Removed:
			removed++
		default:
			changed++
		}
		sum.Rows++
		if req.Stat {
			return true, nil
		}
		if err := fn(e); err != nil {
			return false, err
		}
		if req.Limit > 0 && sum.Rows >= int64(req.Limit) {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if req.Stat {
		return fn(&Event{Type: EventStat, Table: p.table, RowsAdded: &added, RowsRemoved: &removed, RowsChanged: &changed})
	}
	return nil
}

// diffTrees runs the Prolly diff of two trees (each possibly read through
// its own replay overlay) over a key range; fn returns false to stop.
func (s *Service) diffTrees(ctx context.Context, from, to *tree, kr KeyRange, fn func(prolly.DiffEntry) (bool, error)) error {
	if kr.empty() || from.root == to.root {
		return nil
	}
	eng := from.eng
	if from.eng != to.eng {
		var err error
		if eng, err = s.joinEngines(from, to); err != nil {
			return err
		}
	}
	it, err := eng.Diff(ctx, from.root, to.root, prolly.DiffOptions{Start: kr.Start, End: kr.End})
	if err != nil {
		return fmt.Errorf("diff %s: %w", from.table, err)
	}
	for it.Next() {
		more, err := fn(it.Entry())
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("diff %s: %w", from.table, err)
	}
	return nil
}

// rowEvent turns one Prolly difference into a row event, decoding each
// side with its own version's columns and comparing them by name.
func rowEvent(table string, from, to *tree, d prolly.DiffEntry) (*Event, error) {
	e := &Event{Type: EventRow, Table: table}
	var err error
	if d.Kind != prolly.Added {
		if e.From, err = decodeRow(from.rel, d.From); err != nil {
			return nil, err
		}
		e.Key = keyOf(from.rel, e.From)
	}
	if d.Kind != prolly.Removed {
		if e.To, err = decodeRow(to.rel, d.To); err != nil {
			return nil, err
		}
		e.Key = keyOf(to.rel, e.To)
	}
	switch d.Kind {
	case prolly.Added:
		e.Op = OpAdded
	case prolly.Removed:
		e.Op = OpRemoved
	default:
		e.Op = OpChanged
		e.Changed = changedColumns(e.From, e.To)
	}
	return e, nil
}
