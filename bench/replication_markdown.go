package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ReplicationResultName is the report's file name for a run started at t.
func ReplicationResultName(t time.Time) string {
	return "replication-" + t.UTC().Format("2006-01-02") + ".md"
}

// replTarget is one row of the summary table: a sidecar figure, the
// PostgreSQL figure it is judged against, and the target on their ratio.
type replTarget struct {
	Cell     string
	PG       string
	Sidecar  string
	Ratio    float64 // PG / sidecar for speed-ups; sidecar / PG for "within"
	RatioFmt string
	Target   string
	Met      bool
	Note     string
}

// Targets judges the targets for one size.
func (s *ReplSizeResult) Targets() []replTarget {
	var out []replTarget
	speedup := func(cell string, pg, sc *Cell, want float64, note string) {
		if len(pg.Samples) == 0 || len(sc.Samples) == 0 {
			return
		}
		x := pg.Median().Seconds() / sc.Median().Seconds()
		out = append(out, replTarget{Cell: cell, PG: fmtCell3(pg), Sidecar: fmtCell3(sc), Ratio: x,
			RatioFmt: fmt.Sprintf("%.2f× faster", x), Target: fmt.Sprintf("≥ %.1f× faster", want), Met: x >= want, Note: note})
	}
	within := func(cell string, pg, sc *Cell, want float64, note string) {
		if len(pg.Samples) == 0 || len(sc.Samples) == 0 {
			return
		}
		x := sc.Median().Seconds() / pg.Median().Seconds()
		out = append(out, replTarget{Cell: cell, PG: fmtCell3(pg), Sidecar: fmtCell3(sc), Ratio: x,
			RatioFmt: fmt.Sprintf("%.2f× its time", x), Target: fmt.Sprintf("≤ %.1f× its time", want), Met: x <= want, Note: note})
	}
	speedup("initial copy vs built-in subscriber sync", &s.SubSync, &s.SidecarCopy, 2.5, "CREATE SUBSCRIPTION → all tables r; daemon.Run on an empty data dir → all tables ready")
	within("initial copy vs `COPY t TO STDOUT` alone", &s.CopyOut, &s.SidecarCopy, 2.0, "")
	within(fmt.Sprintf("%s-row UPDATE vs raw decode (pg_recvlogical v2 streaming)", fmtRecords(int(s.UpdateRows))), &s.RawDecode, &s.SidecarUpdate, 1.3,
		"sidecar live: commit → marker visible; pg_recvlogical: whole WAL range after the fact")
	speedup(fmt.Sprintf("%s-row UPDATE vs built-in subscriber (both live)", fmtRecords(int(s.UpdateRows))), &s.SubUpdate, &s.SidecarUpdate, 1.5, "commit → marker visible")
	if c := &s.SidecarCatch; len(c.Samples) > 0 {
		rate := float64(s.CatchTxns) / c.Median().Seconds()
		out = append(out, replTarget{Cell: fmt.Sprintf("catch-up of %s single-row txns after downtime", fmtRecords(int(s.CatchTxns))),
			PG: fmt.Sprintf("subscriber %s (%s txn/s); decode %s (%s txn/s)", fmtCell3(&s.SubCatch), fmtRate(float64(s.CatchTxns)/s.SubCatch.Median().Seconds()),
				fmtCell3(&s.RawCatch), fmtRate(float64(s.CatchTxns)/s.RawCatch.Median().Seconds())),
			Sidecar: fmt.Sprintf("%s (%s txn/s)", fmtCell3(c), fmtRate(rate)), Ratio: rate, RatioFmt: fmt.Sprintf("%.2f× the subscriber", s.SubCatch.Median().Seconds()/c.Median().Seconds()),
			Target: "≥ 30k txn/s", Met: rate >= 30_000, Note: "daemon.Run (start-up included) → marker visible"})
	}
	if su := s.Sustained; su != nil && len(su.Lag) > 0 {
		mx := percentile(su.Lag, 100)
		out = append(out, replTarget{Cell: fmt.Sprintf("lag under pgbench at max rate (%.0f tps, %d clients)", su.TPS, su.Clients),
			PG: "—", Sidecar: fmt.Sprintf("p50 %s, p99 %s, max %s", fmtDur(percentile(su.Lag, 50)), fmtDur(percentile(su.Lag, 99)), fmtDur(mx)),
			RatioFmt: "—", Target: "< 1 s", Met: mx < time.Second && su.Unresolved == 0, Note: "server WAL position sampled every 100 ms → time until durable_lsn reached it"})
		per := float64(su.Badger.Handed()) / float64(max(1, su.Txns))
		out = append(out, replTarget{Cell: "bytes written to Badger per changed row, sustained",
			PG: "—", Sidecar: fmt.Sprintf("%.0f B handed to Badger; %.0f B disk growth", per, float64(su.DiskGrowth)/float64(max(1, su.Txns))),
			RatioFmt: "—", Target: "≤ 1 KiB", Met: per <= 1024, Note: "Badger write_bytes_vlog + write_bytes_user ÷ rows changed"})
	}
	return out
}

// fmtCell3 prints a cell's median with its min–max.
func fmtCell3(c *Cell) string {
	if len(c.Samples) == 0 {
		return "—"
	}
	if len(c.Samples) == 1 {
		return fmtDur(c.Median())
	}
	return fmt.Sprintf("%s (%s–%s)", fmtDur(c.Median()), fmtDur(c.Min()), fmtDur(c.Max()))
}

func fmtRate(x float64) string {
	switch {
	case x >= 1e6:
		return sig3(x/1e6) + "M"
	case x >= 1e3:
		return sig3(x/1e3) + "k"
	default:
		return sig3(max(x, 1))
	}
}

func rowsPerSec(c *Cell) string {
	if len(c.Samples) == 0 || c.Ops == 0 {
		return "—"
	}
	return fmtRate(float64(c.Ops)/c.Median().Seconds()) + " rows/s"
}

// WriteReplicationMarkdown renders the report.
func WriteReplicationMarkdown(w io.Writer, rep *ReplicationReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Replication benchmark: sidecar vs PostgreSQL's built-in logical replication\n\n")
	fmt.Fprintf(&b, "Measured on %s (UTC) at revision `%s`%s by `sidecar-bench replication --rows %s --reps %d`. Raw samples: [%s](%s).\n\n",
		rep.Started.Format("2006-01-02 15:04"), orNone(rep.Env.Commit), dirtyNote(rep.Env), rowsFlag(rep), rep.Reps,
		filepath.Base(JSONPath(ReplicationResultName(rep.Started))), filepath.Base(JSONPath(ReplicationResultName(rep.Started))))
	b.WriteString("## Setup\n\n")
	fmt.Fprintf(&b, "- Machine: %s, %d CPUs (GOMAXPROCS %d), %s RAM, Linux %s, %s, %s. Shared and noisy: 1-minute load average %s at start, %s at end.\n",
		orNone(rep.Env.CPU), rep.Env.NumCPU, rep.Env.GOMAXPROCS, orNone(rep.Env.MemTotal), orNone(rep.Env.Kernel), rep.Env.GoVersion, rep.Env.OSArch, orNone(rep.LoadStart), orNone(rep.LoadEnd))
	fmt.Fprintf(&b, "- PostgreSQL %s: publisher and subscriber are two throwaway clusters (internal/pgtest) on this machine, configured as the §9 baseline of notes/replication.md: `wal_level=logical`, `fsync=on`, `full_page_writes=on`, `synchronous_commit=on` (publisher), `shared_buffers=1GB`, `max_wal_size=8GB`; subscription `WITH (streaming = on)` (subscriber's `synchronous_commit` default off for the apply worker).\n", orNone(rep.PGVersion))
	b.WriteString("- Table `t(id bigint PK, k bytea (24 B), v text (27 chars), score int)` loaded with the baseline's INSERT … generate_series, then VACUUM ANALYZE and CHECKPOINT; a one-row `marker(id int PK, tag text)`; one publication for both.\n")
	b.WriteString("- The sidecar runs in the benchmark's process (`daemon.Run`, the code of `sidecar run`), data directory on the local disk, Badger fsync on; its status is read through its HTTP API like any client's.\n\n")
	b.WriteString("## Method\n\n")
	b.WriteString("Every consumer is timed **alone**: while one is timed, the others are stopped (sidecar) or disabled (`ALTER SUBSCRIPTION … DISABLE`, waiting until its slot is released), so no two decoders share the two CPUs. Caught up = the marker row updated in (or after) the timed transaction is visible: on the subscriber polled with `SELECT` every 2 ms, on the sidecar `/api/status` polled every 2 ms until `last_commit_time` (the commit timestamp of the head, the last applied commit) is at or after the start of the marker's transaction (`now()` returned by its UPDATE); with no other writer running, that commit is the marker's. Apply is in commit order, so the marker means everything before it is applied. (The daemon does not serve the history routes such as `/api/get` at this revision, so the row itself cannot be polled; the checks below confirm the marker row offline.)\n\n")
	b.WriteString("1. **Initial copy**: `COPY t TO STDOUT` into a discarding reader (pgx); the subscriber from `CREATE SUBSCRIPTION` to every `pg_subscription_rel` row in state `r`; the sidecar from `daemon.Run` on an empty data directory (preflight, publication, slot with exported snapshot, parallel copy) to `/api/status` showing phase streaming and both tables ready. Each repetition uses a fresh subscription (subscriber tables truncated) and a fresh slot and data directory. PostgreSQL's logical replication launcher starts apply workers at most once per `wal_retrieve_retry_interval` (5 s by default), so every CREATE SUBSCRIPTION or ENABLE first waits 5.2 s after the previous one, so that this wait is not counted in the subscriber's time.\n")
	b.WriteString("2. **Big UPDATE**: `UPDATE t SET score = score + 1, v = reverse(v) WHERE id % s = 0` plus the marker in one transaction. Per repetition: (a) sidecar live, statement run, time from COMMIT returned to marker visible (and to durable_lsn past it); (b) `pg_recvlogical --start -E <WAL after commit> -f /dev/null -o proto_version=2 -o streaming=on` on a pgoutput slot created just before the UPDATE of (a): the same WAL decoded and sent with no consumer work, process start included (as §9); (c) subscriber enabled after that downtime, time to marker; (d) a second UPDATE with the subscriber live (sidecar stopped), COMMIT → marker; (e) sidecar started after that downtime, `daemon.Run` → marker.\n")
	b.WriteString("3. **Catch-up after downtime**: sidecar stopped and subscription disabled; pgbench single-row updates of random ids (`-c clients -j 2 -t txns/clients`; by default 8 clients and 10k transactions, as here), then the marker; then, one at a time over the same WAL: sidecar `daemon.Run` → marker (start-up included); subscription ENABLE → marker; pg_recvlogical from a slot created before pgbench to the marker's WAL position.\n")
	b.WriteString("4. **Sustained**: sidecar live alone; pgbench single-row updates at the publisher's maximum rate for the configured duration. Every 100 ms a sampler reads `pg_current_wal_lsn()` and the daemon's `lag_seconds`; every 10 ms it reads `durable_lsn` from `/api/status`. The lag of a WAL sample is the time until durable_lsn reached it: commit to durable, as a client of the mirror would see it.\n")
	b.WriteString("5. **Bytes per changed row** over that run: the sidecar is stopped before (so the disk state is settled) and after; Badger's own counters (bytes handed to Badger = `badger_write_bytes_vlog`, the values of at least the 1 KiB value threshold, i.e. Prolly nodes, + `badger_write_bytes_user`, which counts the other entries and a 12-byte pointer for each vlog value; then L0 flushes and compactions), the data directory's allocated size (du) and the process's disk writes (/proc/self/io), each ÷ transactions (one row each).\n")
	b.WriteString("\nAfter every phase a fresh marker is waited for on both replicas, then the publisher, the subscriber and the mirror are compared **row by row**: count, Σ score and the md5 of every row's canonical text `id:hex(k):v:score` in id order (PostgreSQL via COPY, the mirror read offline: daemon stopped, data directory opened, a full scan at HEAD through history.Service, the read path of `sidecar scan`, not the tree's digests; its marker row must hold the last tag). Times are medians of the repetitions with min–max; ratios use medians.\n\n")

	for _, s := range rep.Sizes {
		writeReplSize(&b, s, rep.Reps)
	}
	writeReplInterpretation(&b, rep)
	b.WriteString("## Reproduce\n\n")
	fmt.Fprintf(&b, "```\ngo run ./cmd/sidecar-bench replication --rows %s --reps %d\n```\n\n", rowsFlag(rep), rep.Reps)
	b.WriteString("PostgreSQL server binaries (initdb, postgres, pgbench, pg_recvlogical) must be installed; the clusters and the sidecar's data live in temporary directories removed afterwards (`--keep` keeps the sidecar's, with its logs). `go test ./bench -run Replication` runs every phase at 10k rows.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func rowsFlag(rep *ReplicationReport) string {
	var parts []string
	for _, s := range rep.Sizes {
		parts = append(parts, fmtRecords(s.Rows))
	}
	return strings.Join(parts, ",")
}

func writeReplSize(b *strings.Builder, s *ReplSizeResult, reps int) {
	fmt.Fprintf(b, "## %s rows\n\n", fmtRecords(s.Rows))
	fmt.Fprintf(b, "Load (INSERT … generate_series): %s.\n\n", fmtDur(s.Load))
	b.WriteString("### Targets\n\n| cell | PostgreSQL | sidecar | ratio | target | met? |\n|---|---|---|---|---|---|\n")
	for _, t := range s.Targets() {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", t.Cell, t.PG, t.Sidecar, t.RatioFmt, t.Target, mark(t.Met))
	}
	b.WriteString("\n### All cells\n\nSidecar CPU is this process's CPU time over the interval (the sidecar is all it runs); walsender CPU is the CPU time of the PostgreSQL process decoding and sending to the sidecar (/proc of its pid). Run-queue wait is the time the sidecar's threads were runnable but waiting for a CPU, summed over threads (/proc/self/task/*/schedstat): what the shared machine took from it. All three are medians.\n\n| phase | cell | time: median (min–max) | rate | sidecar CPU | sidecar run-queue wait | walsender CPU |\n|---|---|---|---|---|---|---|\n")
	row := func(phase, name string, c *Cell, rate string, cpu bool) {
		if len(c.Samples) == 0 {
			return
		}
		cpus, dec, wait := "—", "—", "—"
		if cpu && len(c.CPU) > 0 {
			cpus = fmtDur(c.MedianCPU())
		}
		if w := c.MedianRunqWait(); cpu && w >= 0 {
			wait = fmtDur(w)
		}
		if d := s.DecoderCPU[c.ID]; len(d) > 0 {
			dec = fmtDur(median(d))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", phase, name, fmtCell3(c), rate, cpus, wait, dec)
	}
	row("1 copy", "`COPY t TO STDOUT` alone", &s.CopyOut, rowsPerSec(&s.CopyOut), false)
	row("1 copy", "built-in subscriber sync", &s.SubSync, rowsPerSec(&s.SubSync), false)
	row("1 copy", "sidecar initial copy", &s.SidecarCopy, rowsPerSec(&s.SidecarCopy), true)
	up := fmtRecords(int(s.UpdateRows))
	row("2 update", up+"-row UPDATE statement (publisher, to COMMIT)", &s.UpdateStmt, rowsPerSec(&s.UpdateStmt), false)
	row("2 update", "sidecar live: commit → marker visible", &s.SidecarUpdate, rowsPerSec(&s.SidecarUpdate), true)
	row("2 update", "sidecar live: commit → durable_lsn past marker", &s.SidecarDur, rowsPerSec(&s.SidecarDur), false)
	row("2 update", "subscriber live: commit → marker visible", &s.SubUpdate, rowsPerSec(&s.SubUpdate), false)
	row("2 update", "pg_recvlogical v2 streaming over the WAL range", &s.RawDecode, rowsPerSec(&s.RawDecode), false)
	row("2 update", "sidecar after downtime: daemon.Run → marker", &s.SidecarUpdateDown, rowsPerSec(&s.SidecarUpdateDown), true)
	row("2 update", "subscriber after downtime: ENABLE → marker", &s.SubUpdateDown, rowsPerSec(&s.SubUpdateDown), false)
	ct := fmtRecords(int(s.CatchTxns))
	txnRate := func(c *Cell) string {
		if len(c.Samples) == 0 {
			return "—"
		}
		return fmtRate(float64(s.CatchTxns)/c.Median().Seconds()) + " txn/s"
	}
	row("3 catch-up", ct+" txns: sidecar daemon.Run → marker", &s.SidecarCatch, txnRate(&s.SidecarCatch), true)
	row("3 catch-up", "of which daemon.Run → listener bound", &s.SidecarStart, "", false)
	row("3 catch-up", ct+" txns: subscriber ENABLE → marker", &s.SubCatch, txnRate(&s.SubCatch), false)
	row("3 catch-up", ct+" txns: pg_recvlogical v2 over the range", &s.RawCatch, txnRate(&s.RawCatch), false)
	if s.CatchPgbench > 0 {
		fmt.Fprintf(b, "\npgbench produced the %s catch-up transactions in %s (last repetition).\n", ct, fmtDur(s.CatchPgbench))
	}
	if su := s.Sustained; su != nil {
		b.WriteString("\n### Sustained load (one run)\n\n")
		dec := time.Duration(0)
		if d := s.DecoderCPU["sustained"]; len(d) > 0 {
			dec = d[0]
		}
		fmt.Fprintf(b, "pgbench, %d clients, %s: %s transactions (%.0f tps), %s commits applied by the sidecar; sidecar CPU %s (%.2f cores, start and stop included), its walsender's CPU %s.\n\n",
			su.Clients, fmtDur(su.Duration), fmtCount(su.Txns), su.TPS, fmtCount(su.Commits), fmtDur(su.CPU), su.CPU.Seconds()/max(su.Duration.Seconds(), 1e-9), fmtDur(dec))
		fmt.Fprintf(b, "| lag measure | samples | p50 | p99 | max |\n|---|---|---|---|---|\n")
		fmt.Fprintf(b, "| WAL position → durable_lsn | %d (%d unresolved) | %s | %s | %s |\n", len(su.Lag), su.Unresolved, fmtDur(percentile(su.Lag, 50)), fmtDur(percentile(su.Lag, 99)), fmtDur(percentile(su.Lag, 100)))
		fmt.Fprintf(b, "| daemon's `lag_seconds` | %d | %.3f s | %.3f s | %.3f s |\n\n", len(su.StatusLag), percentile(su.StatusLag, 50), percentile(su.StatusLag, 99), percentile(su.StatusLag, 100))
		per := func(x int64) string { return fmt.Sprintf("%.0f B", float64(x)/float64(max(1, su.Txns))) }
		b.WriteString("| bytes written | total | per changed row |\n|---|---|---|\n")
		fmt.Fprintf(b, "| **handed to Badger** (vlog + user, below) | %s | **%s** |\n", fmtBytes(su.Badger.Handed()), per(su.Badger.Handed()))
		fmt.Fprintf(b, "| values ≥ 1 KiB, to the value log (write_bytes_vlog) | %s | %s |\n", fmtBytes(su.Badger.Vlog), per(su.Badger.Vlog))
		fmt.Fprintf(b, "| keys, small values and value pointers (write_bytes_user) | %s | %s |\n", fmtBytes(su.Badger.User), per(su.Badger.User))
		fmt.Fprintf(b, "| Badger memtable flushes to L0 | %s | %s |\n", fmtBytes(su.Badger.L0), per(su.Badger.L0))
		fmt.Fprintf(b, "| Badger compactions | %s | %s |\n", fmtBytes(su.Badger.Compaction), per(su.Badger.Compaction))
		fmt.Fprintf(b, "| process disk writes (/proc/self/io) | %s | %s |\n", fmtBytes(su.ProcWrite), per(su.ProcWrite))
		fmt.Fprintf(b, "| data directory growth (du, %s → %s) | %s | %s |\n\n", fmtBytes(su.DiskBefore), fmtBytes(su.DiskAfter), fmtBytes(su.DiskGrowth), per(su.DiskGrowth))
	}
	b.WriteString("\n### Correctness checks\n\n| after | publisher | sidecar | subscriber | equal? |\n|---|---|---|---|---|\n")
	for _, c := range s.Checks {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", c.Phase, c.Publisher, shortSum(c.Sidecar, c.Publisher), shortSum(c.Subscriber, c.Publisher), mark(c.OK))
	}
	b.WriteString("\n")
}

func shortSum(c, ref Checksum) string {
	if c == ref {
		return "same"
	}
	return c.String()
}

// writeReplInterpretation lists the missed targets; the prose that
// explains them is added to the committed report by hand from profiles.
func writeReplInterpretation(b *strings.Builder, rep *ReplicationReport) {
	b.WriteString("## Summary\n\n")
	for _, s := range rep.Sizes {
		var met, missed []string
		for _, t := range s.Targets() {
			if t.Met {
				met = append(met, t.Cell)
			} else {
				missed = append(missed, t.Cell)
			}
		}
		fmt.Fprintf(b, "- %s rows: met %d of %d targets.", fmtRecords(s.Rows), len(met), len(met)+len(missed))
		if len(missed) > 0 {
			fmt.Fprintf(b, " Missed: %s.", strings.Join(missed, "; "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// WriteReplicationFiles writes the markdown report to path and the raw
// report as JSON beside it.
func WriteReplicationFiles(path string, rep *ReplicationReport) error {
	return writeReportFiles(path, rep, func(w io.Writer) error { return WriteReplicationMarkdown(w, rep) })
}

// ReadReplicationJSON reads a raw report written by WriteReplicationFiles,
// so that the markdown can be rendered again (after a change to the
// writer) without running the benchmark again.
func ReadReplicationJSON(path string) (*ReplicationReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read raw report: %w", err)
	}
	var rep ReplicationReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("decode raw report %s: %w", path, err)
	}
	return &rep, nil
}
