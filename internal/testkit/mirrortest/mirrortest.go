// Package mirrortest holds the comparisons that end-to-end tests make
// between PostgreSQL and a mirror's data directory: both sides rendered as
// sorted vrow1 rows, so equal slices mean equal tables.
package mirrortest

import (
	"context"
	"slices"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TB is the part of testing.TB used here.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// PGRows returns every row of table as PostgreSQL prints it under the
// pinned session settings, vrow1-encoded and sorted.
func PGRows(t TB, url, table string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := replication.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rr := conn.PgConn().ExecParams(ctx, "SELECT * FROM "+table, nil, nil, nil, nil)
	var out []string
	for rr.NextRow() {
		vals := make([][]byte, len(rr.Values()))
		for i, v := range rr.Values() {
			if v != nil {
				vals[i] = append([]byte{}, v...)
			}
		}
		out = append(out, string(rowenc.Encode(vals)))
	}
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Open opens a stopped sidecar's data directory with the store's and the
// mirror's defaults; close closes both.
func Open(t TB, dataDir string) (db *store.DB, m *mirror.Mirror, close func()) {
	t.Helper()
	db, err := store.Open(store.Options{Dir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	m, err = mirror.Open(context.Background(), mirror.Options{DB: db})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db, m, func() {
		m.Close(context.Background())
		db.Close()
	}
}

// MirrorRows opens a stopped sidecar's data directory and returns its
// durable LSN and the rows of table at it, sorted.
func MirrorRows(t TB, dataDir, table string) (wal.LSN, []string) {
	t.Helper()
	ctx := context.Background()
	_, m, close := Open(t, dataDir)
	defer close()
	tr, err := m.TreeAt(ctx, table, m.Durable())
	if err != nil {
		t.Fatal(err)
	}
	cur, err := tr.Scan(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for cur.Next() {
		rows = append(rows, string(cur.Value()))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return m.Durable(), rows
}
