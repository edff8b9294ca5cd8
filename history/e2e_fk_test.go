package history

import (
	"maps"
	"strings"
	"testing"
)

// TestRevertForeignKeysEndToEnd follows a real PostgreSQL database whose
// tables are joined by a foreign key with ON DELETE CASCADE (the child
// table's name quoted and sorting first), runs a bad DELETE of parent
// rows that cascades to their children, then later writes (new rows,
// children moved to a new parent, updates elsewhere). The revert patch,
// ordered by the foreign keys read from the same database, applies and
// gives back every deleted row while keeping every later write; the same
// patch ordered without them fails.
func TestRevertForeignKeysEndToEnd(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE owners (id int8 PRIMARY KEY, email text NOT NULL UNIQUE)`,
		`CREATE TABLE "Accounts" (id int8 PRIMARY KEY, owner_id int8 NOT NULL REFERENCES owners ON DELETE CASCADE, balance numeric(12,2))`,
		`INSERT INTO owners SELECT i, 'o' || i || '@example.com' FROM generate_series(1, 50) i`,
		`INSERT INTO "Accounts" SELECT i, 1 + i % 50, i * 1.5 FROM generate_series(1, 200) i`)
	tables := []string{"public.owners", `public."Accounts"`}
	f := follow(t, url, conn, "fk_revert", tables...)
	exec(`UPDATE owners SET email = email WHERE id = 1`) // a streamed commit to revert from
	before := f.sync()
	was := map[string]pgTable{}
	for _, tb := range tables {
		was[tb] = readTable(t, conn, tb)
	}
	exec(`DELETE FROM owners WHERE id <= 10`) // the bad change, cascading
	after := f.sync()
	exec(`UPDATE "Accounts" SET balance = balance + 1 WHERE owner_id = 20`,
		`INSERT INTO owners VALUES (100, 'new@example.com')`,
		`UPDATE "Accounts" SET owner_id = 100 WHERE owner_id = 30`,
		`INSERT INTO "Accounts" VALUES (1000, 100, 5)`)
	f.sync()
	want := map[string]map[string]*Row{}
	for _, tb := range tables {
		now := readTable(t, conn, tb)
		want[tb] = maps.Clone(now.rows)
		for k, r := range was[tb].rows {
			if _, ok := now.rows[k]; !ok {
				want[tb][k] = r // deleted by the bad change, and only by it
			}
		}
	}
	if len(want["public.owners"]) != 51 || len(want[`public."Accounts"`]) != 201 {
		t.Fatalf("the scenario: want 51 owners and 201 accounts back, have %d and %d", len(want["public.owners"]), len(want[`public."Accounts"`]))
	}

	fks, err := ForeignKeys(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	svc := New(f.db, f.m)
	patch := func(fks []ForeignKey) string {
		var b strings.Builder
		w := NewSQLWriterOptions(&b, SQLOptions{ForeignKeys: fks})
		sum, err := svc.Revert(ctx, RevertRequest{From: before, To: after}, w.Write)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if sum.Conflicts != 0 {
			t.Fatalf("%d conflicts: the later writes touched no reverted row", sum.Conflicts)
		}
		return b.String()
	}
	apply := func(p string) error {
		_, err := conn.PgConn().Exec(ctx, p).ReadAll()
		if err != nil {
			conn.Exec(ctx, "ROLLBACK")
		}
		return err
	}
	if err := apply(patch(nil)); err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("the patch ordered without foreign keys: %v (want a foreign key violation: the test must exercise the order)", err)
	}
	p := patch(fks)
	if err := apply(p); err != nil {
		t.Fatalf("apply the revert patch: %v\n%s", err, p)
	}
	for _, tb := range tables {
		got := readTable(t, conn, tb)
		if !maps.EqualFunc(got.rows, want[tb], sameRow) {
			t.Errorf("%s after the revert: %d rows, want %d", tb, len(got.rows), len(want[tb]))
			for k, r := range want[tb] {
				if g := got.rows[k]; !sameRow(g, r) {
					t.Errorf("  key %s: got %s, want %s", k, rowText(g), rowText(r))
				}
			}
		}
	}
}
