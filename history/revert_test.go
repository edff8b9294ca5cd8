package history

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestRevertUseCase is the story of issue #7: a bad DELETE and a bad
// UPDATE run, later writes touch other rows and some of the same rows;
// `revert good bad` yields a patch that, applied to PostgreSQL, restores
// the lost rows and values, keeps every later write, and reports the rows
// both touched (in the same columns) as conflicts. The same writes go to
// PostgreSQL and to the mirror.
func TestRevertUseCase(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pg.NewDB(t))
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
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "accounts", 1, [2]string{"id", "int8"}, [2]string{"owner", "text"}, [2]string{"balance", "numeric"})
	exec("CREATE TABLE accounts (id int8 PRIMARY KEY, owner text, balance numeric)")
	model := map[int64][3]string{}
	var init [][]*string
	for id := int64(1); id <= 100; id++ {
		r := [3]string{strconv.FormatInt(id, 10), fmt.Sprintf("owner %d", id), fmt.Sprintf("%d.50", id*10)}
		model[id] = r
		init = append(init, []*string{&r[0], &r[1], &r[2]})
		exec(fmt.Sprintf("INSERT INTO accounts VALUES (%s, '%s', %s)", r[0], r[1], r[2]))
	}
	f.CreateTable(rel, init)
	good := f.Commit(func(tx *historytest.Tx) {
		r := [3]string{"101", "owner 101", "1.00"}
		tx.Upsert(rel, []*string{&r[0], &r[1], &r[2]})
		model[101] = r
	})
	exec("INSERT INTO accounts VALUES (101, 'owner 101', 1.00)")
	if _, err := svc.CreateTag(ctx, "good", good.EndLSN.String()); err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(model)

	set := func(tx *historytest.Tx, id int64, col int, v string) {
		r := model[id]
		r[col] = v
		model[id] = r
		tx.Upsert(rel, []*string{&r[0], &r[1], &r[2]})
	}
	// The bad transaction: a DELETE of 10..29 and an UPDATE of 50..69.
	bad := f.Commit(func(tx *historytest.Tx) {
		for id := int64(10); id <= 29; id++ {
			tx.Delete(rel, strconv.FormatInt(id, 10))
			delete(model, id)
		}
		for id := int64(50); id <= 69; id++ {
			set(tx, id, 2, "0")
		}
	})
	exec("BEGIN; DELETE FROM accounts WHERE id BETWEEN 10 AND 29; UPDATE accounts SET balance = 0 WHERE id BETWEEN 50 AND 69; COMMIT")
	// Later writes.
	f.Commit(func(tx *historytest.Tx) {
		for id := int64(80); id <= 84; id++ { // other rows
			set(tx, id, 2, "999")
			want[id] = model[id]
		}
		for id := int64(60); id <= 62; id++ { // same rows, other column: merges
			set(tx, id, 1, "new owner")
			r := want[id]
			r[1] = "new owner"
			want[id] = r
		}
		for id := int64(63); id <= 64; id++ { // same rows, same column: conflicts
			set(tx, id, 2, "7")
			want[id] = model[id]
		}
	})
	exec("UPDATE accounts SET balance = 999 WHERE id BETWEEN 80 AND 84; UPDATE accounts SET owner = 'new owner' WHERE id BETWEEN 60 AND 62; UPDATE accounts SET balance = 7 WHERE id BETWEEN 63 AND 64")
	f.Commit(func(tx *historytest.Tx) {
		r := [3]string{"15", "someone else", "5"} // re-inserted after the delete: conflict
		tx.Upsert(rel, []*string{&r[0], &r[1], &r[2]})
		model[15], want[15] = r, r
		tx.Delete(rel, "65") // deleted after the bad update: conflict
		delete(model, 65)
		delete(want, 65)
		r2 := [3]string{"200", "new", "1"}
		tx.Upsert(rel, []*string{&r2[0], &r2[1], &r2[2]})
		model[200], want[200] = r2, r2
	})
	exec("INSERT INTO accounts VALUES (15, 'someone else', 5), (200, 'new', 1); DELETE FROM accounts WHERE id = 65")

	var patch strings.Builder
	w := NewSQLWriter(&patch)
	var conflicts []string
	// Every commit above flushed first: a commit group the mirror flushes
	// in the background after GroupMaxAge wrote its nodes during the
	// revert once (CI at load, 1,891 bytes) and was counted as the
	// revert's.
	if err := f.Mirror.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	stored := f.Mirror.Stats().NodeBytes
	sum, err := svc.Revert(ctx, RevertRequest{From: "good", To: bad.EndLSN.String()}, func(e *Event) error {
		if e.Type == EventConflict {
			conflicts = append(conflicts, *e.Key.Values[0]+" "+e.Kind)
		}
		return w.Write(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := f.Mirror.Stats().NodeBytes; got != stored {
		t.Errorf("revert wrote %d bytes of nodes to the store; a printed merge must stay in memory", got-stored)
	}
	wantConflicts := []string{"15 modify/modify", "63 modify/modify", "64 modify/modify", "65 delete/modify"}
	if !slices.Equal(conflicts, wantConflicts) || sum.Conflicts != 4 {
		t.Errorf("conflicts %v, want %v", conflicts, wantConflicts)
	}
	if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
		t.Fatalf("apply revert patch: %v\n%s", err, patch.String())
	}
	rows, err := conn.Query(ctx, "SELECT id::text, owner, balance::text FROM accounts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][3]string{}
	for rows.Next() {
		var r [3]string
		if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.ParseInt(r[0], 10, 64)
		got[id] = r
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for id, r := range want {
		if got[id] != r {
			t.Errorf("row %d: PostgreSQL has %q after the patch, want %q", id, got[id], r)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("row %d should not exist", id)
		}
	}
	if t.Failed() {
		t.Logf("patch:\n%s", patch.String())
	}
}
