package verify

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// BenchmarkPostgresLevel0 measures, on a table shaped like verify.md §3's
// (id bigint, two md5 texts, an int score), the PostgreSQL side of level 0
// for each hash and bucket scheme, serial, against count(*) and a
// data-diff-style md5 of the row's text. 1M rows (verify.md used 10M)
// keep a run to a few minutes on this machine. ns/row is wall time.
func BenchmarkPostgresLevel0(b *testing.B) {
	const rows = 1_000_000
	url := pg.NewDB(b)
	conn := connect(b, url, nil)
	mustExec(b, conn, fmt.Sprintf(`CREATE TABLE t (id bigint PRIMARY KEY, k text, v text, score int);
INSERT INTO t SELECT i, left(md5(i::text), 24), left(md5((i+1)::text) || 'x', 27), (hashint8(i) & 1023)::int
  FROM generate_series(1, %d) i`, rows))
	mustExec(b, conn, "VACUUM (ANALYZE, FREEZE) t")
	mustExec(b, conn, "SET max_parallel_workers_per_gather = 0")
	tbl, err := LoadTable(b.Context(), conn, "public", "t")
	if err != nil {
		b.Fatal(err)
	}
	var bounds []string
	for i := int64(1); i < rows; i += 512 {
		bounds = append(bounds, fmt.Sprint(i))
	}
	queries := []struct {
		name string
		q    func() (string, error)
	}{
		{"count+sum", func() (string, error) { return "SELECT count(*), sum(score) FROM t", nil }},
		{"datadiff-md5-rowtext", func() (string, error) {
			return "SELECT count(*), sum(('x' || substring(md5(t::text), 17))::bit(64)::bigint::numeric) FROM t", nil
		}},
	}
	for _, id := range rowhash.All() {
		queries = append(queries,
			struct {
				name string
				q    func() (string, error)
			}{"fixed512-" + id.String(), func() (string, error) { return BucketDigestQuery(tbl, id, 512) }},
			struct {
				name string
				q    func() (string, error)
			}{"boundary512-" + id.String(), func() (string, error) { return BoundaryDigestQuery(tbl, id, bounds) }},
		)
	}
	queries = append(queries, struct {
		name string
		q    func() (string, error)
	}{"hash2048-pghash64", func() (string, error) { return HashBucketDigestQuery(tbl, rowhash.PGHash64, 11) }})
	for _, c := range queries {
		b.Run(c.name, func(b *testing.B) {
			q, err := c.q()
			if err != nil {
				b.Fatal(err)
			}
			cpu0 := backendCPU(b, conn.PID())
			for b.Loop() {
				if _, err := simpleQuery(b.Context(), conn, q); err != nil {
					b.Fatal(err)
				}
			}
			cpu := backendCPU(b, conn.PID()) - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/rows, "cpu-ns/row")
		})
	}
}

// backendCPU returns the user+system CPU time of a server backend, from
// /proc (Linux; the machine is shared, so CPU time is steadier than wall
// time). Clock ticks are assumed to be 100 Hz, Linux's USER_HZ.
func backendCPU(b *testing.B, pid uint32) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("backend CPU time unavailable: %v", err)
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the whole line.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("parse /proc/%d/stat: %v %v", pid, err1, err2)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
