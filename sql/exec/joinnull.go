package exec

// Null-aware anti join: `x NOT IN (SELECT y …)` as a filter's conjunct
// (sql/opt notin.go) is an anti join on `x = y OR x IS NULL OR y IS
// NULL`. Run as a nested loop that condition holds every row of the
// subquery in memory and compares each pair; here it runs as the hash
// anti join on x = y, with PostgreSQL's NULL rules kept by what the
// build saw of the whole right side (nullAware):
//
//   - no row at all: every left row is kept, x NULL or not (a plain
//     anti join's answer);
//   - a row whose y is NULL: no left row is kept (NOT IN is NULL or
//     false for every x); the build stops holding rows once it sees
//     one, and the left side is still read to its end with its keys
//     evaluated, as PostgreSQL evaluates x for every row;
//   - else a left row whose x is NULL is dropped, the others kept when
//     no y equals x.
//
// The right side is built as any hash join's, so past the working
// memory it goes to partition files (joinspill.go) and each pair of
// partitions is an ordinary anti join: the partitions hold no NULL
// key, and the left rows whose x is NULL are dropped before
// partitioning (a join that spilled has rows on its right).

// naState is what the build of a null-aware anti join saw of its whole
// right side (at depth 0; the partitions' builds leave it).
type naState struct {
	rows int64 // rows read, NULL keys included
	null bool  // a row's key was NULL
}

// noteNullAware records a batch of the right side's keys (ok[i] false:
// row i's key is NULL) at the top level of a null-aware build, and says
// whether the build should stop holding rows (a NULL was seen: no left
// row will be kept).
func (j *joinOp) noteNullAware(depth int, n int, ok []bool) bool {
	if !j.nullAware {
		return false
	}
	if depth == 0 {
		j.na.rows += int64(n)
		for i := 0; i < n; i++ {
			if !ok[i] {
				j.na.null = true
			}
		}
	}
	return j.na.null
}

// dropNullAware marks as matched (hit) the rows of a probe batch a
// null-aware anti join drops beside those a y equals: every row when
// the right side held a NULL, the rows whose x is NULL (ok false) when
// it held any row.
func (j *joinOp) dropNullAware(hit, ok []bool) {
	if !j.nullAware || j.na.rows == 0 {
		return
	}
	for i := range hit {
		if j.na.null || !ok[i] {
			hit[i] = true
		}
	}
}

// drainNullAware reads left to its end, evaluating its keys (their
// errors are PostgreSQL's too), and keeps no row: the right side of a
// null-aware anti join held a NULL.
func (j *joinOp) drainNullAware(left operator) error {
	return left.run(func(b *Batch) error {
		if err := j.e.check(); err != nil {
			return err
		}
		_, _, err := keysOf(b, allRows(b.N), j.lkeys, j.lconv)
		return err
	})
}
