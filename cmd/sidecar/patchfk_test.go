package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestRevertPatchReadsForeignKeys reverts a bad delete of parent rows and
// their children through the CLI: the patch, ordered by the foreign keys
// the CLI reads from PostgreSQL, applies and restores the rows while
// keeping the later write. With PostgreSQL unreachable the CLI warns, and
// the patch it writes (child table first) fails on the same database:
// the foreign keys are what orders it.
func TestRevertPatchReadsForeignKeys(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`CREATE TABLE b_customers (id int8 PRIMARY KEY, email text NOT NULL UNIQUE)`)
	exec(`CREATE TABLE a_orders (id int8 PRIMARY KEY, customer_id int8 NOT NULL REFERENCES b_customers (id), note text)`)

	f := historytest.New(t)
	S := historytest.S
	cust := historytest.Rel(1, "public", "b_customers", 1, [2]string{"id", "int8"}, [2]string{"email", "text"})
	ord := historytest.Rel(2, "public", "a_orders", 1, [2]string{"id", "int8"}, [2]string{"customer_id", "int8"}, [2]string{"note", "text"})
	f.CreateTable(cust, nil)
	f.CreateTable(ord, nil)
	good := f.Commit(func(tx *historytest.Tx) {
		for i := 1; i <= 3; i++ {
			tx.Upsert(cust, []*string{S(fmt.Sprint(i)), S(fmt.Sprintf("c%d@example.com", i))})
			tx.Upsert(ord, []*string{S(fmt.Sprint(9 + i)), S(fmt.Sprint(i)), S("first")})
		}
	}).EndLSN.String()
	bad := f.Commit(func(tx *historytest.Tx) { // DELETE … with its children
		tx.Delete(ord, "10")
		tx.Delete(ord, "11")
		tx.Delete(cust, "1")
		tx.Delete(cust, "2")
	}).EndLSN.String()
	f.Commit(func(tx *historytest.Tx) { // a later write
		tx.Upsert(cust, []*string{S("4"), S("c4@example.com")})
		tx.Upsert(ord, []*string{S("13"), S("4"), S("later")})
	})
	f.Close()
	// PostgreSQL holds HEAD.
	exec(`INSERT INTO b_customers VALUES (3, 'c3@example.com'), (4, 'c4@example.com')`)
	exec(`INSERT INTO a_orders VALUES (12, 3, 'first'), (13, 4, 'later')`)

	config := func(pgURL string) string {
		file := filepath.Join(t.TempDir(), "sidecar.yaml")
		body := fmt.Sprintf("postgres:\n  url: %s\ntables: [public.b_customers, public.a_orders]\ndata_dir: %s\nlisten: 127.0.0.1:1\nlog:\n  level: warn\n", pgURL, f.Dir)
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	apply := func(patch string) error {
		_, err := conn.PgConn().Exec(ctx, patch).ReadAll()
		if err != nil {
			conn.Exec(ctx, "ROLLBACK")
		}
		return err
	}
	rows := func() string {
		var s string
		err := conn.QueryRow(ctx, `SELECT string_agg(format('%s/%s/%s', o.id, c.email, o.note), ' ' ORDER BY o.id)
			FROM a_orders o JOIN b_customers c ON c.id = o.customer_id`).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	out, errOut, code := sidecar(t, "revert", good, bad, "--config", config("postgres://u@127.0.0.1:1/db"))
	if code != 0 || !strings.Contains(errOut, "foreign keys not read from PostgreSQL") {
		t.Fatalf("revert without PostgreSQL: exit %d, stderr:\n%s", code, errOut)
	}
	if err := apply(out); err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("the patch ordered without foreign keys applied (%v): the test does not exercise the order\n%s", err, out)
	}

	out, errOut, code = sidecar(t, "revert", good, bad, "--config", config(url))
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Fatalf("revert: exit %d, stderr:\n%s", code, errOut)
	}
	if err := apply(out); err != nil {
		t.Fatalf("apply the revert patch: %v\n%s", err, out)
	}
	want := "10/c1@example.com/first 11/c2@example.com/first 12/c3@example.com/first 13/c4@example.com/later"
	if got := rows(); got != want {
		t.Fatalf("after the revert: %s\nwant %s\npatch:\n%s", got, want, out)
	}
}
