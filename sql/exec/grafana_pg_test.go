package exec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/types"
)

// TestGrafanaZones runs the Grafana-style time-series statements
// (testdata/grafana.diff.sql, which TestDifferential runs at UTC, and
// testdata/grafana_more.sql: what is refused today, and statements
// reading the statement clock) under several session time zones, on
// sql/exec and on PostgreSQL with the same TimeZone: the same columns
// and rows, or the same SQLSTATE; a refusal (0A000) is logged, and
// grafana.diff.sql must have none.
func TestGrafanaZones(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	files := map[string]bool{"testdata/grafana.diff.sql": false, "testdata/grafana_more.sql": true}
	for _, name := range []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC+3"} {
		z, err := types.ParseZone(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "SET TimeZone = '"+name+"'"); err != nil {
			t.Fatal(err)
		}
		refused := 0
		for file, mayRefuse := range files {
			for _, sql := range readStatements(t, file) {
				// Each statement is its own transaction on PostgreSQL:
				// now() is read just before it runs there.
				clock := &builtin.Context{Zone: z, TxnStart: time.Now(), StmtStart: time.Now(), Clock: time.Now}
				want := pgAnswer(ctx, conn, sql)
				got := runSQLWith(cat, src, sql, exec.Options{Clock: clock})
				if (strings.HasPrefix(got, "error 0A000") || strings.Contains(got, "\nerror 0A000")) && !strings.HasPrefix(want, "error 0A000") {
					refused++
					t.Logf("%s: refused: %s\n  %s", name, sql, got)
					if !mayRefuse {
						t.Errorf("%s: %s refused in zone %s", file, sql, name)
					}
					continue
				}
				if normalize(got) != normalize(want) {
					t.Errorf("%s in zone %s: %s\nsidecar:\n%s\npostgres:\n%s", file, name, sql, got, want)
				}
			}
		}
		t.Logf("zone %s: %d refused", name, refused)
	}
}
