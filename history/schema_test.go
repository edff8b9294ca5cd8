package history

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	pgfollow "github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// follower is a mirror following one PostgreSQL database through logical
// replication the way the daemon does it (package follow): initial copy
// under the slot's snapshot, streaming, and a resync of every table a
// schema change puts in resync_needed.
type follower struct {
	t    *testing.T
	url  string
	conn *pgx.Conn
	db   *store.DB
	m    *mirror.Mirror
	st   *replication.Streamer
	// resyncs counts the resyncs done: a scenario that means to test a
	// schema change checks that one happened.
	resyncs atomic.Int32
}

// follow copies tables (qualified names) of the database at url and
// streams its changes into a new mirror until the test ends.
func follow(t *testing.T, url string, conn *pgx.Conn, slot string, tables ...string) *follower {
	t.Helper()
	ctx := t.Context()
	var tns []wal.TableName
	for _, n := range tables {
		tn, err := wal.ParseTableName(n)
		if err != nil {
			t.Fatal(err)
		}
		tns = append(tns, tn)
	}
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	copied := wal.NewCopiedAt()
	m, err := mirror.Open(ctx, mirror.Options{DB: db, CopiedAt: copied, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	f := &follower{t: t, url: url, conn: conn, db: db, m: m}
	run, err := pgfollow.Start(ctx, pgfollow.Config{ConnString: url, Slot: slot, Publication: "pub", Tables: tns,
		Target: m, CopiedAt: copied, DataDir: t.TempDir(), Copy: replication.CopyOptions{Workers: 1},
		Stream: func(c *replication.StreamConfig) {
			c.MinBackoff, c.MaxBackoff = 50*time.Millisecond, 500*time.Millisecond
		},
		// Counted before it runs: sync returns as soon as the table is
		// ready, which may be before the resync returns.
		OnPhase: func(p string) {
			if p == pgfollow.PhaseResyncing {
				f.resyncs.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	f.st = run.Streamer()
	t.Cleanup(func() {
		if err := run.Stop(); err != nil {
			t.Errorf("follow: %v", err)
		}
	})
	return f
}

// sync waits until the mirror has every commit PostgreSQL has made and
// every table is ready (resynced after a schema change), and returns the
// server's WAL position: a ref for the state PostgreSQL has now.
func (f *follower) sync() string {
	f.t.Helper()
	ctx := f.t.Context()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var s string
		if err := f.conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		want, _ := wal.ParseLSN(s)
		for f.m.Durable() < want && f.st.Stats().Flushed < want {
			if err := f.m.Err(); err != nil || time.Now().After(deadline) {
				f.t.Fatalf("mirror at %s, waiting for %s: %v", f.m.Durable(), want, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if len(f.m.NeedsResync()) == 0 && len(f.m.Copying()) == 0 {
			return s
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("tables still resyncing: %v", f.m.NeedsResync())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgTable is a table's rows as PostgreSQL prints them (text format),
// keyed by the text of its first column, the integer primary key. The
// simple protocol: a cached plan of SELECT * breaks when the schema changes.
type pgTable struct {
	cols []string
	rows map[string]*Row
}

func readTable(t *testing.T, conn *pgx.Conn, table string) pgTable {
	t.Helper()
	rows, err := conn.Query(t.Context(), "SELECT * FROM "+QuoteTable(table), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := pgTable{rows: map[string]*Row{}}
	for _, fd := range rows.FieldDescriptions() {
		out.cols = append(out.cols, fd.Name)
	}
	for rows.Next() {
		r := &Row{Names: out.cols}
		for _, raw := range rows.RawValues() {
			var v *string
			if raw != nil {
				s := string(raw)
				v = &s
			}
			r.Values = append(r.Values, v)
		}
		out.rows[*r.Values[0]] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// modelDiff is the diff rule on two states read from PostgreSQL: rows
// compared by column name; a column only the newer state has counts as
// changed only where it is not NULL; a column only the older state has
// never counts (the schema change reports it). Row events are in key
// order (keys are integers).
func modelDiff(a, b pgTable) []*Event {
	keys := slices.Collect(maps.Keys(a.rows))
	for k := range b.rows {
		if _, ok := a.rows[k]; !ok {
			keys = append(keys, k)
		}
	}
	num := func(k string) (n int64) { fmt.Sscan(k, &n); return n }
	slices.SortFunc(keys, func(x, y string) int { return int(num(x) - num(y)) })
	var out []*Event
	for _, k := range keys {
		f, t := a.rows[k], b.rows[k]
		switch {
		case f == nil:
			out = append(out, &Event{Op: OpAdded, To: t})
		case t == nil:
			out = append(out, &Event{Op: OpRemoved, From: f})
		default:
			var changed []string
			for i, n := range t.Names {
				fv, ok := f.Get(n)
				if ok && !sameValue(fv, t.Values[i]) || !ok && t.Values[i] != nil {
					changed = append(changed, n)
				}
			}
			if len(changed) > 0 {
				out = append(out, &Event{Op: OpChanged, From: f, To: t, Changed: changed})
			}
		}
	}
	return out
}

func sameRow(a, b *Row) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return slices.Equal(a.Names, b.Names) && slices.EqualFunc(a.Values, b.Values, sameValue)
}

func rowText(r *Row) string {
	if r == nil {
		return "(none)"
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// schemaCases change the schema of
//
//	t (id int8 PRIMARY KEY, v text, gone text, n int4)
//
// between two versions; ddl is run first, then dml (whose first statement
// sends PostgreSQL's new Relation message). want* count the row events the
// diff rule must find (independent of modelDiff, so that a wrong model
// cannot agree with a wrong diff).
var schemaCases = []struct {
	name                             string
	ddl                              string
	reverse                          string // DDL from the newer schema back to the older
	dml                              []string
	added, dropped, retyped          []string
	wantAdded, wantRemoved, wantChgd int
}{
	{
		name:    "add column",
		ddl:     `ALTER TABLE t ADD COLUMN w text`,
		reverse: `ALTER TABLE t DROP COLUMN w`,
		dml: []string{
			`UPDATE t SET v = 'changed' WHERE id IN (2, 4)`, // w stays NULL: changed in v only
			`UPDATE t SET w = 'set' WHERE id = 3`,           // only the new column
			`UPDATE t SET w = 'both', n = 99 WHERE id = 5`,  // both
			`UPDATE t SET w = NULL, v = v WHERE id = 7`,     // touched, equal by name: not reported
			`INSERT INTO t VALUES (100, 'new', 'g100', 1, 'w100')`,
			`DELETE FROM t WHERE id = 6`,
		},
		added: []string{"w"}, dropped: []string{},
		wantAdded: 1, wantRemoved: 1, wantChgd: 4,
	},
	{
		name:    "drop column",
		ddl:     `ALTER TABLE t DROP COLUMN gone`,
		reverse: `ALTER TABLE t ADD COLUMN gone text`,
		dml: []string{
			`UPDATE t SET v = 'changed' WHERE id IN (2, 4)`,
			`UPDATE t SET n = 99 WHERE id = 5`,
			`UPDATE t SET v = v WHERE id = 7`,
			`INSERT INTO t VALUES (100, 'new', 1)`,
			`DELETE FROM t WHERE id = 6`,
		},
		added: []string{}, dropped: []string{"gone"},
		wantAdded: 1, wantRemoved: 1, wantChgd: 3,
	},
	{
		name:    "drop and add",
		ddl:     `ALTER TABLE t DROP COLUMN gone, ADD COLUMN w text`,
		reverse: `ALTER TABLE t DROP COLUMN w, ADD COLUMN gone text`,
		dml: []string{
			`UPDATE t SET v = 'changed' WHERE id IN (2, 4)`,
			`UPDATE t SET w = 'set' WHERE id = 3`,
			`INSERT INTO t VALUES (100, 'new', 1, 'w100')`,
			`DELETE FROM t WHERE id = 6`,
		},
		added: []string{"w"}, dropped: []string{"gone"},
		wantAdded: 1, wantRemoved: 1, wantChgd: 3,
	},
	{
		// A default fills every row: by the rule, every row changed in w
		// (and the patch sets it, harmlessly, where the DDL already did).
		name:    "add column with a default",
		ddl:     `ALTER TABLE t ADD COLUMN w text NOT NULL DEFAULT 'd'`,
		reverse: `ALTER TABLE t DROP COLUMN w`,
		dml:     []string{`UPDATE t SET v = 'changed' WHERE id = 2`},
		added:   []string{"w"}, dropped: []string{},
		wantAdded: 0, wantRemoved: 0, wantChgd: 40,
	},
	{
		// PostgreSQL prints every non-NULL n anew ("7" becomes "7.0"):
		// the 32 such rows changed in n, and row 5 (n NULL) in v.
		name:    "retype",
		ddl:     `ALTER TABLE t ALTER COLUMN n TYPE numeric(6,1)`,
		reverse: `ALTER TABLE t ALTER COLUMN n TYPE int4`,
		dml:     []string{`UPDATE t SET v = 'changed' WHERE id = 5`},
		added:   []string{}, dropped: []string{}, retyped: []string{"n"},
		wantAdded: 0, wantRemoved: 0, wantChgd: 33,
	},
}

const schemaSetup = `CREATE TABLE t (id int8 PRIMARY KEY, v text, gone text, n int4);
INSERT INTO t SELECT i, 'v' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'g' || i END,
	CASE WHEN i % 5 = 0 THEN NULL ELSE i END FROM generate_series(1, 40) i;`

// TestDiffAcrossSchemaChange follows a real PostgreSQL table through a
// schema change (the mirror resyncs the table, as the daemon does) and
// checks Service.Diff between a version before and one after it, in
// every output format: the schema change is reported; rows are compared
// by column name (a NULL in an added column and the loss of a dropped
// column are not changes); --stat agrees with the row events; and the SQL
// patch, applied to a copy of the older version whose schema the DBA has
// already altered, yields the newer version row by row.
func TestDiffAcrossSchemaChange(t *testing.T) {
	for i, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			url := pg.NewDB(t)
			conn := connect(t, url)
			exec := func(conn *pgx.Conn, sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
			exec(conn, schemaSetup)
			f := follow(t, url, conn, fmt.Sprintf("schema_%d", i), "public.t")
			exec(conn, `UPDATE t SET v = 'before' WHERE id = 1`) // A is a streamed commit
			verA := f.sync()
			stateA := readTable(t, conn, "t")
			exec(conn, tc.ddl)
			exec(conn, tc.dml...)
			f.sync()
			// A commit after the resync that changes no value: B is a
			// version made under the new schema.
			exec(conn, `UPDATE t SET v = v WHERE id = 1`)
			verB := f.sync()
			stateB := readTable(t, conn, "t")
			if f.resyncs.Load() == 0 {
				t.Fatal("the schema change caused no resync: the scenario lost its teeth")
			}
			want := modelDiff(stateA, stateB)

			svc := New(f.db, f.m)
			var events []*Event
			sum, err := svc.Diff(ctx, DiffRequest{From: verA, To: verB}, func(e *Event) error {
				events = append(events, e)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(events) == 0 || events[0].Type != EventTable {
				t.Fatalf("want a table event first, got %+v", events)
			}
			head, rows := events[0], events[1:]
			if sc := head.SchemaChange; sc == nil || !slices.Equal(sc.Added, tc.added) || !slices.Equal(sc.Dropped, tc.dropped) || !slices.Equal(sc.Retyped, tc.retyped) {
				t.Errorf("schema_change %+v, want added %v dropped %v retyped %v", sc, tc.added, tc.dropped, tc.retyped)
			}
			var names []string
			for _, c := range head.Columns {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, stateB.cols) {
				t.Errorf("columns %v, want the newer version's %v", names, stateB.cols)
			}

			// Row events: the model's, exactly, and as many of each kind
			// as the case says.
			counts := map[string]int{}
			for j, e := range rows {
				counts[e.Op]++
				if j >= len(want) {
					t.Errorf("extra row event %s key %s: from %s to %s changed %v", e.Op, rowText(e.Key), rowText(e.From), rowText(e.To), e.Changed)
					continue
				}
				w := want[j]
				if e.Type != EventRow || e.Op != w.Op || !sameRow(e.From, w.From) || !sameRow(e.To, w.To) || !slices.Equal(e.Changed, w.Changed) {
					t.Errorf("row event %d:\n got %s from %s to %s changed %v\nwant %s from %s to %s changed %v",
						j, e.Op, rowText(e.From), rowText(e.To), e.Changed, w.Op, rowText(w.From), rowText(w.To), w.Changed)
				}
			}
			if len(rows) < len(want) {
				t.Errorf("%d row events, want %d", len(rows), len(want))
			}
			if counts[OpAdded] != tc.wantAdded || counts[OpRemoved] != tc.wantRemoved || counts[OpChanged] != tc.wantChgd {
				t.Errorf("row events: %v, want %d added, %d removed, %d changed", counts, tc.wantAdded, tc.wantRemoved, tc.wantChgd)
			}
			if sum.Rows != int64(len(rows)) {
				t.Errorf("summary counts %d rows, %d row events", sum.Rows, len(rows))
			}

			// --stat agrees with the row events.
			var stat *Event
			ssum, err := svc.Diff(ctx, DiffRequest{From: verA, To: verB, Stat: true}, func(e *Event) error {
				if e.Type == EventStat {
					stat = e
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if stat == nil || *stat.RowsAdded != int64(counts[OpAdded]) || *stat.RowsRemoved != int64(counts[OpRemoved]) ||
				*stat.RowsChanged != int64(counts[OpChanged]) || ssum.Rows != sum.Rows {
				t.Errorf("--stat %+v (summary %d rows), row events %v", stat, ssum.Rows, counts)
			}

			// --limit counts only rows that differ by name.
			lsum, err := svc.Diff(ctx, DiffRequest{From: verA, To: verB, Limit: 2}, func(*Event) error { return nil })
			if err != nil || lsum.Rows != min(2, sum.Rows) {
				t.Errorf("--limit 2: %d rows, %v", lsum.Rows, err)
			}

			render := func(format string) string {
				t.Helper()
				var b strings.Builder
				w, err := NewDiffWriter(format, &b)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Diff(ctx, DiffRequest{From: verA, To: verB}, w.Write); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}

			// JSON lines: the same events, schema_change on the table line.
			js := render("json")
			sc, _ := json.Marshal(SchemaChange{Added: tc.added, Dropped: tc.dropped, Retyped: tc.retyped})
			if first, _, _ := strings.Cut(js, "\n"); !strings.Contains(first, `"schema_change":`+string(sc)) {
				t.Errorf("JSON table line lacks %s: %s", sc, first)
			}
			sc2 := bufio.NewScanner(strings.NewReader(js))
			sc2.Buffer(nil, 1<<20)
			n := 0
			for ; sc2.Scan(); n++ {
				var e Event
				if err := json.Unmarshal(sc2.Bytes(), &e); err != nil {
					t.Fatalf("JSON line %d: %v: %s", n, err, sc2.Text())
				}
				if n >= len(events) {
					continue
				}
				g := events[n]
				if e.Type != g.Type || e.Op != g.Op || !sameRow(e.Key, g.Key) || !sameRow(e.From, g.From) || !sameRow(e.To, g.To) || !slices.Equal(e.Changed, g.Changed) {
					t.Errorf("JSON line %d %s differs from event %+v", n, sc2.Text(), g)
				}
			}
			if n != len(events) {
				t.Errorf("%d JSON lines, %d events", n, len(events))
			}

			// Table: the schema line, then one line per added or removed
			// row and two per changed row.
			tbl := render("table")
			line := fmt.Sprintf("schema: columns added %v, dropped %v\n", tc.added, tc.dropped)
			if tc.retyped != nil {
				line = fmt.Sprintf("schema: columns added %v, dropped %v, retyped %v\n", tc.added, tc.dropped, tc.retyped)
			}
			if !strings.Contains(tbl, line) {
				t.Errorf("table output lacks %q:\n%s", line, tbl)
			}
			marks := map[byte]int{}
			for _, l := range strings.Split(tbl, "\n") {
				if len(l) > 1 && strings.ContainsRune("+-<>", rune(l[0])) && l[1] == ' ' {
					marks[l[0]]++
				}
			}
			if marks['+'] != counts[OpAdded] || marks['-'] != counts[OpRemoved] || marks['<'] != counts[OpChanged] || marks['>'] != counts[OpChanged] {
				t.Errorf("table output has %v marker lines, row events %v:\n%s", marks, counts, tbl)
			}

			// Merge and revert cannot combine rows of both layouts. A row
			// of A read with B's columns after a DROP COLUMN would put
			// values under the wrong names: that must be an error naming
			// the schema change, never a patch (mergeTable checks every
			// side's columns; a retyped column alone merges as text).
			if len(tc.dropped)+len(tc.added) > 0 {
				var stmts int
				_, err := svc.Revert(ctx, RevertRequest{From: verA, To: verB}, func(e *Event) error {
					if e.Type == EventRow {
						stmts++
					}
					return nil
				})
				if !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), "public.t") {
					t.Errorf("revert across the schema change: %v (%d row events), want an error naming the schema change", err, stmts)
				}
			}

			// SQL: applied to a copy of A whose schema the DBA already
			// altered, the patch yields B row by row. It holds no DDL.
			patch := render("sql")
			upper := strings.ToUpper(patch)
			for _, ddl := range []string{"ALTER ", "CREATE ", "DROP "} {
				for _, l := range strings.Split(upper, "\n") {
					if strings.HasPrefix(l, ddl) {
						t.Errorf("the patch holds DDL: %s", l)
					}
				}
			}
			if !strings.Contains(patch, "-- ") || !strings.Contains(patch, "no DDL") {
				t.Errorf("the patch does not tell the DBA to run the DDL first:\n%s", patch)
			}
			curl := pg.NewDB(t)
			cconn, err := pgx.Connect(ctx, curl)
			if err != nil {
				t.Fatal(err)
			}
			defer cconn.Close(context.Background())
			exec(cconn, schemaSetup, `UPDATE t SET v = 'before' WHERE id = 1`)
			if got := readTable(t, cconn, "t"); !maps.EqualFunc(got.rows, stateA.rows, sameRow) {
				t.Fatal("the copy of A differs from A")
			}
			exec(cconn, tc.ddl)
			if _, err := cconn.PgConn().Exec(ctx, patch).ReadAll(); err != nil {
				t.Fatalf("apply the patch: %v\n%s", err, patch)
			}
			got := readTable(t, cconn, "t")
			if !slices.Equal(got.cols, stateB.cols) {
				t.Fatalf("copy columns %v, B's %v", got.cols, stateB.cols)
			}
			for k, r := range stateB.rows {
				if g := got.rows[k]; !sameRow(g, r) {
					t.Errorf("row %s: patched copy %s, B %s", k, rowText(g), rowText(r))
				}
			}
			for k := range got.rows {
				if _, ok := stateB.rows[k]; !ok {
					t.Errorf("row %s: in the patched copy, not in B", k)
				}
			}

			// And back: the diff from B to A is the model's too, and its
			// patch turns a copy of B, altered back to A's columns, into A
			// (compared by name: a column added back comes last).
			var back []*Event
			if _, err := svc.Diff(ctx, DiffRequest{From: verB, To: verA}, func(e *Event) error {
				if e.Type == EventRow {
					back = append(back, e)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			wantBack := modelDiff(stateB, stateA)
			if len(back) != len(wantBack) {
				t.Errorf("diff B to A: %d row events, want %d", len(back), len(wantBack))
			}
			for j := range min(len(back), len(wantBack)) {
				e, w := back[j], wantBack[j]
				if e.Op != w.Op || !sameRow(e.From, w.From) || !sameRow(e.To, w.To) || !slices.Equal(e.Changed, w.Changed) {
					t.Errorf("diff B to A, row event %d:\n got %s from %s to %s changed %v\nwant %s from %s to %s changed %v",
						j, e.Op, rowText(e.From), rowText(e.To), e.Changed, w.Op, rowText(w.From), rowText(w.To), w.Changed)
				}
			}
			var bpatch strings.Builder
			bw := NewSQLWriter(&bpatch)
			if _, err := svc.Diff(ctx, DiffRequest{From: verB, To: verA}, bw.Write); err != nil {
				t.Fatal(err)
			}
			if err := bw.Close(); err != nil {
				t.Fatal(err)
			}
			burl := pg.NewDB(t)
			bconn, err := pgx.Connect(ctx, burl)
			if err != nil {
				t.Fatal(err)
			}
			defer bconn.Close(context.Background())
			exec(bconn, schemaSetup, `UPDATE t SET v = 'before' WHERE id = 1`, tc.ddl)
			exec(bconn, tc.dml...)
			if got := readTable(t, bconn, "t"); !maps.EqualFunc(got.rows, stateB.rows, sameRow) {
				t.Fatal("the copy of B differs from B")
			}
			exec(bconn, tc.reverse)
			if _, err := bconn.PgConn().Exec(ctx, bpatch.String()).ReadAll(); err != nil {
				t.Fatalf("apply the patch from B to A: %v\n%s", err, bpatch.String())
			}
			gotA := readTable(t, bconn, "t")
			if len(gotA.rows) != len(stateA.rows) {
				t.Errorf("patched copy of B has %d rows, A %d", len(gotA.rows), len(stateA.rows))
			}
			for k, r := range stateA.rows {
				g, ok := gotA.rows[k]
				if !ok {
					t.Errorf("row %s: in A, not in the patched copy of B", k)
					continue
				}
				if len(g.Names) != len(r.Names) {
					t.Errorf("row %s: patched copy of B %s, A %s", k, rowText(g), rowText(r))
					continue
				}
				for i, n := range r.Names {
					if v, ok := g.Get(n); !ok || !sameValue(v, r.Values[i]) {
						t.Errorf("row %s column %s: patched copy of B %s, A %s", k, n, rowText(g), rowText(r))
					}
				}
			}
		})
	}
}

// TestSchemaCommentHostileNames: column and table names in the patch's
// schema comment cannot end the comment (a newline in a name would turn
// the rest of it into a statement).
func TestSchemaCommentHostileNames(t *testing.T) {
	hostile := "x\nDROP TABLE victim; --"
	var b strings.Builder
	w := NewSQLWriter(&b)
	if err := w.Write(&Event{Type: EventTable, Table: "public.t\r\nDELETE FROM victim;",
		Columns:      []Column{{Name: "id", Type: "int8", Key: true}, {Name: hostile, Type: "text"}},
		SchemaChange: &SchemaChange{Added: []string{hostile}, Dropped: []string{"a\u2028b\x00"}, Retyped: []string{"\"q\""}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "BEGIN;" && l != "SET CONSTRAINTS ALL DEFERRED;" && l != "COMMIT;" && !strings.HasPrefix(l, "-- ") {
			t.Errorf("line outside a comment: %q in\n%s", l, out)
		}
		if strings.ContainsAny(l, "\r\x00") {
			t.Errorf("control character in %q", l)
		}
	}
	for _, want := range []string{`"x\nDROP TABLE victim; --"`, `"""q"""`, "no DDL", "retyped"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %s:\n%s", want, out)
		}
	}
}

// TestSchemaChangeJSON: the hand-written encoder writes schema_change as
// encoding/json does, retyped only when present.
func TestSchemaChangeJSON(t *testing.T) {
	for _, sc := range []*SchemaChange{
		{Added: []string{"w"}, Dropped: []string{}},
		{Added: []string{}, Dropped: []string{"a", "b"}},
		{Added: []string{}, Dropped: []string{}, Retyped: []string{"n"}},
		{Added: []string{"é\n"}, Dropped: []string{"\""}, Retyped: []string{"x", "y"}},
	} {
		e := &Event{Type: EventTable, Table: "public.t", Columns: []Column{{Name: "id", Type: "int8", Key: true}}, SchemaChange: sc}
		if got, want := appendEvent(nil, e), marshalNoHTML(t, e); string(got) != string(want) {
			t.Errorf("appendEvent:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

// TestSchemaChangeOf: columns compared by name, types and modifiers.
func TestSchemaChangeOf(t *testing.T) {
	rel := func(cols ...wal.Column) *wal.Relation {
		return &wal.Relation{Schema: "public", Name: "t", Columns: cols}
	}
	id := wal.Column{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true}
	v := wal.Column{Name: "v", TypeOID: 25, TypeName: "text", TypeMod: -1}
	vc := wal.Column{Name: "v", TypeOID: 1043, TypeName: "varchar", TypeMod: 14}
	vc2 := vc
	vc2.TypeMod = 24
	w := wal.Column{Name: "w", TypeOID: 25, TypeName: "text", TypeMod: -1}
	for _, c := range []struct {
		name                    string
		from, to                *wal.Relation
		added, dropped, retyped []string
		none                    bool
	}{
		{name: "same", from: rel(id, v), to: rel(id, v), none: true},
		{name: "added", from: rel(id, v), to: rel(id, v, w), added: []string{"w"}, dropped: []string{}},
		{name: "dropped", from: rel(id, v, w), to: rel(id, w), added: []string{}, dropped: []string{"v"}},
		{name: "type", from: rel(id, v), to: rel(id, vc), added: []string{}, dropped: []string{}, retyped: []string{"v"}},
		{name: "modifier", from: rel(id, vc), to: rel(id, vc2), added: []string{}, dropped: []string{}, retyped: []string{"v"}},
		{name: "reordered", from: rel(id, v, w), to: rel(id, w, v), none: true},
	} {
		sc := schemaChange(c.from, c.to)
		if c.none {
			if sc != nil {
				t.Errorf("%s: %+v, want none", c.name, sc)
			}
			continue
		}
		if sc == nil || !slices.Equal(sc.Added, c.added) || !slices.Equal(sc.Dropped, c.dropped) || !slices.Equal(sc.Retyped, c.retyped) {
			t.Errorf("%s: %+v, want added %v dropped %v retyped %v", c.name, sc, c.added, c.dropped, c.retyped)
		}
	}
}

// TestDecodeRowWidths: a row with fewer values than columns (stored
// before ADD COLUMN) lacks the trailing names; one with more (stored
// before DROP COLUMN) is an error naming the schema change, never values
// under the wrong names.
func TestDecodeRowWidths(t *testing.T) {
	rel := &wal.Relation{Schema: "public", Name: "t", Columns: []wal.Column{
		{Name: "id", TypeName: "int8", Key: true}, {Name: "v", TypeName: "text"}, {Name: "w", TypeName: "text"}}}
	x := "x"
	r, err := decodeRow(rel, rowenc.Encode([][]byte{[]byte("1"), nil}))
	if err != nil || !sameRow(r, &Row{Names: []string{"id", "v"}, Values: []*string{ptr("1"), nil}}) {
		t.Errorf("short row: %s, %v", rowText(r), err)
	}
	r, err = decodeRow(rel, rowenc.Encode([][]byte{[]byte("1"), nil, []byte(x)}))
	if err != nil || !sameRow(r, &Row{Names: []string{"id", "v", "w"}, Values: []*string{ptr("1"), nil, &x}}) {
		t.Errorf("full row: %s, %v", rowText(r), err)
	}
	_, err = decodeRow(rel, rowenc.Encode([][]byte{[]byte("1"), nil, []byte(x), []byte("4")}))
	if !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), "public.t") || !strings.Contains(err.Error(), "id, v, w") {
		t.Errorf("long row: %v, want an error naming the schema change", err)
	}
}

func ptr(s string) *string { return &s }

// TestMergeSchemaError: sides with other columns are named with the
// columns added and dropped; absent tables and retyped columns are not
// errors.
func TestMergeSchemaError(t *testing.T) {
	col := func(n, typ string) wal.Column { return wal.Column{Name: n, TypeName: typ} }
	side := func(role string, exists bool, cols ...wal.Column) mergeSide {
		return mergeSide{role: role, ref: "ref-" + role, t: &tree{exists: exists,
			rel: &wal.Relation{Schema: "public", Name: "t", Columns: cols}}}
	}
	id, v, w, vInt := col("id", "int8"), col("v", "text"), col("w", "text"), col("v", "int4")
	for _, c := range []struct {
		name  string
		sides []mergeSide
		want  []string // substrings of the error; nil: no error
	}{
		{name: "same", sides: []mergeSide{side("base", true, id, v), side("ours", true, id, v), side("theirs", true, id, v)}},
		{name: "retyped", sides: []mergeSide{side("base", true, id, v), side("ours", true, id, vInt), side("theirs", true, id, v)}},
		{name: "absent side", sides: []mergeSide{side("base", false, id, v, w), side("ours", true, id, v), side("theirs", true, id, v)}},
		{name: "theirs before ADD COLUMN", sides: []mergeSide{side("base", true, id, v, w), side("ours", true, id, v, w), side("theirs", true, id, v)},
			want: []string{"public.t", "base ref-base", "theirs ref-theirs", "dropped w", "revert"}},
		{name: "ours after DROP and ADD", sides: []mergeSide{side("base", true, id, v), side("ours", true, id, w), side("theirs", true, id, v)},
			want: []string{"ours ref-ours", "columns added w", "dropped v"}},
	} {
		err := mergeSchemaError("public.t", c.sides...)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrSchemaChanged) || !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want ErrSchemaChanged and ErrBadRequest", c.name, err)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q lacks %q", c.name, err, s)
			}
		}
	}
}

// TestTableWriterSchemaChange: the table format names the schema change
// and keeps a dropped column's old values visible after the newer
// version's columns.
func TestTableWriterSchemaChange(t *testing.T) {
	var b strings.Builder
	w, err := NewDiffWriter("table", &b)
	if err != nil {
		t.Fatal(err)
	}
	events := []*Event{
		{Type: EventTable, Table: "public.t", FromRef: "0/1", ToRef: "0/2",
			Columns:      []Column{{Name: "id", Type: "int8", Key: true}, {Name: "v", Type: "text"}, {Name: "w", Type: "text"}},
			SchemaChange: &SchemaChange{Added: []string{"w"}, Dropped: []string{"gone"}}},
		{Type: EventRow, Table: "public.t", Op: OpChanged, Changed: []string{"v"},
			From: &Row{Names: []string{"id", "v", "gone"}, Values: []*string{ptr("2"), ptr("old"), ptr("g2")}},
			To:   &Row{Names: []string{"id", "v", "w"}, Values: []*string{ptr("2"), ptr("new"), nil}}},
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	fields := func(i int) []string {
		if i >= len(lines) {
			return nil
		}
		return strings.Fields(lines[i])
	}
	want := [][]string{
		{"diff", "public.t:", "0/1", "→", "0/2"},
		{"schema:", "columns", "added", "[w],", "dropped", "[gone]"},
		{"id", "v", "w", "gone"},
		{"<", "2", "old", "(no", "column)", "g2"},
		{">", "2", "new", "NULL", "(no", "column)"},
	}
	for i, wl := range want {
		if got := fields(i); !slices.Equal(got, wl) {
			t.Errorf("line %d: %q, want %q\n%s", i, got, wl, b.String())
		}
	}
}

var schemaBenchRows = flag.Int("history.schema.rows", 0, "run TestSchemaDiffBench on a table of this many rows (0: skip)")

// TestSchemaDiffBench measures what a schema change costs a diff: the
// same 100 single-row updates, once between two versions with the same
// columns (the Prolly diff skips equal subtrees) and once across ADD
// COLUMN (every stored row differs: both versions are read whole and
// each row pair is compared by name). go test ./history -run
// TestSchemaDiffBench -history.schema.rows 1000000 -v
func TestSchemaDiffBench(t *testing.T) {
	n := *schemaBenchRows
	if n <= 0 {
		t.Skip("-history.schema.rows not set")
	}
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE t (id int8 PRIMARY KEY, v text, n int4)`,
		fmt.Sprintf(`INSERT INTO t SELECT i, 'value ' || i, i FROM generate_series(1, %d) i`, n))
	f := follow(t, url, conn, "schema_bench", "public.t")
	update := func(prefix string) {
		exec(fmt.Sprintf(`UPDATE t SET v = '%s' || id WHERE id %% %d = 1`, prefix, max(1, n/100)))
	}
	exec(`UPDATE t SET n = n WHERE id = 1`) // a commit: the copy alone is no version
	v0 := f.sync()
	update("u")
	v1 := f.sync()
	exec(`ALTER TABLE t ADD COLUMN w text`)
	update("x")
	f.sync()
	exec(`UPDATE t SET n = n WHERE id = 1`)
	v2 := f.sync()
	svc := New(f.db, f.m)
	measure := func(name, from, to string, stat bool) {
		t.Helper()
		w, _ := NewDiffWriter("json", io.Discard)
		start := time.Now()
		sum, err := svc.Diff(ctx, DiffRequest{From: from, To: to, Stat: stat}, w.Write)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		t.Logf("%d rows, %-28s %4d rows differ  %v", n, name, sum.Rows, time.Since(start).Round(time.Millisecond))
	}
	for range 2 { // the second round reads from a warm cache
		measure("same columns, JSON", v0, v1, false)
		measure("same columns, --stat", v0, v1, true)
		measure("across ADD COLUMN, JSON", v1, v2, false)
		measure("across ADD COLUMN, --stat", v1, v2, true)
	}
}

// TestNameMatchAgreesWithRowEvent: the allocation-free comparison that
// skips rows equal by name agrees with the row events' changed columns,
// on random pairs of layouts (columns kept, dropped, added, reordered)
// and rows (NULL, empty, equal and different values, rows shorter than
// their layout).
func TestNameMatchAgreesWithRowEvent(t *testing.T) {
	rng := seeded(t)
	names := []string{"a", "b", "c", "d", "e", "f"}
	layout := func() *wal.Relation {
		r := &wal.Relation{Schema: "public", Name: "t"}
		for _, i := range rng.Perm(len(names))[:1+rng.IntN(len(names))] {
			r.Columns = append(r.Columns, wal.Column{Name: names[i], TypeName: "text"})
		}
		return r
	}
	vals := []string{"", "x", "y"}
	row := func(rel *wal.Relation, like map[string][]byte) ([]byte, map[string][]byte) {
		n := len(rel.Columns)
		if rng.IntN(4) == 0 {
			n = rng.IntN(n + 1) // stored before trailing columns were added
		}
		out := map[string][]byte{}
		var cols [][]byte
		for _, c := range rel.Columns[:n] {
			var v []byte
			if lv, ok := like[c.Name]; ok && rng.IntN(3) > 0 {
				v = lv
			} else if rng.IntN(3) > 0 {
				v = []byte(vals[rng.IntN(len(vals))])
			}
			cols = append(cols, v)
			out[c.Name] = v
		}
		return rowenc.Encode(cols), out
	}
	for i := range 5000 {
		from, to := layout(), layout()
		if rng.IntN(4) == 0 {
			to = from
		}
		f, fm := row(from, nil)
		tv, _ := row(to, fm)
		eq, err := newNameMatch(from, to).equal(f, tv)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		e, err := rowEvent("public.t", &tree{rel: from}, &tree{rel: to}, prolly.DiffEntry{Kind: prolly.Changed, From: f, To: tv})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if eq != (len(e.Changed) == 0) {
			t.Fatalf("case %d: equal by name %v, row event changed %v\nfrom %s\nto   %s", i, eq, e.Changed, rowText(e.From), rowText(e.To))
		}
	}
	// A row wider than its layout is the schema error on both paths.
	narrow := &wal.Relation{Schema: "public", Name: "t", Columns: []wal.Column{{Name: "a"}}}
	wide := rowenc.Encode([][]byte{[]byte("1"), []byte("2")})
	if _, err := newNameMatch(narrow, narrow).equal(wide, wide); !errors.Is(err, ErrSchemaChanged) {
		t.Errorf("wide row: %v, want ErrSchemaChanged", err)
	}
}

// TestDiffSchemaWhereTableAbsent: a table copied after the older version
// and re-copied since under other columns (a resync after ALTER TABLE).
// Where it did not exist it reads as empty, with no schema of its own:
// the diff reports its rows added (or removed, the other way) under the
// columns of the version that has them, and no schema change. (A copy
// lands as a version of its own at its LSN once the stream reaches it.)
func TestDiffSchemaWhereTableAbsent(t *testing.T) {
	ctx := t.Context()
	f := historytest.New(t)
	a := historytest.Rel(1, "public", "a", 1, [2]string{"id", "int8"})
	f.CreateTable(a, nil)
	commit := func(id string) string {
		return f.Commit(func(tx *historytest.Tx) { tx.Insert(a, []*string{ptr(id)}) }).EndLSN.String()
	}
	v0 := commit("0")
	// A copy lands as a version of its own at its LSN (mirror/landing.go):
	// b is absent at v0 and present from v1, the first copy's landing.
	old := historytest.Rel(2, "public", "b", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(old, [][]*string{{ptr("1"), ptr("x")}, {ptr("2"), nil}})
	v1 := f.LSN.String()
	v2 := commit("2")
	cur := historytest.Rel(2, "public", "b", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"w", "text"})
	if err := f.Mirror.MarkResync(ctx, "public.b", "ALTER TABLE b ADD COLUMN w text"); err != nil {
		t.Fatal(err)
	}
	f.CreateTable(cur, [][]*string{{ptr("1"), ptr("x"), nil}, {ptr("2"), nil, ptr("set")}})
	v3 := f.LSN.String() // the re-copy's landing
	commit("3")
	svc := New(f.DB, f.Mirror)
	diff := func(from, to string) (*Event, []*Event) {
		t.Helper()
		var head *Event
		var rows []*Event
		if _, err := svc.Diff(ctx, DiffRequest{From: from, To: to, Tables: []string{"public.b"}}, func(e *Event) error {
			if e.Type == EventTable {
				head = e
			} else {
				rows = append(rows, e)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return head, rows
	}
	colNames := func(e *Event) []string {
		var out []string
		for _, c := range e.Columns {
			out = append(out, c.Name)
		}
		return out
	}
	for _, c := range []struct {
		from, to string
		op       string
		cols     []string
	}{{v0, v1, OpAdded, []string{"id", "v"}}, {v1, v0, OpRemoved, []string{"id", "v"}}} {
		head, rows := diff(c.from, c.to)
		if head.SchemaChange != nil || !slices.Equal(colNames(head), c.cols) {
			t.Errorf("diff %s %s: columns %v, schema change %+v; want %v and none", c.from, c.to, colNames(head), head.SchemaChange, c.cols)
		}
		if len(rows) != 2 || rows[0].Op != c.op || rows[1].Op != c.op {
			t.Errorf("diff %s %s: %d row events, want 2 %s", c.from, c.to, len(rows), c.op)
		}
	}
	// Between the two copies: the schema change, and only row 2 (its new
	// column set) differs by name.
	head, rows := diff(v2, v3)
	if sc := head.SchemaChange; sc == nil || !slices.Equal(sc.Added, []string{"w"}) {
		t.Errorf("diff across the re-copy: schema change %+v, want added [w]", sc)
	}
	if len(rows) != 1 || *rows[0].Key.Values[0] != "2" || !slices.Equal(rows[0].Changed, []string{"w"}) {
		t.Errorf("diff across the re-copy: %d row events, want row 2 changed in w", len(rows))
	}
}
