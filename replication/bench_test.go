package replication

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/wal"
)

// The benchmarks use their own cluster with production-like settings
// (default logical_decoding_work_mem and wal_sender_timeout) and the
// baseline's table from notes/replication.md §9.

const benchSchema = `CREATE TABLE t (id bigint PRIMARY KEY, k bytea NOT NULL, v text NOT NULL, score int NOT NULL)`

func benchLoad(n int) string {
	return fmt.Sprintf(`INSERT INTO t SELECT g, substring(sha256(int8send(g)) from 1 for 24),
		substr(md5(g::text)||md5(g::text),1,27), ((g::bigint*7919) %% 1000003)::int
		FROM generate_series(1, %d) g`, n)
}

func benchCluster(b *testing.B) (*pgtest.Cluster, string) {
	b.Helper()
	c, err := pgtest.Start(context.Background(), pgtest.Options{Settings: map[string]string{
		"shared_buffers": "1GB", "max_wal_size": "8GB"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Stop() })
	url, err := c.CreateDB(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return c, url
}

// countSink counts and drops rows; it is durable at once.
type countSink struct {
	rows, txns atomic.Int64
	durable    atomic.Uint64
}

func (s *countSink) Begin(context.Context, wal.TxnInfo) error                  { return nil }
func (s *countSink) Relation(context.Context, *wal.Relation) error             { return nil }
func (s *countSink) Change(context.Context, *wal.Change) error                 { s.rows.Add(1); return nil }
func (s *countSink) Abort(context.Context, wal.TxnInfo) error                  { return nil }
func (s *countSink) Durable() wal.LSN                                          { return wal.LSN(s.durable.Load()) }
func (s *countSink) TableCopied(context.Context, *wal.Relation, wal.LSN) error { return nil }
func (s *countSink) Commit(_ context.Context, txn wal.TxnInfo) error {
	s.txns.Add(1)
	s.durable.Store(uint64(txn.EndLSN))
	return nil
}
func (s *countSink) CopyRange(context.Context, *wal.Relation, wal.BlockRange) (wal.RowWriter, error) {
	return countWriter{s}, nil
}

type countWriter struct{ s *countSink }

func (w countWriter) WriteRow([]wal.Value) error { w.s.rows.Add(1); return nil }
func (w countWriter) Close() error               { return nil }
func (w countWriter) Abort()                     {}

// BenchmarkCopy1M copies 1M rows (the baseline table) with 1 and 4
// workers under an exported snapshot.
func BenchmarkCopy1M(b *testing.B) {
	_, url := benchCluster(b)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, sql := range []string{benchSchema, benchLoad(1_000_000), "VACUUM ANALYZE t"} {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			b.Fatal(err)
		}
	}
	// The baseline: PostgreSQL's COPY TO STDOUT alone, one connection,
	// output discarded.
	b.Run("raw-copy-to-stdout", func(b *testing.B) {
		for b.Loop() {
			t0 := time.Now()
			if _, err := conn.PgConn().CopyTo(context.Background(), io.Discard, "COPY t TO STDOUT"); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(1e6/time.Since(t0).Seconds(), "rows/s")
		}
	})
	// ranges=0 is the automatic sizing; 16384 the former fixed default
	// (one range for this ~100 MiB table).
	for _, c := range []struct {
		workers int
		ranges  uint32
	}{{1, 2048}, {4, 2048}, {4, 16384}, {4, 0}} {
		workers := c.workers
		b.Run(fmt.Sprintf("workers=%d/range-blocks=%d", workers, c.ranges), func(b *testing.B) {
			for b.Loop() {
				snapConn, err := pgx.Connect(context.Background(), url)
				if err != nil {
					b.Fatal(err)
				}
				var name string
				if _, err := snapConn.Exec(context.Background(), "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
					b.Fatal(err)
				}
				if err := snapConn.QueryRow(context.Background(), "SELECT pg_export_snapshot()").Scan(&name); err != nil {
					b.Fatal(err)
				}
				sink := &countSink{}
				t0 := time.Now()
				err = Copy(context.Background(), CopyOptions{ConnString: url, Workers: workers, RangeBlocks: c.ranges},
					Snapshot{Name: name}, []wal.TableName{{Schema: "public", Name: "t"}}, sink)
				if err != nil {
					b.Fatal(err)
				}
				el := time.Since(t0)
				snapConn.Close(context.Background())
				if sink.rows.Load() != 1_000_000 {
					b.Fatalf("copied %d rows", sink.rows.Load())
				}
				b.ReportMetric(float64(sink.rows.Load())/el.Seconds(), "rows/s")
			}
		})
	}
}

// updateRows sizes the big transaction of BenchmarkStreamCatchUp (the
// issue's 5M-row case: -replication.update-rows=5000000).
var updateRows = flag.Int("replication.update-rows", 500_000, "rows updated by one transaction in BenchmarkStreamCatchUp")

// BenchmarkStreamCatchUp measures, with the stream running, the time from
// the COMMIT of one 500k-row UPDATE (streamed by the server, spooled and
// replayed here) to its Commit at the sink; and the catch-up of 10k
// single-row transactions written while the stream was stopped.
func BenchmarkStreamCatchUp(b *testing.B) {
	cluster, url := benchCluster(b)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, sql := range []string{benchSchema, benchLoad(max(1_000_000, 2**updateRows)), "VACUUM ANALYZE t"} {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := EnsurePublication(context.Background(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.t"}}); err != nil {
		b.Fatal(err)
	}
	snap, err := CreateSlot(context.Background(), url, "bench")
	if err != nil {
		b.Fatal(err)
	}
	snap.Close(context.Background())
	sink := &countSink{}
	sink.durable.Store(uint64(snap.LSN))
	var st *Streamer
	run := func() (stop func()) {
		var err error
		st, err = NewStreamer(StreamConfig{ConnString: url, Slot: "bench", Publication: "pub", Sink: sink})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- st.Run(ctx) }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run(fmt.Sprintf("update%d", *updateRows), func(b *testing.B) {
		for b.Loop() {
			// A second slot, for the raw decode time of the same WAL by
			// pg_recvlogical (protocol 2, streaming), measured afterwards.
			var rawStart string
			if err := conn.QueryRow(context.Background(),
				"SELECT lsn::text FROM pg_create_logical_replication_slot('raw', 'pgoutput')").Scan(&rawStart); err != nil {
				b.Fatal(err)
			}
			stop := run()
			rows0, txns0 := sink.rows.Load(), sink.txns.Load()
			if _, err := conn.Exec(context.Background(), "UPDATE t SET score = score + 1, v = upper(v) WHERE id % 2 = 0 AND id <= $1", 2**updateRows); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			var peak uint64
			var ms runtime.MemStats
			received0 := st.Stats().Received
			var recvAt time.Duration
			for sink.txns.Load() == txns0 {
				time.Sleep(20 * time.Millisecond)
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				if recvAt == 0 && st.Stats().Received > received0 {
					recvAt = time.Since(t0)
				}
			}
			el := time.Since(t0)
			if recvAt == 0 {
				recvAt = el
			}
			// Split: until the server's Stream Commit arrived (decoding),
			// then the replay of the spool into the sink.
			b.ReportMetric(recvAt.Seconds(), "s-until-stream-commit")
			stop()
			if got := sink.rows.Load() - rows0; got != int64(*updateRows) {
				b.Fatalf("received %d rows", got)
			}
			b.ReportMetric(el.Seconds(), "s-after-commit")
			b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")

			t1 := time.Now()
			tool, err := cluster.Tool("pg_recvlogical")
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(tool, "-d", cluster.URL("bench"),
				"--slot", "raw", "--start", "-E", wal.LSN(sink.durable.Load()).String(), "-f", "/dev/null",
				"-o", "proto_version=2", "-o", "streaming=on", "-o", "publication_names=pub", "--no-loop")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("pg_recvlogical: %v: %s", err, out)
			}
			b.ReportMetric(time.Since(t1).Seconds(), "s-raw-decode")
			if _, err := conn.Exec(context.Background(), "SELECT pg_drop_replication_slot('raw')"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("catchup10k", func(b *testing.B) {
		for b.Loop() {
			txns0 := sink.txns.Load()
			for i := 0; i < 10_000; i++ {
				if _, err := conn.Exec(context.Background(), "UPDATE t SET score = score + 1 WHERE id = $1", i*97%1_000_000+1); err != nil {
					b.Fatal(err)
				}
			}
			t0 := time.Now()
			stop := run()
			for sink.txns.Load()-txns0 < 10_000 {
				time.Sleep(time.Millisecond)
			}
			el := time.Since(t0)
			stop()
			b.ReportMetric(10_000/el.Seconds(), "txn/s")
		}
	})
}
