package history

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestSQLPatchOrderForeignKeysAndUnique applies the patch between every
// pair of versions of two tables joined by a foreign key, one with a
// UNIQUE column, to PostgreSQL holding the from version, and compares
// both tables with the to version. The versions move unique values from
// deleted and updated rows to new rows, delete parents with their
// children, re-point a child from a deleted parent to a new one, and
// delete parents whose children remain: key order fails on most pairs
// (the test checks that it does, so the ordering is what makes them
// pass). The child table sorts first, so table-name order is wrong too.
func TestSQLPatchOrderForeignKeysAndUnique(t *testing.T) {
	ctx := t.Context()
	conn, exec := newPGDB(t)
	for _, ddl := range []string{
		`CREATE TABLE b_customers (id int8 PRIMARY KEY, email text NOT NULL UNIQUE)`,
		`CREATE TABLE a_orders (id int8 PRIMARY KEY, customer_id int8 REFERENCES b_customers (id), note text)`,
	} {
		if err := exec(ddl); err != nil {
			t.Fatal(err)
		}
	}
	fks, err := ForeignKeys(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	want := []ForeignKey{{Table: "public.a_orders", Columns: []string{"customer_id"}, References: "public.b_customers", RefColumns: []string{"id"}}}
	if fmt.Sprint(fks) != fmt.Sprint(want) {
		t.Fatalf("ForeignKeys = %v, want %v", fks, want)
	}

	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	cust := historytest.Rel(1, "public", "b_customers", 1, [2]string{"id", "int8"}, [2]string{"email", "text"})
	ord := historytest.Rel(2, "public", "a_orders", 1, [2]string{"id", "int8"}, [2]string{"customer_id", "int8"}, [2]string{"note", "text"})
	S := historytest.S
	c := func(id int, email string) []*string { return []*string{S(strconv.Itoa(id)), S(email)} }
	o := func(id, cust int) []*string {
		return []*string{S(strconv.Itoa(id)), S(strconv.Itoa(cust)), S("n" + strconv.Itoa(id))}
	}
	type state struct{ cust, ord map[int][]*string }
	cur := state{map[int][]*string{}, map[int][]*string{}}
	f.CreateTable(cust, nil)
	f.CreateTable(ord, nil)
	var versions []string
	var states []state
	commit := func(fn func(tx *historytest.Tx, s state)) {
		s := state{maps.Clone(cur.cust), maps.Clone(cur.ord)}
		v := f.Commit(func(tx *historytest.Tx) { fn(tx, s) })
		cur = s
		versions, states = append(versions, v.EndLSN.String()), append(states, s)
	}
	up := func(tx *historytest.Tx, m map[int][]*string, rel *wal.Relation, row []*string) {
		tx.Upsert(rel, row)
		id, _ := strconv.Atoi(*row[0])
		m[id] = row
	}
	rm := func(tx *historytest.Tx, m map[int][]*string, rel *wal.Relation, id int) {
		tx.Delete(rel, strconv.Itoa(id))
		delete(m, id)
	}
	// v0: customers 1-5, each with one order.
	commit(func(tx *historytest.Tx, s state) {
		for i := 1; i <= 5; i++ {
			up(tx, s.cust, cust, c(i, "e"+strconv.Itoa(i)))
			up(tx, s.ord, ord, o(9+i, i))
		}
	})
	// v1: customers 1 and 2 go with their orders; 3's email moves to new
	// customer 6; order 13 moves from customer 4 (deleted) to new
	// customer 7; order 20 is placed with customer 6.
	commit(func(tx *historytest.Tx, s state) {
		rm(tx, s.ord, ord, 10)
		rm(tx, s.ord, ord, 11)
		rm(tx, s.cust, cust, 1)
		rm(tx, s.cust, cust, 2)
		up(tx, s.cust, cust, c(3, "e9"))
		up(tx, s.cust, cust, c(6, "e3"))
		up(tx, s.cust, cust, c(7, "e7"))
		up(tx, s.ord, ord, o(13, 7))
		rm(tx, s.cust, cust, 4)
		up(tx, s.ord, ord, o(20, 6))
	})
	// v2: customer 5 and its order go; new customer 8 takes its email.
	commit(func(tx *historytest.Tx, s state) {
		rm(tx, s.ord, ord, 14)
		rm(tx, s.cust, cust, 5)
		up(tx, s.cust, cust, c(8, "e5"))
	})
	// v3: a bad delete of customers 3 and 6 with their orders.
	commit(func(tx *historytest.Tx, s state) {
		rm(tx, s.ord, ord, 12)
		rm(tx, s.ord, ord, 20)
		rm(tx, s.cust, cust, 3)
		rm(tx, s.cust, cust, 6)
	})

	load := func(s state) {
		t.Helper()
		for _, q := range []string{`DELETE FROM a_orders`, `DELETE FROM b_customers`} {
			if err := exec(q); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range s.cust {
			if err := exec(`INSERT INTO b_customers VALUES ($1::text::int8, $2)`, *r[0], *r[1]); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range s.ord {
			if err := exec(`INSERT INTO a_orders VALUES ($1::text::int8, $2::text::int8, $3)`, *r[0], *r[1], *r[2]); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(table string) map[int][]*string {
		t.Helper()
		rows, err := conn.Query(ctx, "SELECT * FROM "+table, pgx.QueryResultFormats{pgx.TextFormatCode})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int][]*string{}
		for rows.Next() {
			vals := rows.RawValues()
			r := make([]*string, len(vals))
			for i, v := range vals {
				if v != nil {
					r[i] = S(string(v))
				}
			}
			id, _ := strconv.Atoi(*r[0])
			out[id] = r
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		return out
	}
	same := func(a, b map[int][]*string) bool {
		return maps.EqualFunc(a, b, func(x, y []*string) bool { return slices.EqualFunc(x, y, sameValue) })
	}
	rig := &patchRig{t: t, conn: conn, svc: svc, versions: versions,
		opts: SQLOptions{ForeignKeys: fks, MemoryBytes: 200}, // spill to the temporary file
		load: func(i int) { load(states[i]) },
		matches: func(j int) bool {
			return same(read("b_customers"), states[j].cust) && same(read("a_orders"), states[j].ord)
		}}
	naiveFailed := rig.everyPair()
	if naiveFailed < 6 {
		t.Fatalf("key-order patches failed on %d of 12 pairs: the versions do not exercise the ordering", naiveFailed)
	}
	t.Logf("key-order patches failed on %d of 12 pairs; ordered patches applied on all", naiveFailed)
}

// naivePatch is the patch in key order, table by table, as the writer
// wrote it before it ordered statements by constraints.
func naivePatch(t *testing.T, svc *Service, from, to string) string {
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	var table *Event
	_, err := svc.Diff(t.Context(), DiffRequest{From: from, To: to}, func(e *Event) error {
		if e.Type == EventTable {
			table = e
		}
		if e.Type != EventRow {
			return nil
		}
		var one strings.Builder
		w := NewSQLWriter(&one)
		if err := w.Write(table); err != nil {
			return err
		}
		if err := w.Write(e); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		stmts := strings.TrimSuffix(strings.TrimPrefix(one.String(), "BEGIN;\nSET CONSTRAINTS ALL DEFERRED;\n"), "COMMIT;\n")
		b.WriteString(stmts)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("COMMIT;\n")
	return b.String()
}

// newPGDB opens a new database of the test cluster (closed when the test
// ends) and returns it with an exec that reports errors.
func newPGDB(t *testing.T) (*pgx.Conn, func(sql string, args ...any) error) {
	conn := connect(t, pg.NewDB(t))
	return conn, func(sql string, args ...any) error {
		_, err := conn.Exec(t.Context(), sql, args...)
		return err
	}
}

// patchRig checks SQL patches between the versions of a history on
// PostgreSQL.
type patchRig struct {
	t        *testing.T
	conn     *pgx.Conn
	svc      *Service
	versions []string
	opts     SQLOptions
	load     func(i int)      // makes PostgreSQL hold version i
	matches  func(j int) bool // whether PostgreSQL holds version j
}

// apply runs a patch; a failed one is rolled back.
func (r *patchRig) apply(p string) error {
	_, err := r.conn.PgConn().Exec(r.t.Context(), p).ReadAll()
	if err != nil {
		r.conn.Exec(r.t.Context(), "ROLLBACK")
	}
	return err
}

// check loads version i and applies the ordered patch from i to j, which
// must apply and give version j; then loads i again and applies the
// key-order patch, reporting whether that one failed.
func (r *patchRig) check(i, j int) (keyOrderFailed bool) {
	r.t.Helper()
	r.load(i)
	var b strings.Builder
	w := NewSQLWriterOptions(&b, r.opts)
	if _, err := r.svc.Diff(r.t.Context(), DiffRequest{From: r.versions[i], To: r.versions[j]}, w.Write); err != nil {
		r.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
	if err := r.apply(b.String()); err != nil {
		r.t.Fatalf("patch v%d→v%d: %v\n%s", i, j, err, b.String())
	}
	if !r.matches(j) {
		r.t.Fatalf("patch v%d→v%d does not give v%d:\n%s", i, j, j, b.String())
	}
	r.load(i)
	return r.apply(naivePatch(r.t, r.svc, r.versions[i], r.versions[j])) != nil
}

// everyPair checks every ordered pair of versions and returns on how many
// the key-order patch failed.
func (r *patchRig) everyPair() int {
	r.t.Helper()
	failed := 0
	for i := range r.versions {
		for j := range r.versions {
			if i != j && r.check(i, j) {
				failed++
			}
		}
	}
	return failed
}

// TestSQLWriterStartsAtOnceAndRollsBack: the first event writes BEGIN at
// once (statements wait for Close); a failed stream ends in ROLLBACK with
// no statement of the half-read diff.
func TestSQLWriterStartsAtOnceAndRollsBack(t *testing.T) {
	var b strings.Builder
	w := NewSQLWriter(&b)
	cols := []Column{{Name: "id", Type: "int8", Key: true}, {Name: "v", Type: "text"}}
	row := &Row{Names: []string{"id", "v"}, Values: []*string{historytest.S("1"), historytest.S("x")}}
	for _, e := range []*Event{
		{Type: EventTable, Table: "public.t", Columns: cols},
		{Type: EventRow, Table: "public.t", Op: OpAdded, To: row},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.String(); got != "BEGIN;\nSET CONSTRAINTS ALL DEFERRED;\n" {
		t.Fatalf("after the first events: %q", got)
	}
	w.Fail(fmt.Errorf("stream cut"))
	if err := w.Close(); err == nil {
		t.Fatal("Close after Fail succeeded")
	}
	if got := b.String(); got != "BEGIN;\nSET CONSTRAINTS ALL DEFERRED;\nROLLBACK;\n" {
		t.Fatalf("after a failure: %q", got)
	}
}

// TestSQLPatchOrderSelfReference applies the patch between every pair of
// versions of a tree (a table whose rows reference rows of the same
// table, NOT DEFERRABLE) to PostgreSQL holding the from version: children
// have lower keys than their parents, subtrees are deleted and inserted,
// a node moves under a new root. Inserts must go parents first, deletes
// children first, and the re-parenting update after the new parent's
// insert; key order fails (checked, so the test keeps its teeth).
func TestSQLPatchOrderSelfReference(t *testing.T) {
	ctx := t.Context()
	conn, exec := newPGDB(t)
	if err := exec(`CREATE TABLE categories (id int8 PRIMARY KEY, parent_id int8 REFERENCES categories, name text NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	fks, err := ForeignKeys(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "categories", 1, [2]string{"id", "int8"}, [2]string{"parent_id", "int8"}, [2]string{"name", "text"})
	f.CreateTable(rel, nil)
	S := historytest.S
	node := func(id, parent int) []*string {
		var p *string
		if parent != 0 {
			p = S(strconv.Itoa(parent))
		}
		return []*string{S(strconv.Itoa(id)), p, S("n" + strconv.Itoa(id))}
	}
	type tree map[int]int // id → parent (0: a root)
	cur := tree{}
	var versions []string
	var states []tree
	commit := func(ops func(tx *historytest.Tx, s tree)) {
		s := maps.Clone(cur)
		v := f.Commit(func(tx *historytest.Tx) { ops(tx, s) })
		cur = s
		versions, states = append(versions, v.EndLSN.String()), append(states, s)
	}
	put := func(tx *historytest.Tx, s tree, id, parent int) { tx.Upsert(rel, node(id, parent)); s[id] = parent }
	del := func(tx *historytest.Tx, s tree, ids ...int) {
		for _, id := range ids {
			tx.Delete(rel, strconv.Itoa(id))
			delete(s, id)
		}
	}
	commit(func(tx *historytest.Tx, s tree) {
		for _, n := range [][2]int{{10, 0}, {5, 10}, {1, 5}, {7, 10}, {3, 7}} {
			put(tx, s, n[0], n[1])
		}
	})
	commit(func(tx *historytest.Tx, s tree) {
		put(tx, s, 20, 0)
		put(tx, s, 5, 20)
		del(tx, s, 3, 7, 10)
	})
	commit(func(tx *historytest.Tx, s tree) {
		del(tx, s, 1, 5, 20)
		put(tx, s, 30, 0)
		put(tx, s, 2, 30)
		put(tx, s, 4, 2)
	})

	load := func(s tree) {
		t.Helper()
		if err := exec(`DELETE FROM categories`); err != nil {
			t.Fatal(err)
		}
		for done := map[int]bool{}; len(done) < len(s); {
			for id, p := range s {
				if !done[id] && (p == 0 || done[p]) {
					r := node(id, p)
					if err := exec(`INSERT INTO categories VALUES ($1::text::int8, $2::text::int8, $3)`, *r[0], r[1], *r[2]); err != nil {
						t.Fatal(err)
					}
					done[id] = true
				}
			}
		}
	}
	read := func() tree {
		rows, err := conn.Query(ctx, `SELECT id, coalesce(parent_id, 0) FROM categories`)
		if err != nil {
			t.Fatal(err)
		}
		out := tree{}
		for rows.Next() {
			var id, p int
			if err := rows.Scan(&id, &p); err != nil {
				t.Fatal(err)
			}
			out[id] = p
		}
		return out
	}
	rig := &patchRig{t: t, conn: conn, svc: svc, versions: versions, opts: SQLOptions{ForeignKeys: fks},
		load:    func(i int) { load(states[i]) },
		matches: func(j int) bool { return maps.Equal(read(), states[j]) }}
	naiveFailed := rig.everyPair()
	if naiveFailed < 3 {
		t.Fatalf("key-order patches failed on %d of 6 pairs: the versions do not exercise the order", naiveFailed)
	}
	t.Logf("key-order patches failed on %d of 6 pairs; ordered patches applied on all", naiveFailed)
}
