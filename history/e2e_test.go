package history

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	pgfollow "github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestRevertEndToEnd follows a real PostgreSQL database through logical
// replication into a mirror, runs a bad DELETE and UPDATE, then later
// writes to other rows and to some of the same rows, and applies
// `revert <before> <after>`'s SQL patch to PostgreSQL. The table must then
// equal the three-way column-wise merge of the three states read from
// PostgreSQL itself, and the reported conflicts must be the rows both
// touched in the same column.
func TestRevertEndToEnd(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE "Accounts" (id int8 PRIMARY KEY, owner text, balance numeric(12,2), note text)`,
		`INSERT INTO "Accounts" SELECT i, 'owner ' || i, i * 1.25, CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN $$'); DROP TABLE "Accounts"; --$$ ELSE E'back\\slash' END FROM generate_series(1, 300) i`)
	tn, err := wal.ParseTableName(`public."Accounts"`)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	filter := wal.NewCopiedAt()
	m, err := mirror.Open(ctx, mirror.Options{DB: db, CopiedAt: filter, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	run, err := pgfollow.Start(ctx, pgfollow.Config{ConnString: url, Slot: "main", Publication: "pub", Tables: []wal.TableName{tn},
		Target: m, CopiedAt: filter, DataDir: t.TempDir(), Copy: replication.CopyOptions{Workers: 1},
		Stream: func(c *replication.StreamConfig) {
			c.MinBackoff, c.MaxBackoff = 50*time.Millisecond, 500*time.Millisecond
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := run.Stop(); err != nil {
			t.Errorf("stream: %v", err)
		}
	}()
	st := run.Streamer()
	// sync waits until the mirror has every commit so far and returns the
	// server's WAL position: a ref for the state PostgreSQL has now.
	sync := func() string {
		t.Helper()
		var s string
		if err := conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
			t.Fatal(err)
		}
		want, _ := wal.ParseLSN(s)
		for deadline := time.Now().Add(60 * time.Second); m.Durable() < want && st.Stats().Flushed < want; {
			if err := m.Err(); err != nil || time.Now().After(deadline) {
				t.Fatalf("mirror at %s, waiting for %s: %v", m.Durable(), want, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return s
	}
	read := func() map[string][]*string {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT id, owner, balance, note FROM "Accounts"`, pgx.QueryResultFormats{pgx.TextFormatCode})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]*string{}
		for rows.Next() {
			r := make([]*string, 4)
			if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
				t.Fatal(err)
			}
			out[*r[0]] = r
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		return out
	}

	before, theirs := sync(), read()
	exec(`BEGIN`, `DELETE FROM "Accounts" WHERE id % 10 = 0`, `UPDATE "Accounts" SET balance = 0, note = 'oops' WHERE id % 7 = 0`, `COMMIT`)
	after, base := sync(), read()
	exec(`UPDATE "Accounts" SET balance = balance + 1 WHERE id % 11 = 0 AND id % 7 <> 0`, // other rows
		`UPDATE "Accounts" SET owner = 'new owner' WHERE id % 7 = 0 AND id % 2 = 0`,   // same rows, other column: merges
		`UPDATE "Accounts" SET balance = 99 WHERE id IN (7, 21)`,                      // same rows, same column: conflicts
		`DELETE FROM "Accounts" WHERE id = 49`,                                        // deleted after the bad update: conflict
		`INSERT INTO "Accounts" VALUES (50, 'again', 1, NULL), (1000, 'new', 2, 'x')`, // re-inserted after the delete: conflict
	)
	sync()
	ours := read()
	want, wantConflicts := mergeRowsModel(base, ours, theirs)

	svc := New(db, m)
	var patch strings.Builder
	w := NewSQLWriter(&patch)
	var conflicts []string
	sum, err := svc.Revert(ctx, RevertRequest{From: before, To: after}, func(e *Event) error {
		if e.Type == EventConflict {
			conflicts = append(conflicts, *e.Key.Values[0])
		}
		return w.Write(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(conflicts)
	if !slices.Equal(conflicts, wantConflicts) || sum.Conflicts != len(wantConflicts) {
		t.Errorf("conflicts %v, want %v", conflicts, wantConflicts)
	}
	if len(wantConflicts) == 0 || sum.Changes < 40 {
		t.Fatalf("the scenario lost its teeth: %d conflicts, %d changes", len(wantConflicts), sum.Changes)
	}
	if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
		t.Fatalf("apply the revert patch: %v\n%s", err, patch.String())
	}
	got := read()
	if !maps.EqualFunc(got, want, func(a, b []*string) bool { return slices.EqualFunc(a, b, sameValue) }) {
		for k, r := range want {
			if g, ok := got[k]; !ok || !slices.EqualFunc(g, r, sameValue) {
				t.Errorf("row %s: PostgreSQL has %v, want %v", k, fmtRow(g), fmtRow(r))
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("row %s should not exist", k)
			}
		}
	}
	// The mirror follows the patch too: HEAD now equals PostgreSQL.
	now := sync()
	var rest []string
	if _, err := svc.Diff(ctx, DiffRequest{From: now, To: "HEAD"}, func(e *Event) error {
		if e.Type == EventRow {
			rest = append(rest, e.Op)
		}
		return nil
	}); err != nil || len(rest) != 0 {
		t.Errorf("diff of the applied state to HEAD: %v %v", rest, err)
	}
}

// mergeRowsModel is the column-wise three-way merge on rows keyed by id,
// for the end-to-end test; conflicts are sorted ids.
func mergeRowsModel(base, ours, theirs map[string][]*string) (map[string][]*string, []string) {
	out := maps.Clone(ours)
	var conflicts []string
	keys := map[string]bool{}
	for _, m := range []map[string][]*string{base, ours, theirs} {
		for k := range m {
			keys[k] = true
		}
	}
	same := func(a, b []*string) bool {
		return (a == nil) == (b == nil) && slices.EqualFunc(a, b, sameValue)
	}
	for k := range keys {
		b, o, th := base[k], ours[k], theirs[k]
		switch {
		case same(o, th), same(th, b):
		case same(o, b):
			if th == nil {
				delete(out, k)
			} else {
				out[k] = th
			}
		case b != nil && o != nil && th != nil:
			r := make([]*string, len(o))
			ok := true
			for i := range o {
				switch {
				case sameValue(o[i], b[i]):
					r[i] = th[i]
				case sameValue(th[i], b[i]), sameValue(o[i], th[i]):
					r[i] = o[i]
				default:
					ok = false
				}
			}
			if ok {
				out[k] = r
			} else {
				conflicts = append(conflicts, k)
			}
		default:
			conflicts = append(conflicts, k)
		}
	}
	slices.Sort(conflicts)
	return out, conflicts
}
