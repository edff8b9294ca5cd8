package exec_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sql/exec"
)

// sortOverJoin are ORDER BYs above hash joins whose build sides pass
// 200kB (or a share of memory.query 1 MiB), so that the join writes
// partition files and joins them a pair at a time, emitting into the
// sort, which must write runs of its own.
var sortOverJoin = []spillCase{
	{sql: "SELECT a.id, a.x, b.t FROM sp a JOIN sp b ON a.x = b.id ORDER BY b.t, a.id", ordered: true, runs: true},
	{sql: "SELECT a.id, b.g, b.n FROM sp a LEFT JOIN sp b ON a.x = b.id ORDER BY b.n DESC NULLS LAST, a.id", ordered: true, runs: true},
	{sql: "SELECT a.t, b.id FROM sp a JOIN sp b ON a.t = b.t AND a.id < b.id ORDER BY a.t DESC, b.id", ordered: true, runs: true},
	// the null-aware anti join of NOT IN (joinnull.go) spilling below the sort
	{sql: "SELECT id, x FROM sp WHERE x NOT IN (SELECT id + 3 FROM sp WHERE id % 2 = 0) ORDER BY x NULLS FIRST, id", ordered: true, runs: true},
	// a sort over a sort over the join (a window's, then the result's)
	{sql: "SELECT a.id, b.id, row_number() OVER (ORDER BY b.t, a.id) FROM sp a JOIN sp b ON a.x = b.id ORDER BY a.id DESC", ordered: true, runs: true},
}

// TestSortOverJoinSpill: sortOverJoin at 200kB of working memory answers
// as PostgreSQL in PostgreSQL's order, the sort writing runs.
func TestSortOverJoinSpill(t *testing.T) {
	checkSpilled(t, sortOverJoin)
}

// TestSortOverJoinSpillQueryMemory: sortOverJoin under a memory.query
// account of 1 MiB (the daemon's per-statement pool) answers as
// PostgreSQL, the pool never past its limit and nothing held after. On 2f71b81
// these failed with 53200: the external sort took whatever memory.query
// the join's table and partition buffers left, so the join found no room
// for its next partition's reserve (or the sort none for one row); the
// sort now holds at most its own share, as the join and windows do
// (extsort.go, spillpart.go's spillShare).
func TestSortOverJoinSpillQueryMemory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, cat, src := spillSetup(ctx, t)
	defer conn.Close(context.Background())
	tmp := t.TempDir()
	const limit = 1 << 20
	for _, c := range sortOverJoin {
		want := pgAnswer(ctx, conn, c.sql)
		pool := membudget.NewPool("memory.query", limit)
		acct := membudget.NewAccount(pool)
		got, runs := runSQLCtx(membudget.WithAccount(ctx, acct), cat, src, c.sql, exec.Options{WorkMem: 64 << 20, TempDir: tmp})
		held := acct.Held()
		acct.Close()
		if got != want {
			t.Errorf("%s: answer at memory.query 1 MiB differs:\n%.600s\npostgres:\n%.600s", c.sql, got, want)
		}
		if runs == 0 {
			t.Errorf("%s: no run written at memory.query 1 MiB", c.sql)
		}
		if held != 0 || pool.Peak() > limit {
			t.Errorf("%s: pool: %d bytes held after, peak %d", c.sql, held, pool.Peak())
		}
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d entries left in the temporary directory", c.sql, len(es))
		}
	}
}
