package replication

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// pg is the package's cluster. Small logical_decoding_work_mem makes
// modest transactions stream (protocol 2 Stream Start/Stop/Commit/Abort);
// a short wal_sender_timeout makes a reader that fails to answer
// keepalives fail fast.
var pg *pgtest.Cluster

var clusterOpts = pgtest.Options{Settings: map[string]string{
	"logical_decoding_work_mem": "64kB",
	"wal_sender_timeout":        "4s",
}}

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(leakCheck{m}, clusterOpts, func(c *pgtest.Cluster) { pg = c }))
}

// leakCheck runs the tests, then fails the package if any goroutine
// started during them is still running: every Streamer, copy worker and
// test helper must have been stopped by its owner.
type leakCheck struct{ m *testing.M }

func (l leakCheck) Run() int {
	before := goleak.IgnoreCurrent() // the cluster's own goroutines
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(before); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left running after the tests: %v\n", err)
			return 1
		}
	}
	return code
}

// sqlConn opens an ordinary connection for test setup.
func sqlConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func mustExec(t *testing.T, conn *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, sql := range sqls {
		if _, err := conn.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// rowsOf reads a query's rows as value lists rendered under the pinned
// session settings, through COPY-independent text output (::text), the
// reference the copy and the stream are compared with.
func rowsOf(t *testing.T, url, table string, cols []string) []string {
	t.Helper()
	conn, err := Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "coalesce('''' || replace(" + wal.QuoteIdent(c) + "::text, '''', '''''') || '''', 'NULL')"
	}
	rows, err := conn.Query(t.Context(), "SELECT "+strings.Join(exprs, " || ',' || ")+" FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// renderRow renders values as rowsOf does.
func renderRow(vals []wal.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v.Kind {
		case wal.Null:
			parts[i] = "NULL"
		case wal.Unchanged:
			parts[i] = "<unchanged>"
		default:
			parts[i] = "'" + strings.ReplaceAll(string(v.Bytes), "'", "''") + "'"
		}
	}
	return strings.Join(parts, ",")
}

// memCopySink collects copied rows per table.
type memCopySink struct {
	mu      sync.Mutex
	rows    map[string][]string
	ranges  map[string][]wal.BlockRange
	copied  map[string]wal.LSN
	rels    map[string]*wal.Relation
	aborted int
}

func newMemCopySink() *memCopySink {
	return &memCopySink{rows: map[string][]string{}, ranges: map[string][]wal.BlockRange{}, copied: map[string]wal.LSN{}, rels: map[string]*wal.Relation{}}
}

type memRowWriter struct {
	s     *memCopySink
	table string
	rows  []string
}

func (s *memCopySink) CopyRange(_ context.Context, rel *wal.Relation, r wal.BlockRange) (wal.RowWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ranges[rel.QualifiedName()] = append(s.ranges[rel.QualifiedName()], r)
	s.rels[rel.QualifiedName()] = rel
	return &memRowWriter{s: s, table: rel.QualifiedName()}, nil
}

func (s *memCopySink) TableCopied(_ context.Context, rel *wal.Relation, at wal.LSN) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copied[rel.QualifiedName()] = at
	return nil
}

func (w *memRowWriter) WriteRow(vals []wal.Value) error {
	w.rows = append(w.rows, renderRow(vals))
	return nil
}

func (w *memRowWriter) Close() error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.rows[w.table] = append(w.s.rows[w.table], w.rows...)
	return nil
}

func (w *memRowWriter) Abort() {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.aborted++
}

func (s *memCopySink) sorted(table string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.rows[table]...)
	sort.Strings(out)
	return out
}

// withParam adds a connection parameter to a postgres:// URL.
func withParam(t *testing.T, raw, key, value string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	// Spaces as %20: pgx takes a '+' in a URL literally.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String()
}
