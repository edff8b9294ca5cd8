package verify

import (
	"bytes"
	"context"
	"maps"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// connect opens a connection with the canonical session settings plus
// extra runtime parameters (e.g. replication=database).
func connect(t testing.TB, url string, extra map[string]string) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	rowenc.PinSession(cfg.RuntimeParams)
	maps.Copy(cfg.RuntimeParams, extra)
	conn, err := pgconn.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// mustExec runs SQL (possibly several statements) and fails the test on
// error.
func mustExec(t testing.TB, conn *pgconn.PgConn, sql string) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql).ReadAll(); err != nil {
		t.Fatalf("exec %q: %v", sql, err)
	}
}

func mustQuery(t testing.TB, conn *pgconn.PgConn, sql string) [][][]byte {
	t.Helper()
	rows, err := simpleQuery(t.Context(), conn, sql)
	if err != nil {
		t.Fatalf("query %q: %v", sql, err)
	}
	return rows
}

// copyRows runs COPY (query) TO STDOUT in text format and returns the rows
// decoded as the initial copy decodes them: nil for NULL (\N), else the
// value's bytes, exactly the output-function text.
func copyRows(t *testing.T, conn *pgconn.PgConn, query string) [][][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := conn.CopyTo(t.Context(), &buf, "COPY ("+query+") TO STDOUT"); err != nil {
		t.Fatalf("copy %q: %v", query, err)
	}
	if buf.Len() == 0 {
		return nil
	}
	// Tabs inside values are escaped, so the first line's tabs count the columns.
	first, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	rows, err := replication.DecodeCopyText(buf.Bytes(), bytes.Count(first, []byte("\t"))+1)
	if err != nil {
		t.Fatalf("copy %q: %v", query, err)
	}
	return rows
}
