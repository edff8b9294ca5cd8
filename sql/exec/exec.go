// Package exec runs an optimized logical plan (packages sql/plan and
// sql/opt) batch at a time.
//
// Shape (learnt from DuckDB's and CockroachDB's vectorized engines, not
// copied): every operator produces Batches — up to BatchSize rows held
// as one vector per output column (types.Value, nil is NULL) — and
// pushes them to its consumer. Expressions are compiled once per
// operator against the operator's input layout (ColumnID → vector) and
// evaluated a vector at a time over a selection of rows, so a CASE
// branch, the right side of an AND, or a division guarded by a WHERE
// conjunct runs only on the rows PostgreSQL would run it on (its errors
// show only where PostgreSQL's would). Pipeline breakers (hash join
// build sides, aggregation, sort, set operations, CTEs) hold rows in
// memory accounted against a working-memory limit: past it the
// statement fails with 53200 naming the operator, never unbounded.
//
// Every operator checks the statement's context once per batch, so a
// cancel or statement_timeout stops the statement within one batch.
//
// Semantics are PostgreSQL's, from package types (comparison, hashing,
// arithmetic with its overflow and division errors, casts, output). A
// construct the executor cannot answer identically is refused with
// 0A000 naming it, at build time where possible.
package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// BatchSize is the number of rows of a full batch.
const BatchSize = 1024

// DefaultWorkMem is the default working-memory limit of one statement's
// hash tables, sorts and materialized results (bytes).
const DefaultWorkMem = 256 << 20

// Batch is up to BatchSize rows as column vectors in the producing
// operator's column order.
type Batch struct {
	N    int
	Vecs [][]types.Value
	// Small, when a vector's entry is set, holds that vector's values as
	// scaled integers for the rows its OK says (their Vecs slot may be
	// nil: not boxed). Only a partial aggregation's worker gets such a
	// batch (typedvec.go); every other batch has none.
	Small []*SmallVec
}

// Row is row i of b (a new slice).
func (b *Batch) Row(i int) []types.Value {
	r := make([]types.Value, len(b.Vecs))
	for c, v := range b.Vecs {
		r[c] = v[i]
	}
	return r
}

// Source reads the followed tables at the statement's version.
type Source interface {
	// Scan calls fn for each row of t: every column's stored text
	// (PostgreSQL's output form; nil for NULL), in table column order.
	// The slice is reused between calls.
	Scan(ctx context.Context, t *plan.TableDef, fn func(row []*string) error) error
}

// Options configure one execution.
type Options struct {
	// WorkMem bounds the bytes held by the statement's hash tables,
	// sorts and materialized intermediate results (0: DefaultWorkMem).
	WorkMem int64
	// Params are $1… values (types.Value of the query's parameter types).
	Params []types.Value
	// TempDir, when set, is where a sort past the working memory writes
	// its runs (extsort.go); unset, it fails with 53200 instead.
	TempDir string
	// TempFileLimit caps the bytes a statement's temporary files hold
	// (0: no cap); past it the statement fails with 53400.
	TempFileLimit int64
	// Clock is the session's statement clock and random source (now(),
	// statement_timestamp(), clock_timestamp(), random(); clock.go);
	// nil: those calls refuse with 0A000.
	Clock *builtin.Context
	// TextOrder, when set, orders text, varchar and char(n) values
	// (sorts, comparisons, min/max, greatest/least; collate.go); nil:
	// byte order.
	TextOrder TextOrder
	// Dialect is the followed server's major (dialect.go): before 16 the
	// input of integers and numeric takes no 0x/0o/0b prefix or
	// underscores. Zero: the newest.
	Dialect types.Dialect
	// Planned, when set, is called once the plan is built and its
	// constant expressions folded without error, before any row is read:
	// where PostgreSQL's planning ends and its executor runs (COPY sends
	// CopyOutResponse there, so an error at the first row follows it).
	Planned func()
}

// env is the state of one execution.
type env struct {
	ctx    context.Context
	src    Source
	md     *plan.Metadata
	params []types.Value
	limit  int64
	used   int64
	// acct is memory.query's account of the statement, when the caller
	// gave one (membudget.WithAccount on ctx): grow charges it too.
	acct *membudget.Account
	// tempDir and tempLimit are Options.TempDir and TempFileLimit.
	tempDir   string
	tempLimit int64
	// tempUsed is the bytes the statement's temporary files hold now
	// (sorts' runs, hash partitions; spillpart.go).
	tempUsed int64
	// textOrder is Options.TextOrder (collate.go).
	textOrder TextOrder
	// dialect is Options.Dialect (dialect.go).
	dialect types.Dialect
	ctes    map[*plan.CTE]*rowSet
	// cteOuter are the outer columns a CTE of a correlated subquery
	// reads (its rows are computed again when their values change;
	// ctecorr.go), cteKey the values its rows were computed for.
	cteOuter map[*plan.CTE][]plan.ColumnID
	cteKey   map[*plan.CTE][]types.Value
	subVals  map[*plan.Subquery]*subResult
	// outer holds the values of the outer columns a running correlated
	// subquery reads; outerOK the columns that may be read so while
	// building one.
	outer   map[plan.ColumnID]types.Value
	outerOK map[plan.ColumnID]bool
	// foldErr is the error of a constant expression, which PostgreSQL
	// raises while planning: the statement fails with it before a row.
	foldErr error
	// clock is what library calls read besides their arguments
	// (Options.Clock; never nil).
	clock *builtin.Context
	// winNeed and winStacked are windowNeeds of the statement's plan
	// (winneed.go).
	winNeed    map[*plan.Window]plan.ColSet
	winStacked map[*plan.Window]bool
	// joinNeed is joinNeeds of the statement's plan (joinneed.go).
	joinNeed map[*plan.Join]plan.ColSet
	// held is the memory of what is kept until the statement ends (the
	// hash tables of joinkeep.go), given back when Run returns.
	held []*memAcct
	// shown are the sorts ordering the result (sortties.go).
	shown map[*plan.Sort]bool
	// hashBuilds counts the hash join tables built (tests read it).
	hashBuilds int
	// tableScans counts the scans built per table (scan_share.go).
	tableScans map[string]int
	// spillRuns counts the runs DISTINCT aggregates, windows and
	// external sorts wrote (distinctspill.go, winspill.go, extsort.go;
	// tests read it).
	spillRuns int
}

func newEnv(ctx context.Context, src Source, md *plan.Metadata, limit int64, params []types.Value) *env {
	return &env{ctx: ctx, src: src, md: md, params: params, limit: limit, acct: membudget.AccountFrom(ctx),
		ctes: map[*plan.CTE]*rowSet{}, subVals: map[*plan.Subquery]*subResult{},
		cteOuter: map[*plan.CTE][]plan.ColumnID{}, cteKey: map[*plan.CTE][]types.Value{},
		outer: map[plan.ColumnID]types.Value{}, clock: &builtin.Context{Regex: builtin.NewRegexCache()}}
}

// check reports a cancelled or timed-out statement.
func (e *env) check() error { return e.ctx.Err() }

// grow accounts n more bytes held by operator op.
func (e *env) grow(op string, n int64) error {
	e.used += n
	if err := e.acct.Grow(n); err != nil {
		return &types.Error{Code: "53200", Message: "out of memory: " + op + " needs more working memory than memory.query leaves",
			Detail: err.Error()}
	}
	if e.used > e.limit {
		return &types.Error{Code: "53200", Message: fmt.Sprintf("out of memory: %s needs more than the statement's working memory (%d kB)", op, e.limit>>10),
			Detail: "the limit is sidecar's sql work_mem setting"}
	}
	return nil
}

// release gives back n bytes.
func (e *env) release(n int64) {
	e.used -= n
	e.acct.Shrink(n)
}

// unsupported is 0A000 naming construct.
func unsupported(construct string) error {
	return &types.Error{Code: types.CodeUnsupported, Message: "not supported yet: " + construct}
}

// Prepared is a statement ready to run: the operator tree built (every
// refusal of the executor already reported).
type Prepared struct {
	q    *plan.Query
	root Rel
}

// Rel is an operator built over a plan.Rel.
type Rel = plan.Rel

// Prepare checks that every operator and expression of q can be run
// exactly (0A000 naming the first that cannot).
func Prepare(q *plan.Query) (*Prepared, error) {
	dry := newEnv(context.Background(), nil, q.MD, DefaultWorkMem, nil)
	dry.winNeed, dry.winStacked = windowNeeds(q.Plan)
	dry.joinNeed = joinNeeds(q.Plan)
	if _, err := dry.build(q.Plan); err != nil {
		return nil, err
	}
	return &Prepared{q: q, root: q.Plan}, nil
}

// Run executes the statement, calling emit for each result batch (the
// query's output columns in order). The batch is reused after emit
// returns.
func (p *Prepared) Run(ctx context.Context, src Source, opts Options, emit func(*Batch) error) error {
	_, err := p.run(ctx, src, opts, emit)
	return err
}

// run is Run, returning the statement's state for tests' counters.
func (p *Prepared) run(ctx context.Context, src Source, opts Options, emit func(*Batch) error) (*env, error) {
	lim := opts.WorkMem
	if lim <= 0 {
		lim = DefaultWorkMem
	}
	e := newEnv(ctx, src, p.q.MD, lim, opts.Params)
	e.tempDir, e.tempLimit = opts.TempDir, opts.TempFileLimit
	e.textOrder = opts.TextOrder
	e.dialect = opts.Dialect
	if opts.Clock != nil {
		c := *opts.Clock
		c.Ctx = ctx // pg_sleep waits on the statement
		if c.Regex == nil {
			c.Regex = builtin.NewRegexCache()
		}
		e.clock = &c
	}
	e.winNeed, e.winStacked = windowNeeds(p.root)
	e.joinNeed = joinNeeds(p.root)
	e.shown = shownSorts(p.root)
	op, err := e.build(p.root)
	if err != nil {
		return e, err
	}
	if e.foldErr != nil {
		return e, e.foldErr
	}
	defer func() {
		for _, m := range e.held {
			m.done()
		}
	}()
	if opts.Planned != nil {
		opts.Planned()
	}
	return e, op.run(func(b *Batch) error {
		if err := e.check(); err != nil {
			return err
		}
		return emit(b)
	})
}

// operator is a built operator: run pushes its batches to emit.
type operator interface {
	cols() []plan.ColumnID
	run(emit func(*Batch) error) error
}

// stopSignal ends an input early (LIMIT reached, EXISTS found a row);
// each user makes its own so nested ones do not catch each other's.
type stopSignal struct{}

func (*stopSignal) Error() string { return "stop" }

// isStop says whether err is s.
func isStop(err error, s *stopSignal) bool {
	var x *stopSignal
	return errors.As(err, &x) && x == s
}

// build makes the operator for rel.
func (e *env) build(rel plan.Rel) (operator, error) {
	switch x := rel.(type) {
	case *plan.Scan:
		return e.buildScan(x)
	case *plan.Filter:
		in, err := e.build(x.Input)
		if err != nil {
			return nil, err
		}
		if x.Gate {
			return e.newGate(in, x.Pred) // basic.go
		}
		return e.newFilter(in, x.Pred)
	case *plan.Project:
		in, err := e.build(x.Input)
		if err != nil {
			return nil, err
		}
		return e.newProject(in, x.Cols, x.Exprs)
	case *plan.Join:
		return e.buildJoin(x)
	case *plan.Aggregate:
		return e.buildAgg(x)
	case *plan.Sort:
		in, err := e.build(x.Input)
		if err != nil {
			return nil, err
		}
		s := &sortOp{e: e, in: in, keys: x.Keys, shown: e.shown[x]}
		s.groupCols, _ = groupSetCols(x.Input) // groupsetties.go
		return s, nil
	case *plan.Limit:
		return e.buildLimit(x)
	case *plan.Distinct:
		in, err := e.build(x.Input)
		if err != nil {
			return nil, err
		}
		d := &distinctOp{e: e, in: in, on: x.On}
		if s, ok := in.(*sortOp); ok && len(x.On) > 0 {
			d.sorted = s // its tie flags: which rows are candidates (distincton.go)
			s.trackTieFlags()
		}
		return d, nil
	case *plan.SetOp:
		return e.buildSetOp(x)
	case *plan.Values:
		return e.buildValues(x)
	case *plan.With:
		for _, c := range x.CTEs {
			c := c
			e.ctes[c] = nil // computed on first reference
			if ids := e.cteOuterReads(c.Plan); len(ids) > 0 {
				e.cteOuter[c] = ids // ctecorr.go
			}
		}
		return e.build(x.Body)
	case *plan.CTERef:
		return &cteRefOp{e: e, ref: x}, nil
	case *plan.FuncScan:
		return e.buildFuncScan(x)
	case *plan.Window:
		return e.buildWindow(x) // window.go
	case *plan.RecursiveUnion:
		return e.buildRecursive(x) // recursive.go
	case *plan.LateralJoin:
		return e.buildLateral(x) // lateral.go
	case *plan.RowsFrom:
		return e.buildRowsFrom(x) // rowsfrom.go
	}
	return nil, unsupported(fmt.Sprintf("the operator %T", rel))
}
