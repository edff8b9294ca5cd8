package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// leftBuildMargin: a LEFT join is turned around only when its left
// (preserved) side is estimated this many times smaller than its right
// side, as semiBuildMargin for semi joins.
const leftBuildMargin = 2

// leftBuildMinRows: and only when its right side is estimated above
// this many rows, a hash table of about 200 MB (joinRowBytes and two
// boxed keys a row), near sidecar.work_mem's default of 256 MB: past it
// the LEFT join's build spills, partitioning both sides to files. Below
// it the LEFT join stays: measured at TPC-H SF 0.2 (session 22, in
// process), Q13 turned cost more CPU, not less — the hash build of
// 300,000 orders is cheap (~8 ms a run), while the join's output, no
// longer in customer order, made the aggregation above it (GROUP BY
// c_custkey) look up a different group for nearly every row: 28 ms →
// 140 ms a run.
const leftBuildMinRows = 2_000_000

// leftBuild turns a LEFT join whose preserved (left) side is estimated
// well below its other side, and that other side past what a hash table
// holds in the working memory (leftBuildMinRows), into the RIGHT join of
// its sides swapped, so that the hash table holds the preserved side
// (the executor builds the right side of a join and emits the build
// rows nothing matched at the end, NULLs beside them): TPC-H Q13's
// customer LEFT JOIN orders holds all of orders and streams the
// customers through them, where PostgreSQL's Hash Right Join holds the
// customers; at SF 10 and above that hash table spills.
// The answer is the same pairs and the same NULL-padded rows. The join's
// columns come out in their old order (a projection above when
// positional: the statement's result or a set operation's input reads
// them by position). Only a join with an equality between a column of
// each side is turned (without one it is a nested loop either way), and
// only one reading no column of an enclosing query (selfContained).
func leftBuild(j *plan.Join, e *estimator, md *plan.Metadata, positional bool) plan.Rel {
	if j.Kind != plan.LeftJoin || !hasEquiKey(j) || volatile(j.On) ||
		e.rows(j.Left)*leftBuildMargin >= e.rows(j.Right) || e.rows(j.Right) < leftBuildMinRows || !selfContained(j) {
		return j
	}
	turned := &plan.Join{Kind: plan.RightJoin, Left: j.Right, Right: j.Left, On: j.On, Est: j.Est}
	if !positional {
		return turned
	}
	return inOrder(turned, j.Columns(), md)
}

// selfContained says whether every column an expression in rel reads
// (a subquery's outer references included) is one rel's operators
// produce: no column of an enclosing query. A LEFT join in a correlated
// subquery whose right side reads no outer column has that side built
// once for every outer row (sql/exec joinkeep.go); turned around it
// would be built again per outer row, so such a join is left as it is.
func selfContained(rel plan.Rel) bool {
	var produced, read plan.ColSet
	var visit func(r plan.Rel)
	visit = func(r plan.Rel) {
		for _, id := range r.Columns() {
			produced.Add(id)
		}
		for _, x := range plan.ExprsOf(r) {
			if x != nil {
				read.AddSet(plan.ColumnsOf(x))
			}
		}
		for _, in := range r.Inputs() {
			visit(in)
		}
	}
	visit(rel)
	return read.SubsetOf(produced)
}
