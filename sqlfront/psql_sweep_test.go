package sqlfront_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
)

// psqlSweepSetup is a database with an object of most kinds psql's
// describe commands list: schemas with comments and grants, tables with
// keys, defaults, checks, comments and indexes, a view, a materialized
// view, a sequence, SQL and PL/pgSQL functions, a procedure, an
// aggregate, a trigger, a text search configuration, extended
// statistics and default privileges.
var psqlSweepSetup = []string{
	"DROP ROLE IF EXISTS sweep_reader", "CREATE ROLE sweep_reader",
	"CREATE SCHEMA shop", "COMMENT ON SCHEMA shop IS 'the shop'", "GRANT USAGE ON SCHEMA shop TO sweep_reader",
	"CREATE TABLE accounts (id int PRIMARY KEY, name text UNIQUE, balance numeric(12,2))",
	"CREATE TABLE shop.items (id serial CONSTRAINT items_key PRIMARY KEY, acct int REFERENCES accounts ON DELETE CASCADE, " +
		"name varchar(20) NOT NULL DEFAULT 'x', qty int DEFAULT 1 CHECK (qty > 0))",
	"CREATE INDEX items_name ON shop.items (lower(name)) WHERE qty > 1",
	"COMMENT ON TABLE shop.items IS 'the items'", "COMMENT ON COLUMN shop.items.qty IS 'how many'",
	"GRANT SELECT ON accounts TO sweep_reader",
	"INSERT INTO accounts VALUES (1, 'a', 1)", "INSERT INTO shop.items (acct, qty) VALUES (1, 3)",
	"CREATE VIEW item_names AS SELECT id, name FROM shop.items WHERE qty > 0", "COMMENT ON VIEW item_names IS 'names only'",
	"CREATE MATERIALIZED VIEW shop.totals AS SELECT acct, sum(qty) AS qty FROM shop.items GROUP BY acct",
	"CREATE FUNCTION add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b'",
	"COMMENT ON FUNCTION add(int, int) IS 'adds'",
	"CREATE FUNCTION shop.greet(who text) RETURNS text LANGUAGE plpgsql STABLE AS $$BEGIN RETURN 'hi ' || who; END$$",
	"CREATE PROCEDURE shop.noop() LANGUAGE sql AS 'SELECT 1'",
	"CREATE AGGREGATE shop.total(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0')",
	"CREATE FUNCTION shop.touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
	"CREATE TRIGGER items_touch BEFORE UPDATE ON shop.items FOR EACH ROW EXECUTE FUNCTION shop.touch()",
	"CREATE TEXT SEARCH CONFIGURATION shop.cfg (COPY = english)",
	"CREATE STATISTICS shop.items_stats ON acct, qty FROM shop.items",
	"ALTER DEFAULT PRIVILEGES IN SCHEMA shop GRANT SELECT ON TABLES TO sweep_reader",
}

// psqlSweepCommands are psql 15's describe and list commands, with
// their S and + variants and a pattern where one is meaningful.
var psqlSweepCommands = []string{
	`\d`, `\d+`, `\dS`, `\d accounts`, `\d+ accounts`, `\d shop.items`, `\d+ shop.items`, `\d item_names`, `\d+ item_names`,
	`\d shop.items_id_seq`, `\d shop.totals`, `\d shop.items_name`, `\d nosuch`,
	`\da`, `\daS`, `\da shop.*`,
	`\dA`, `\dA+`, `\dAc`, `\dAc+ btree int4`, `\dAf`, `\dAf btree`, `\dAo`, `\dAo btree integer_ops`, `\dAp`, `\dAp btree integer_ops`,
	`\db`, `\db+`,
	`\dc`, `\dc+`, `\dcS`,
	`\dC`, `\dC+`, `\dC int*`,
	`\dd`, `\ddS`, `\dd shop.*`,
	`\dD`, `\dD+`,
	`\ddp`, `\ddp shop`,
	`\dE`, `\dE+`, `\des`, `\des+`, `\det`, `\det+`, `\deu`, `\deu+`, `\dew`, `\dew+`,
	`\df`, `\df+`, `\dfS add*`, `\df shop.*`, `\df+ shop.*`, `\dfa`, `\dfn`, `\dfp`, `\dft`, `\dfw`, `\df add int`,
	`\dF`, `\dF+`, `\dF shop.*`, `\dF+ shop.cfg`, `\dFd`, `\dFd+`, `\dFp`, `\dFp+`, `\dFt`, `\dFt+`,
	`\dg`, `\dg+`, `\dgS`, `\dg sweep*`,
	`\di`, `\di+`, `\diS`, `\di shop.*`,
	`\dl`, `\dl+`,
	`\dL`, `\dL+`, `\dLS`,
	`\dm`, `\dm+`, `\dm shop.*`,
	`\dn`, `\dn+`, `\dnS`, `\dn shop`, `\dn+ shop`, `\dnS+`,
	`\do`, `\do+`, `\doS`, `\do shop.*`,
	`\dO`, `\dO+`, `\dOS`,
	`\dp`, `\dp shop.*`, `\z`, `\z accounts`,
	`\dP`, `\dP+`,
	`\drds`,
	`\dRp`, `\dRp+`, `\dRs`, `\dRs+`,
	`\ds`, `\ds+`, `\dsS`,
	`\dt`, `\dt+`, `\dtS`, `\dt shop.*`,
	`\dT`, `\dT+`, `\dTS`,
	`\du`, `\du+`, `\duS`, `\du sweep*`,
	`\dv`, `\dv+`, `\dvS`,
	`\dx`, `\dx+`, `\dx plpgsql`, `\dx+ plpgsql`,
	`\dX`, `\dX shop.*`,
	`\dy`, `\dy+`,
	`\l`, `\l+`, `\l postgres`,
	`\sf add`, `\sf+ add`, `\sf shop.greet(text)`, `\sf shop.noop`, `\sv item_names`, `\sv+ item_names`,
}

// sweepClass classifies one command's outcome on sidecar against
// PostgreSQL's: "identical", "refused 0A000" (also where PostgreSQL
// fails), "both fail <state>" (psql 15's query fails on the server too,
// with the same SQLSTATE), "DIFFERENT" (a wrong answer) or "other error
// <state>".
func sweepClass(got string, err error, want string, werr error) string {
	switch {
	case werr != nil:
		if err != nil && psqlState(got) == psqlState(want) {
			return "both fail " + psqlState(want)
		}
		if err == nil {
			return "DIFFERENT"
		}
		if psqlState(got) == "0A000" {
			return "refused 0A000 (PostgreSQL fails " + psqlState(want) + ")"
		}
		return "other error " + psqlState(got)
	case err == nil && got == want:
		return "identical"
	case err == nil:
		return "DIFFERENT"
	case psqlState(got) == "0A000":
		return "refused 0A000"
	default:
		return "other error " + psqlState(got)
	}
}

// TestPsqlSweep (issue 23) runs every psql describe command
// (psqlSweepCommands) against sidecar and PostgreSQL: each prints what
// PostgreSQL prints, is refused 0A000, or fails with PostgreSQL's
// SQLSTATE where PostgreSQL's own query fails. With
// SIDECAR_PSQL_SWEEP_OUT set, it appends its classification of each
// command, for the followed server's major, to that file.
func TestPsqlSweep(t *testing.T) {
	r := newRig(t, []string{"public.accounts", "shop.items"}, psqlSweepSetup)
	// The SQL port's database named as PostgreSQL's (\l lists it).
	u, err := url.Parse(r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	r.sqlURL = strings.Replace(r.sqlURL, "/app?", u.Path+"?", 1)
	version, err := psql(t, r.pgURL, "-At", "-c", "SHOW server_version")
	if err != nil {
		t.Fatalf("server_version: %v\n%s", err, version)
	}
	var rows strings.Builder
	for _, cmd := range psqlSweepCommands {
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", cmd)
		want, werr := psql(t, r.pgURL, "-v", "VERBOSITY=verbose", "-c", cmd)
		class := sweepClass(got, err, want, werr)
		note := ""
		switch {
		case strings.HasPrefix(class, "refused"):
			note = firstLine(got[strings.Index(got, "ERROR:"):])
			t.Logf("%s refused: %s", cmd, note)
		case class == "DIFFERENT" || strings.HasPrefix(class, "other error"):
			t.Errorf("%s: %s\n%s\nPostgreSQL:\n%s", cmd, class, strings.TrimSpace(got), want)
			note = firstLine(strings.TrimSpace(got))
		}
		fmt.Fprintf(&rows, "| %s | `%s` | %s | %s |\n", strings.TrimSpace(version), cmd, class, strings.ReplaceAll(note, "|", `\|`))
	}
	if out := os.Getenv("SIDECAR_PSQL_SWEEP_OUT"); out != "" {
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(rows.String()); err != nil {
			t.Fatal(err)
		}
	}
}
