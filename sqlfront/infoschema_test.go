package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Issue 21 (wrong answers): information_schema.columns had no
// column_default (42703 where PostgreSQL answers: ORMs read it), and a
// catalog function's refusal said "is not supported" twice.
func TestInformationSchemaColumnDefault(t *testing.T) {
	r := catalogRig(t)
	compareWithPostgres(t, r.pgURL, r.sqlURL, []string{
		"SELECT table_name, column_name, column_default, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'items' AND column_default IS NOT NULL ORDER BY 1",
	}, nil, "column_default")
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// Under another search path the expressions may print otherwise: refused.
	_, err = c.Exec(ctx, "SET search_path = pg_catalog; SELECT column_default FROM information_schema.columns WHERE table_name = 'items'").ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("column_default under search_path pg_catalog: %v, want 0A000", err)
	}
	_, err = c.Exec(ctx, "RESET search_path; SELECT has_table_privilege('accounts', 'SELECT')").ReadAll()
	if !errors.As(err, &pe) || pe.Code != "0A000" || strings.Count(pe.Message, "is not supported") != 1 {
		t.Errorf("has_table_privilege: %v, want 0A000 saying it once", err)
	}
}

// Issue 23: information_schema's views describe their columns as
// PostgreSQL's RowDescription does — a domain by its base type and
// typmod (sql_identifier name, character_data varchar, yes_or_no
// varchar(3), cardinal_number int4). Before, columns.is_nullable,
// data_type, column_default and tables.table_type were text and the
// constraint views' yes_or_no columns varchar without typmod (the text
// equal, binary and type-reading clients not). pg_typeof of their
// columns (the domain's name in PostgreSQL) is refused. The table OID
// and attribute number PostgreSQL gives (the view's) are not compared:
// sidecar gives 0 (not read).
func TestInformationSchemaRowDescription(t *testing.T) {
	r := catalogRig(t)
	ctx := context.Background()
	var conns [2]*pgconn.PgConn
	for i, u := range []string{r.pgURL, r.sqlURL} {
		c, err := pgconn.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns[i] = c
	}
	constraintViews := pg.ServerVersion() < 180000 // refused on 18 (catalog_infoschema.go)
	// The databases' names differ (the rig serves the mirror as "app").
	var dbs [2]string
	for i, c := range conns {
		res := c.ExecParams(ctx, "SELECT current_database()", nil, nil, nil, nil).Read()
		if res.Err != nil || len(res.Rows) != 1 {
			t.Fatalf("current_database(): %v", res.Err)
		}
		dbs[i] = string(res.Rows[0][0])
	}
	for _, q := range []string{
		"SELECT table_catalog, table_schema, table_name, column_name, ordinal_position, column_default, data_type, is_nullable, udt_name " +
			"FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 3, 5",
		"SELECT table_catalog, table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 3",
		"SELECT * FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_type = 'PRIMARY KEY' ORDER BY 3",
		"SELECT * FROM information_schema.key_column_usage WHERE table_schema = 'public' ORDER BY 3, 7",
		"SELECT * FROM information_schema.constraint_column_usage WHERE table_schema = 'public' ORDER BY 3, 4, 7",
	} {
		constraint := !strings.Contains(q, "information_schema.columns") && !strings.Contains(q, "information_schema.tables")
		for _, format := range []int16{0, 1} {
			var desc [2]string
			var rows [2][]string
			for i, c := range conns {
				rr := c.ExecParams(ctx, q, nil, nil, nil, []int16{format})
				for _, f := range rr.FieldDescriptions() {
					desc[i] += fmt.Sprintf("%s:%d/%d/%d ", f.Name, f.DataTypeOID, f.DataTypeSize, f.TypeModifier)
				}
				res := rr.Read()
				if err := res.Err; err != nil {
					var pe *pgconn.PgError
					if i == 1 && constraint && !constraintViews && errors.As(err, &pe) && pe.Code == "0A000" {
						desc[1], rows[1] = desc[0], rows[0]
						break
					}
					t.Fatalf("%s: %s: %v", []string{"PostgreSQL", "sidecar"}[i], q, err)
				}
				for _, row := range rowsText(res) {
					rows[i] = append(rows[i], strings.ReplaceAll(row, `"`+dbs[i]+`"`, `"<db>"`))
				}
			}
			if desc[0] != desc[1] {
				t.Errorf("%s (format %d): RowDescription\n got %s\nwant %s", q, format, desc[1], desc[0])
			}
			if !slices.Equal(rows[0], rows[1]) {
				t.Errorf("%s (format %d): rows\n got %q\nwant %q", q, format, rows[1], rows[0])
			}
		}
	}
	if !constraintViews {
		return
	}
	_, err := conns[1].Exec(ctx, "SELECT pg_typeof(constraint_type) FROM information_schema.table_constraints "+
		"WHERE table_schema = 'public' AND constraint_type = 'PRIMARY KEY'").ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, "pg_typeof") {
		t.Errorf("pg_typeof of information_schema's column: %v, want 0A000 (PostgreSQL: character_data)", err)
	}
}

// Issue 21 (wrong answers): information_schema.columns' data_type said
// USER-DEFINED for every type outside sidecar's own list — text[] (ARRAY
// in PostgreSQL), inet, bit varying, time with time zone… — which
// SQLAlchemy's and Metabase's column listings read. It is 'ARRAY' for an
// array, format_type of a pg_catalog type, USER-DEFINED for a type made
// after initdb (an enum and its array: ARRAY).
func TestInformationSchemaDataType(t *testing.T) {
	r := newRig(t, []string{"public.dt"}, []string{
		"CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
		"CREATE TABLE dt (id int PRIMARY KEY, a text[], b int4[], ip inet, net cidr, mac macaddr, v bit varying(8), bb bit(3), tz timetz, m money, p point, x xml, e mood, ea mood[], d posint, n numeric(5,2)[], ts tsvector, u uuid[], j jsonb)",
		"INSERT INTO dt (id) VALUES (1)",
	})
	catalogCompare(t, r, []string{
		"SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'dt' ORDER BY ordinal_position",
	}, nil)
}
