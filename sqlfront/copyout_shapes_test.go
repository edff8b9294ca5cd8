package sqlfront_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestCopyOutShapes (issue 23): COPY … TO STDOUT over the table shapes
// beside a plain table, compared with PostgreSQL (14–18 alike, checked
// on each): a table with a stored generated column (COPY table leaves it
// out; naming it is 42P10 — sidecar refused it with 0A000 on 18, where
// PostgreSQL 18 answers 42P10 as before), an inheritance parent (COPY
// parent TO copies the parent's own rows, as FROM ONLY; the query form
// reads the children), a child, and a parent whose child is not
// followed. A statement marked refusable may answer 0A000 instead
// (never other bytes).
func TestCopyOutShapes(t *testing.T) {
	r := newRig(t, []string{"public.gen", "public.par", "public.kid", "public.animal"}, []string{
		"CREATE TABLE gen (id int PRIMARY KEY, a int, g int GENERATED ALWAYS AS (a * 2) STORED, b text)",
		"INSERT INTO gen (id, a, b) VALUES (1, 2, 'x'), (2, NULL, 'y\tz'), (3, -4, NULL)",
		"CREATE TABLE par (id int PRIMARY KEY, n text)",
		"CREATE TABLE kid (x int) INHERITS (par)",
		"ALTER TABLE kid ADD PRIMARY KEY (id)",
		"INSERT INTO par VALUES (1, 'p1'), (3, 'p3')",
		"INSERT INTO kid VALUES (2, 'k2', 5), (4, NULL, NULL)",
		"CREATE TABLE animal (id int PRIMARY KEY, n text)",
		"CREATE TABLE dog () INHERITS (animal)",
		"INSERT INTO animal VALUES (1, 'cat')",
		"INSERT INTO dog VALUES (2, 'rex')",
	})
	sc, pc := copyConnBoth(t, r)
	for _, c := range []struct {
		q         string
		refusable bool
	}{
		{`COPY gen TO STDOUT`, false},
		{`COPY gen TO STDOUT (FORMAT csv, HEADER)`, false},
		{`COPY gen (b, id) TO STDOUT (FORMAT csv)`, false},
		{`COPY gen (id, g) TO STDOUT`, false},
		{`COPY gen (g) TO STDOUT (FORMAT csv, HEADER)`, false},
		{`COPY gen TO STDOUT (FORMAT binary)`, false},
		{`COPY (SELECT id, b FROM gen ORDER BY id) TO STDOUT`, false},
		{`COPY (SELECT * FROM gen ORDER BY id) TO STDOUT`, true}, // g is not carried
		{`COPY par TO STDOUT`, false},
		{`COPY par (n, id) TO STDOUT (FORMAT csv, HEADER)`, false},
		{`COPY par TO STDOUT (FORMAT binary)`, false},
		{`COPY (SELECT * FROM par ORDER BY id) TO STDOUT`, false},
		{`COPY (SELECT * FROM ONLY par ORDER BY id) TO STDOUT`, false},
		{`COPY kid TO STDOUT`, false},
		{`COPY kid (x) TO STDOUT`, false},
		{`COPY animal TO STDOUT`, false},
		{`COPY (SELECT * FROM animal ORDER BY id) TO STDOUT`, true}, // dog is not followed
		{`COPY ONLY par TO STDOUT`, false},
	} {
		got, want := copyTo(t, sc, c.q), copyTo(t, pc, c.q)
		if c.refusable && strings.HasPrefix(got.err, "0A000 ") {
			continue
		}
		if got.err != want.err || !bytes.Equal(got.data, want.data) || got.tag != want.tag {
			t.Errorf("%s:\nsidecar:  %q %s %s\npostgres: %q %s %s", c.q, got.data, got.tag, got.err, want.data, want.tag, want.err)
		}
	}
}

// TestCopyOutErrorBeforeFirstRow (issue 23): a COPY whose query fails at
// its first row answers the messages PostgreSQL answers — CopyOutResponse
// and, with HEADER, the header line, then the ErrorResponse — over the
// simple and the extended protocol; an error raised while planning
// (a missing column, a constant 1/0) comes alone, as there. Before,
// sidecar sent the ErrorResponse alone in every case.
func TestCopyOutErrorBeforeFirstRow(t *testing.T) {
	r := copyRig(t)
	sc, pc := copyConnBoth(t, r)
	for _, q := range []string{
		`COPY (SELECT id, 10 / (id - 1) FROM cp ORDER BY id) TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT id, 10 / (id - 1) AS "q;x" FROM cp ORDER BY id) TO STDOUT (FORMAT csv, HEADER, DELIMITER ';')`,
		`COPY (SELECT id, 10 / (id - 1) FROM cp ORDER BY id) TO STDOUT`,
		`COPY (SELECT id, 10 / (id - 1) FROM cp ORDER BY id) TO STDOUT (HEADER)`,
		`COPY (SELECT id, 10 / (id - 1) FROM cp ORDER BY id) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT id, 10 / (id - 3) FROM cp ORDER BY id) TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT id, 10 / (id - 3) FROM cp ORDER BY id) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT id, t::int FROM cp WHERE id = 1) TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT id FROM cp WHERE id > 100) TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT 1 / 0) TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT nosuch FROM cp) TO STDOUT (FORMAT csv, HEADER)`,
	} {
		if got, want := simpleCopy(t, sc.PgConn(), q), simpleCopy(t, pc.PgConn(), q); got != want {
			t.Errorf("%s (simple protocol):\nsidecar:  %s\npostgres: %s", q, got, want)
		}
		if got, want := extendedCopy(t, sc.PgConn(), q), extendedCopy(t, pc.PgConn(), q); got != want {
			t.Errorf("%s (extended protocol):\nsidecar:  %s\npostgres: %s", q, got, want)
		}
	}
}

// simpleCopy runs q as a simple Query and returns the messages answered
// in order, each CopyData's bytes quoted.
func simpleCopy(t *testing.T, c *pgconn.PgConn, q string) string {
	t.Helper()
	fe := c.Frontend()
	fe.Send(&pgproto3.Query{String: q})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.CopyData:
			fmt.Fprintf(&b, "CopyData %q ", m.Data)
		case *pgproto3.CopyOutResponse:
			fmt.Fprintf(&b, "CopyOutResponse%d%v ", m.OverallFormat, m.ColumnFormatCodes)
		case *pgproto3.CommandComplete:
			fmt.Fprintf(&b, "%s ", m.CommandTag)
		case *pgproto3.ErrorResponse:
			fmt.Fprintf(&b, "Error %s %s ", m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			return b.String()
		default:
			fmt.Fprintf(&b, "%T ", m)
		}
	}
}
