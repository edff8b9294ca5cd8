package plan

// Rel is a relational operator of the logical plan. Columns lists the
// columns it produces, in output order; Inputs its input operators.
//
// The operators are what a vectorized executor runs over typed column
// batches: each consumes batches of its inputs' columns (by ColumnID) and
// produces batches of its own, so an executor maps ColumnIDs to batch
// vectors once, at build time.
type Rel interface {
	Columns() []ColumnID
	Inputs() []Rel
}

// Scan reads a table at the statement's version (snapshot/). Cols are
// the table's columns it produces (ColumnIDs, Ords their indexes in the
// table); Filter, when set, is applied by the scan (pushed down: on the
// heap's column pages, zone maps skip pages); Key, when set, bounds the
// rows read to a primary-key range.
type Scan struct {
	Table  *TableDef
	Alias  string
	Cols   []ColumnID
	Ords   []int
	Filter Scalar
	Key    *KeyRange
	Est    float64 // the optimizer's estimate of the rows out (0: none); EXPLAIN shows it
	// Order, when set, is the key order the rows must come in (keyorder.go).
	Order KeyOrder
}

// KeyRange is a primary-key range of a Scan: Eq holds constants for the
// leading key columns (equalities), then an optional range on the next
// one. A range every key column is equal on is a point get.
type KeyRange struct {
	Eq     []Scalar
	Lo, Hi Scalar // on key column len(Eq); nil: unbounded
	LoIncl bool
	HiIncl bool
}

// Filter keeps the rows Pred is true for. A Gate's Pred reads no column
// of Input (sql/opt splitGates): it is evaluated once, before Input
// runs, as PostgreSQL's One-Time Filter is; unless it is true, Input
// does not run.
type Filter struct {
	Input Rel
	Pred  Scalar
	Gate  bool
}

// Project computes Exprs (one output column each; a ColRef keeps the
// input column's ID and passes it through).
type Project struct {
	Input Rel
	Cols  []ColumnID
	Exprs []Scalar
}

// JoinKind is the kind of a Join.
type JoinKind int

// Join kinds. Semi and anti joins produce only the left side's columns.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
	CrossJoin
)

var joinNames = [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti", "Cross"}

func (k JoinKind) String() string { return joinNames[k] }

// Join combines Left and Right on On (nil: true).
type Join struct {
	Kind        JoinKind
	Left, Right Rel
	On          Scalar
	Est         float64 // the optimizer's estimate of the rows out (0: none); EXPLAIN shows it
	// BuildLeft (semi and anti joins): the hash table holds the left
	// side and the right side streams through it (sql/opt semibuild.go
	// sets it where the left side is estimated the smaller).
	BuildLeft bool
}

// Aggregate groups its input by GroupBy (input columns; none: one group,
// even over no rows) and computes Aggs. Output: the group columns (same
// IDs), then one column per aggregate.
//
// Sets, when set, are GROUPING SETS: each a subset of GroupBy; a row
// of each group of each set, the group columns not in the set NULL
// (groupingsets.go). An AggExpr named "grouping" is GROUPING(): its
// Args are group columns.
type Aggregate struct {
	Input   Rel
	GroupBy []ColumnID
	Aggs    []AggExpr
	Sets    [][]ColumnID
}

// AggExpr is one aggregate call.
type AggExpr struct {
	Col      ColumnID // its output column
	Name     string   // count, sum, avg, min, max, …
	Args     []Scalar // none for count(*)
	Distinct bool
	Filter   Scalar // FILTER (WHERE …)
	T        Type
	// Order is array_agg's ORDER BY: one entry per key, the keys being
	// Args[1:] (so every walk over Args sees them).
	Order []AggOrder
}

// AggOrder is the direction of one ORDER BY key inside an aggregate.
type AggOrder struct{ Desc, NullsFirst bool }

// SortKey is one ORDER BY key over an input column.
type SortKey struct {
	Col        ColumnID
	Desc       bool
	NullsFirst bool
}

// Sort orders its input.
type Sort struct {
	Input Rel
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Count (nil: all).
type Limit struct {
	Input         Rel
	Count, Offset Scalar
	// Ties (FETCH … WITH TIES) are the ORDER BY keys of the Sort below:
	// rows equal to the last counted one on them are answered too.
	Ties []SortKey
}

// Distinct removes duplicate rows (On set: DISTINCT ON those columns,
// keeping the first row of each in the input's order).
type Distinct struct {
	Input Rel
	On    []ColumnID
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind int

// Set operation kinds.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

var setOpNames = [...]string{"Union", "Intersect", "Except"}

func (k SetOpKind) String() string { return setOpNames[k] }

// SetOp combines two inputs of the same width column by column (each
// side's LeftCols/RightCols, cast to the output types by a Project below
// when they differ). Cols are the output columns.
type SetOp struct {
	Kind                SetOpKind
	All                 bool
	Left, Right         Rel
	LeftCols, RightCols []ColumnID
	Cols                []ColumnID
}

// Values is a literal table: Rows of expressions, one per column.
type Values struct {
	Cols []ColumnID
	Rows [][]Scalar
}

// With binds common table expressions for Body. Each CTE is computed once
// (PostgreSQL's MATERIALIZED semantics are what an executor may pick when
// a CTE is referenced more than once).
type With struct {
	CTEs []*CTE
	Body Rel
}

// CTE is one WITH query.
type CTE struct {
	ID    int
	Name  string
	Plan  Rel
	Cols  []ColumnID // Plan's output columns
	Names []string   // their names (the WITH alias list applied)
	Refs  int        // references in the query
	// Hidden: the last columns `*` does not expand to (a working table's
	// SEARCH/CYCLE columns in its recursive term: searchcycle.go).
	Hidden int
	// Materialized: WITH … AS MATERIALIZED, which PostgreSQL never
	// inlines (sql/opt inline.go inlines the others it would).
	Materialized bool
}

// CTERef reads a CTE's rows as new columns Cols (one per CTE column).
type CTERef struct {
	CTE  *CTE
	Cols []ColumnID
}

// FuncScan is a set-returning function in FROM: generate_series(start,
// stop[, step]) over integers, one column.
type FuncScan struct {
	Name string
	Args []Scalar
	Cols []ColumnID
	// Ordinality: WITH ORDINALITY, a last column numbering the rows
	// (srf.go).
	Ordinality bool
}

// Columns implements Rel.
func (f *FuncScan) Columns() []ColumnID { return f.Cols }

// Inputs implements Rel.
func (*FuncScan) Inputs() []Rel { return nil }

// Columns implements Rel.
func (s *Scan) Columns() []ColumnID     { return s.Cols }
func (f *Filter) Columns() []ColumnID   { return f.Input.Columns() }
func (p *Project) Columns() []ColumnID  { return p.Cols }
func (s *Sort) Columns() []ColumnID     { return s.Input.Columns() }
func (l *Limit) Columns() []ColumnID    { return l.Input.Columns() }
func (d *Distinct) Columns() []ColumnID { return d.Input.Columns() }
func (s *SetOp) Columns() []ColumnID    { return s.Cols }
func (v *Values) Columns() []ColumnID   { return v.Cols }
func (w *With) Columns() []ColumnID     { return w.Body.Columns() }
func (c *CTERef) Columns() []ColumnID   { return c.Cols }
func (a *Aggregate) Columns() []ColumnID {
	out := append([]ColumnID(nil), a.GroupBy...)
	for _, g := range a.Aggs {
		out = append(out, g.Col)
	}
	return out
}
func (j *Join) Columns() []ColumnID {
	if j.Kind == SemiJoin || j.Kind == AntiJoin {
		return j.Left.Columns()
	}
	return append(append([]ColumnID(nil), j.Left.Columns()...), j.Right.Columns()...)
}

// Inputs implements Rel.
func (*Scan) Inputs() []Rel        { return nil }
func (f *Filter) Inputs() []Rel    { return []Rel{f.Input} }
func (p *Project) Inputs() []Rel   { return []Rel{p.Input} }
func (j *Join) Inputs() []Rel      { return []Rel{j.Left, j.Right} }
func (a *Aggregate) Inputs() []Rel { return []Rel{a.Input} }
func (s *Sort) Inputs() []Rel      { return []Rel{s.Input} }
func (l *Limit) Inputs() []Rel     { return []Rel{l.Input} }
func (d *Distinct) Inputs() []Rel  { return []Rel{d.Input} }
func (s *SetOp) Inputs() []Rel     { return []Rel{s.Left, s.Right} }
func (*Values) Inputs() []Rel      { return nil }
func (w *With) Inputs() []Rel {
	out := []Rel{}
	for _, c := range w.CTEs {
		out = append(out, c.Plan)
	}
	return append(out, w.Body)
}
func (*CTERef) Inputs() []Rel { return nil }

// Query is a bound statement: its plan, the metadata of its columns and
// the result columns as PostgreSQL names and types them.
type Query struct {
	Plan   Rel
	MD     *Metadata
	Names  []string // result column names, in order (Plan.Columns())
	Params []Type   // $1… types as inferred (Unknown: not inferred)
}
