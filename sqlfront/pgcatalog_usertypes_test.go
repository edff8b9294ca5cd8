package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// userTypesSetup: domains and enums no followed column uses — one over
// another domain, one over an array, one needing quotes, an enum with a
// label added between two, an enum and a domain of the same name as
// public's in another schema — and a followed table with an inet column
// (a built-in type sidecar does not serve: never a domain or enum).
var userTypesSetup = []string{
	"CREATE DOMAIN posint AS int CHECK (VALUE > 0)", "CREATE DOMAIN smallpos AS posint DEFAULT 1 NOT NULL",
	"CREATE DOMAIN code AS varchar(10)", "CREATE DOMAIN ints AS int[]", `CREATE DOMAIN "Mixed Case" AS text`,
	"CREATE TYPE mood AS ENUM ('a', 'b')", "ALTER TYPE mood ADD VALUE 'a2' BEFORE 'b'",
	"CREATE SCHEMA other", "CREATE TYPE other.color AS ENUM ('red', 'green')", "CREATE DOMAIN other.posint AS int8",
	"CREATE TABLE t (id int PRIMARY KEY, v text, addr inet)", "INSERT INTO t VALUES (1, 'a', '10.0.0.1')",
}

// userTypesQueries are answered as PostgreSQL answers them: the domain
// and enum listings (SQLAlchemy's reflection queries among them), their
// array types, labels, schemas, format_type and pg_type_is_visible.
var userTypesQueries = []string{
	"SELECT typname FROM pg_type WHERE typtype = 'd' ORDER BY 1",
	"SELECT typname FROM pg_type WHERE typtype = 'e' ORDER BY 1",
	"SELECT typname, typtype FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 1, 2",
	// SQLAlchemy's _load_domains and _load_enums.
	`SELECT t.typname as "name", pg_catalog.format_type(t.typbasetype, t.typtypmod) as "attype", not t.typnotnull as "nullable", ` +
		`t.typdefault as "default", pg_catalog.pg_type_is_visible(t.oid) as "visible", n.nspname as "schema" ` +
		`FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'd' ORDER BY 6, 1`,
	`SELECT t.typname as "name", pg_catalog.pg_type_is_visible(t.oid) as "visible", n.nspname as "schema", e.enumlabel as "label" ` +
		`FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace ` +
		`LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid WHERE t.typtype = 'e' ORDER BY "schema", "name", e.oid`,
	`SELECT t.typname as "name", pg_catalog.pg_type_is_visible(t.oid) as "visible", n.nspname as "schema", e.enumlabel as "label" ` +
		`FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace ` +
		`LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid WHERE t.typtype = 'e' AND n.nspname = 'public' ORDER BY "schema", "name", e.oid`,
	// Every column clients read.
	"SELECT oid, typname, typnamespace, typowner, typlen, typbyval, typtype, typcategory, typispreferred, typisdefined, typdelim, typrelid, " +
		"typelem, typarray, typnotnull, typbasetype, typtypmod, typndims, typcollation, typdefault " +
		"FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 2, 3",
	"SELECT a.oid, a.typname, a.typnamespace, a.typlen, a.typtype, a.typcategory, a.typelem, a.typarray, a.typbasetype " +
		"FROM pg_type t JOIN pg_type a ON a.oid = t.typarray WHERE t.typtype IN ('d', 'e') ORDER BY 2, 3",
	"SELECT e.oid, e.enumtypid, e.enumsortorder, e.enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typtype = 'e' ORDER BY 1",
	"SELECT enumlabel, enumsortorder FROM pg_enum ORDER BY enumtypid, enumsortorder",
	"SELECT typname, format_type(oid, NULL), format_type(oid, -1), format_type(typarray, NULL), pg_type_is_visible(oid), pg_type_is_visible(typarray) " +
		"FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 1, 2",
	"SET search_path = other, public; SELECT typname, format_type(oid, NULL), format_type(typarray, NULL), pg_type_is_visible(oid) " +
		"FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 1, 2",
	"SET search_path = public, other; SELECT typname, format_type(oid, NULL), pg_type_is_visible(oid) FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 1, 2",
	"SET search_path = information_schema; SELECT typname, format_type(oid, NULL), pg_type_is_visible(oid) FROM pg_type WHERE typtype IN ('d', 'e') ORDER BY 1, 2",
	"SELECT oid, nspname, nspowner FROM pg_namespace WHERE nspname IN ('other', 'public') ORDER BY 2",
	"SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'e' ORDER BY 1, 2",
	"SELECT typname FROM pg_type WHERE typname IN ('posint', 'mood', '_mood', 'nosuch') ORDER BY 1",
}

// TestCatalogUserTypes: pg_type lists the database's domains and enums
// whether or not a followed column uses them, as PostgreSQL does
// (`WHERE typtype = 'd'` answered information_schema's 5 domains only,
// `'e'` no rows; with an inet column followed both were refused 0A000,
// so SQLAlchemy's reflection failed); pg_enum their labels; format_type
// and pg_type_is_visible answer for them under several search paths.
// Then types created and dropped while following: the catalog poll
// (replication.ReadFacts + Mirror.UpdateFacts, as daemon.pollFacts)
// picks them up.
func TestCatalogUserTypes(t *testing.T) {
	r := newRig(t, []string{"public.t"}, userTypesSetup)
	catalogCompare(t, r, userTypesQueries, []string{
		// Types of other kinds are not listed.
		"SELECT count(*) FROM pg_type WHERE typtype = 'c'",
		"SELECT count(*) FROM pg_type WHERE typtype IN ('d', 'r')",
	})
	// Every domain's base type is listed (pgcatalog_typedetail.go: a
	// domain over a type pg_type does not list keeps it refused).
	catalogCompare(t, r, []string{
		"SELECT b.typname, d.typname FROM pg_type d JOIN pg_type b ON b.oid = d.typbasetype WHERE d.typtype = 'd' AND d.typname = 'smallpos'",
	}, nil)
	execSQL(t, r.pgURL, "CREATE TYPE other.size AS ENUM ('s', 'm')", "DROP DOMAIN code", "ALTER TYPE mood ADD VALUE 'c'",
		"CREATE DOMAIN other.smallpos AS int", "CREATE TABLE other.mood2 (id int)", "CREATE DOMAIN mood2 AS int")
	pollFacts(t, r)
	catalogCompare(t, r, userTypesQueries, nil)
	execSQL(t, r.pgURL, "DROP TYPE other.size", "DROP DOMAIN other.posint")
	pollFacts(t, r)
	catalogCompare(t, r, userTypesQueries, nil)
}

// pollFacts reads the followed tables' catalog facts again and records
// them, as the daemon's catalog poll does.
func pollFacts(t *testing.T, r *rig) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rels []*wal.Relation
	for _, ti := range r.mirror.Tables() {
		if ti.Relation != nil {
			rels = append(rels, ti.Relation)
		}
	}
	got, err := replication.ReadFacts(ctx, conn, rels)
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, rel := range got {
		c, err := r.mirror.UpdateFacts(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		changed = changed || c
	}
	if !changed {
		t.Fatal("the poll recorded no change")
	}
}

// userTypesReflect: SQLAlchemy's MetaData.reflect() and the inspector's
// domain and enum reads.
const userTypesReflect = `
import sys, warnings, sqlalchemy
warnings.simplefilter("ignore")
def call(name, fn):
    try:
        out = fn()
    except Exception as e:
        code = getattr(getattr(e, "orig", None), "pgcode", None)
        out = "ERR %s %s" % (code, str(e).splitlines()[0][:200])
    print("%s: %s" % (name, out))
eng = sqlalchemy.create_engine(sys.argv[1])
ins = sqlalchemy.inspect(eng)
call("get_enums", lambda: ins.get_enums(schema="*"))
call("get_enums_public", lambda: ins.get_enums())
call("load_domains", lambda: sorted((k, sorted(v.items())) for k, v in eng.dialect._load_domains(eng.connect()).items()))
def reflect():
    md = sqlalchemy.MetaData()
    md.reflect(bind=eng, only=[sys.argv[2]])
    return [(c.name, str(c.type)) for c in md.tables[sys.argv[2]].columns]
call("reflect", reflect)
`

// TestCatalogUserTypesSQLAlchemy: SQLAlchemy's enum and domain
// reflection answers as on PostgreSQL with unused domains and enums and
// a followed inet column (refused 0A000 before).
func TestCatalogUserTypesSQLAlchemy(t *testing.T) {
	needPython(t, "sqlalchemy", "python3-sqlalchemy")
	needPython(t, "psycopg2", "python3-psycopg2")
	r := newRig(t, []string{"public.t", "public.plain"}, append(userTypesSetup, "CREATE TABLE plain (id int PRIMARY KEY, v text)"))
	for _, table := range []string{"plain", "t"} {
		got := clientLines(runPython(t, userTypesReflect, "postgresql+psycopg2://"+strings.TrimPrefix(r.sqlURL, "postgres://"), table))
		want := clientLines(runPython(t, userTypesReflect, "postgresql+psycopg2://"+strings.TrimPrefix(r.pgURL, "postgres://"), table))
		same := []string{"get_enums", "get_enums_public", "load_domains"}
		if table == "plain" {
			same = append(same, "reflect")
		}
		compareCalls(t, table, got, want, same)
	}
}

// TestCatalogUserTypesPsql: psql's \dD and \dT print what PostgreSQL
// prints or are refused with 0A000.
func TestCatalogUserTypesPsql(t *testing.T) {
	r := newRig(t, []string{"public.t"}, userTypesSetup)
	psqlSameOrRefused(t, r, `\dD`, `\dD other.*`, `\dT`, `\dT other.*`, `\dT+`)
}

// psqlSameOrRefused checks that each psql command prints on the SQL port
// what it prints on PostgreSQL, or is refused there with 0A000 (logged).
func psqlSameOrRefused(t *testing.T, r *rig, cmds ...string) {
	t.Helper()
	psqlRig(r).orRefused().same(t, cmds...)
}
