package exec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/exec"
)

// TestCaseMappingC runs testdata/casemap.sql with the C locale's case
// mapping (builtin.CaseC, what sqlfront hands a statement whose
// collations are all C or POSIX) against PostgreSQL, whose test
// databases are C: non-ASCII text keeps its case, ILIKE folds ASCII
// letters only. Before, every statement over non-ASCII text was refused.
func TestCaseMappingC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	for _, sql := range readStatements(t, "testdata/casemap.sql") {
		want := pgAnswer(ctx, conn, sql)
		got := runSQLWith(cat, src, sql, exec.Options{Clock: &builtin.Context{Case: builtin.CaseC}})
		if normalize(got) != normalize(want) {
			t.Errorf("%s\nsidecar:\n%s\npostgres:\n%s", sql, got, want)
		}
		// Without a known mapping non-ASCII text is refused, never
		// mapped otherwise.
		if unknown := runSQLWith(cat, src, sql, exec.Options{}); normalize(unknown) != normalize(want) && !refusedAnswer(unknown) {
			t.Errorf("%s with the mapping not known:\n%s\npostgres:\n%s", sql, unknown, want)
		}
	}
}

// refusedAnswer says whether a runSQL answer is a 0A000 refusal.
func refusedAnswer(got string) bool {
	return strings.HasPrefix(got, "error 0A000") || strings.Contains(got, "\nerror 0A000")
}
