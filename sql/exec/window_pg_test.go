package exec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pgq "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

var pgc *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pgc = c }))
}

// TestDifferential runs every statement of testdata/*.diff.sql on
// sql/exec and on a live PostgreSQL holding the same rows
// (testdata/tables.sql, testdata/data.txt) and compares: the same
// column types and rows (as multisets: row order is ORDER BY's job,
// tested in the .exec files), the same SQLSTATE when PostgreSQL fails.
// A refusal (0A000) is allowed and logged; any other difference fails.
func TestDifferential(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	files, _ := filepath.Glob("testdata/*.diff.sql")
	if only := os.Getenv("SIDECAR_EXEC_DIFF"); only != "" {
		files, _ = filepath.Glob("testdata/" + only + ".diff.sql") // one file while working on it
	}
	refused := 0
	for _, file := range files {
		for _, sql := range readStatements(t, file) {
			want := pgAnswer(ctx, conn, sql)
			got := runSQL(cat, src, sql, 0)
			mustRefuse := strings.Contains(sql, "/* refused")
			// A refusal because the majors differ ("/* refused: … major
			// …") is expected of a library that knows no major; this
			// one knows the cluster's (diffSetup), so it answers as
			// PostgreSQL does or refuses.
			majorDecides := mustRefuse && majorMarker.MatchString(sql)
			mustRefuse = mustRefuse && !majorDecides
			if (strings.HasPrefix(got, "error 0A000") || strings.Contains(got, "\nerror 0A000")) && !strings.HasPrefix(want, "error 0A000") {
				// A function the major does not have (regexp_count before
				// 15: PostgreSQL's 42883) is refused as any function
				// sidecar does not know: not a construct lost.
				// Nor is an input the followed major reads otherwise than
				// the library ("… as PostgreSQL 14 does": dialect.go).
				if !mustRefuse && !majorDecides && !strings.HasPrefix(want, "error 42883") && !dialectRefusal.MatchString(got) {
					refused++
				}
				t.Logf("refused: %s\n  %s", sql, got)
				continue
			}
			if mustRefuse {
				t.Errorf("%s: %s\nanswered where a refusal is expected:\n%s", file, sql, got)
				continue
			}
			if normalize(got) != normalize(want) {
				t.Errorf("%s: %s\nsidecar:\n%s\npostgres:\n%s", file, sql, got, want)
			}
		}
	}
	// The refusals expected: the four statements whose answer depends
	// on the order PostgreSQL's sort leaves tied rows in, and those
	// marked /* refused … */ (an answer PostgreSQL's planner choices
	// decide). More means a construct stopped being answered.
	if refused > 4 {
		t.Errorf("%d statements refused, want at most 4", refused)
	}
	t.Logf("%d refused", refused)
}

// dialectRefusal matches a refusal of what the followed major computes
// otherwise than the newest (types/interval14.go).
var dialectRefusal = regexp.MustCompile(`as PostgreSQL [0-9]+ does`)

// majorMarker matches a refusal marker saying the answer depends on
// the major ("/* refused: the scale depends on the major */").
var majorMarker = regexp.MustCompile(`/\* refused[^*]*\bmajors?\b`)

// readStatements is file's SQL statements, blanks trimmed.
func readStatements(t testing.TB, file string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := pgq.SplitWithParser(string(b), true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range stmts {
		stmts[i] = strings.TrimSpace(stmts[i])
	}
	return stmts
}

// diffSetup connects to a new database of the test cluster holding
// testdata/tables.sql's tables and data.txt's rows, and gives the same
// catalog and rows for sql/exec.
func diffSetup(ctx context.Context, t *testing.T) (*pgx.Conn, plan.Catalog, *memSource) {
	conn, err := pgx.Connect(ctx, pgc.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	ddl, err := os.ReadFile("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(ddl)); err != nil {
		t.Fatal(err)
	}
	src := loadData(t)
	for table, rows := range src.rows {
		for _, r := range rows {
			var vals []string
			for _, v := range r {
				if v == nil {
					vals = append(vals, "NULL")
				} else {
					vals = append(vals, "'"+strings.ReplaceAll(*v, "'", "''")+"'")
				}
			}
			if _, err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES ("+strings.Join(vals, ",")+")"); err != nil {
				t.Fatal(err)
			}
		}
	}
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	// The session's functions answer as this PostgreSQL session does
	// (sysfuncs.diff.sql: the binding, not the values, is under test).
	var user, db, version, schema string
	var recovery bool
	if err := conn.QueryRow(ctx, "SELECT current_user, current_database(), version(), current_schema(), pg_is_in_recovery()").Scan(&user, &db, &version, &schema, &recovery); err != nil {
		t.Fatal(err)
	}
	cat.Session = map[string]types.Value{"current_user": user, "session_user": user, "current_database": db, "version": version,
		"current_schema": schema, "pg_is_in_recovery": recovery}
	// The statements bind against the test cluster's major's library, as
	// the SQL front end's bind against the followed server's (regexp_count
	// is 15's; quote_ident's keywords, chr's errors differ by major).
	cat.Funcs = builtin.NewFor(types.Dialect{Version: pgc.ServerVersion()})
	return conn, cat, src
}

// pgAnswer is PostgreSQL's answer in runSQL's form.
func pgAnswer(ctx context.Context, conn *pgx.Conn, sql string) string {
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return pgErr(err)
	}
	defer rows.Close()
	var b strings.Builder
	for i, fd := range rows.FieldDescriptions() {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(fd.Name + " " + typeName(fd.DataTypeOID))
	}
	b.WriteString("\n")
	for rows.Next() {
		for i, v := range rows.RawValues() {
			if i > 0 {
				b.WriteString("|")
			}
			if v == nil {
				b.WriteString(`\N`)
			} else {
				b.Write(v)
			}
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		return pgErr(err)
	}
	return b.String()
}

func pgErr(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "error " + pe.Code + ": " + pe.Message
	}
	return "error: " + err.Error()
}

// typeName names the result types runSQL prints.
func typeName(oid uint32) string {
	names := map[uint32]string{16: "bool", 17: "bytea", 19: "name", 20: "int8", 21: "int2", 23: "int4", 25: "text", 700: "float4", 701: "float8",
		1042: "bpchar", 1043: "varchar", 1082: "date", 1700: "numeric", 1114: "timestamp", 1184: "timestamptz", 114: "json", 3802: "jsonb", 1083: "time", 1186: "interval", 2950: "uuid", 2206: "regtype", 2249: "record", 4072: "jsonpath", 869: "inet", 650: "cidr", 829: "macaddr", 774: "macaddr8", 790: "money", 1560: "bit", 1562: "varbit",
		3904: "int4range", 3926: "int8range", 3906: "numrange", 3912: "daterange", 3908: "tsrange", 3910: "tstzrange"}
	if n, ok := names[oid]; ok {
		return n
	}
	if e := types.ElemOf(oid); e != 0 {
		return typeName(e) + "[]" // arrays (arrays.diff.sql)
	}
	return "oid" + string(rune('0'+oid%10))
}

// normalize is an answer with its rows sorted and error messages cut to
// the SQLSTATE.
func normalize(s string) string {
	if i := strings.Index(s, "error "); i >= 0 && (i == 0 || s[i-1] == '\n') {
		return s[i : i+11]
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) > 1 {
		slices.Sort(lines[1:])
	}
	// runSQL prints typmod'd names (numeric(…), bpchar(4)); PostgreSQL's
	// field descriptions are compared by base name.
	head := strings.Split(lines[0], " | ")
	for i, h := range head {
		if j := strings.IndexByte(h, '('); j >= 0 {
			head[i] = h[:j]
			if k := strings.IndexByte(h[j:], ')'); k >= 0 {
				head[i] += h[j+k+1:] // varchar(1)[] is varchar[]
			}
		}
	}
	lines[0] = strings.Join(head, " | ")
	return strings.Join(lines, "\n")
}
