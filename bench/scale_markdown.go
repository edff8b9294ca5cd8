package bench

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteScaleMarkdown renders the scale report in the seed reports' shape
// (002: a decision first, then the matrix of cache levels with ratios to
// PostgreSQL, resources, lifecycle and footprint; 003: the apply and
// compaction cells and how to reproduce).
func WriteScaleMarkdown(w io.Writer, rep *ScaleReport, command string) error {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# Scale: the sidecar following %s rows with memory.limit %s vs PostgreSQL (shared_buffers %s)\n\n", fmtRecords(rep.Rows), orAuto(rep.MemoryLimit), rep.SharedBuffers)
	measuredBy(&b, rep.Started, rep.Took, command, rep.Env)
	p(". Machine: %s, %d CPUs, %s, %s; PostgreSQL %s in the same run on the same data. ", rep.Env.CPU, rep.Env.NumCPU, rep.Env.MemTotal, rep.Env.GoVersion, rep.PGVersion)
	p("**The machine was shared with other workers** (load average at each repetition: %s; at the end %s): absolute times are inflated and noisy, ratios from the same repetition are the figures to read.\n\n", strings.Join(rep.Loads, "; "), rep.EndLoad)
	if rep.Cgroup != "" {
		p("The benchmark process (the daemon runs in it) ran in the memory cgroup `%s` with a hard limit of %s (PostgreSQL outside it); ", rep.Cgroup, fmtBytes(rep.CgroupMax))
	}
	p("peak RSS sampled every second: %s", fmtBytes(rep.PeakRSS))
	if rep.PeakCgroup > 0 {
		p(" (cgroup usage, page cache included: %s)", fmtBytes(rep.PeakCgroup))
	}
	p(".\n\n")
	p("## Decision\n\n")
	if rep.Failure != "" {
		p("**The run did not complete**: %s. The cells below are what was measured before.\n\n", rep.Failure)
	} else {
		p("The run completed. Checksum `count:sum(score)`: PostgreSQL `%s`, sidecar `%s` (%s).\n\n", rep.ChecksumPG, rep.ChecksumSC, mark(rep.ChecksumPG == rep.ChecksumSC && rep.ChecksumPG != ""))
	}
	p("## Identity and method\n\n")
	p("- Table `t(id bigint PRIMARY KEY, k text, v text, score int, grp int)`, %s rows (k `key-%%08d`, v `value-<id>-<md5>`, score `(id*7919)%%1000`, grp `id%%100`), loaded by INSERT … generate_series in 5M-row chunks, primary key added after, VACUUM ANALYZE, CHECKPOINT: %s.\n", fmtRecords(rep.Rows), fmtDur(rep.PGLoad))
	p("- PostgreSQL: fsync on, shared_buffers %s, work_mem 64MB, max_wal_size %s, autovacuum off, parallel query default. The sidecar: in process (`daemon.Run`), memory.limit %s, its SQL port on loopback.\n", rep.SharedBuffers, cmp.Or(rep.MaxWalSize, "16GB"), orAuto(rep.MemoryLimit))
	p("- Reads: the same pgx client code on both SQL ports (extended protocol, statements cached); each repetition alternates which side goes first; answers compared (a sum over the rows read). Warm: %d repetitions after the copy (%d point gets and %d ranges each, per-operation time). Cold: the sidecar restarted on its data directory and PostgreSQL restarted (shared_buffers empty), both with their files dropped from the OS page cache (`posix_fadvise DONTNEED` per file, not the machine's whole cache), then every cell once per side.\n", rep.Reps, rep.Gets, rep.Ranges)
	p("- Cells: median (min–max); `SC / PG` = sidecar time / PostgreSQL time (below 100%%: the sidecar faster).\n\n")
	p("## Full comparison matrix\n\n")
	p("| Case | PG warm | SC warm | SC / PG | PG cold | SC cold | SC / PG | answers |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	seen := map[string]bool{}
	for _, c := range rep.Cells {
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		warm, cold := rep.cellAt(c.Name, "warm"), rep.cellAt(c.Name, "cold")
		ans := "identical"
		for _, x := range []*ScaleCell{warm, cold} {
			if x != nil && x.Answer != "identical" {
				ans = x.Answer
			}
		}
		p("| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", c.Name, sideOf(warm, false), sideOf(warm, true), ratioOf(warm), sideOf(cold, false), sideOf(cold, true), ratioOf(cold), ans)
	}
	p("\n")
	for _, c := range rep.Cells {
		if c.Level == "warm" {
			p("- `%s`: %s\n", c.Name, c.Note)
		}
	}
	if len(rep.Apply) > 0 {
		p("\n## Seed-003 apply and compaction (one run)\n\n| Operation | sidecar | PostgreSQL | Result |\n|---|---:|---:|---|\n")
		for _, c := range rep.Apply {
			s, q := median(c.Sidecar), median(c.Postgres)
			res := "—"
			if s > 0 && q > 0 {
				if s > q {
					res = fmt.Sprintf("PostgreSQL ~%.1f× faster", float64(s)/float64(q))
				} else {
					res = fmt.Sprintf("sidecar ~%.1f× faster", float64(q)/float64(s))
				}
			}
			p("| `%s` | %s | %s | %s |\n", c.Name, fmtDur(s), fmtDur(q), res)
		}
		p("\n")
		for _, c := range rep.Apply {
			p("- `%s`: %s\n", c.Name, c.Note)
		}
	}
	p("\n## Sidecar memory and resources\n\n")
	m := rep.AfterCopy
	p("| What | Bytes | Per row | vs memory.limit |\n|---|---:|---:|---:|\n")
	lim := rep.limitBytes()
	row := func(name string, v int64) {
		per, frac := "—", "—"
		if rep.Rows > 0 {
			per = fmt.Sprintf("%.1f", float64(v)/float64(rep.Rows))
		}
		if lim > 0 {
			frac = fmt.Sprintf("%.0f%%", 100*float64(v)/float64(lim))
		}
		p("| %s | `%s` | %s | %s |\n", name, fmtBytes(v), per, frac)
	}
	row("peak RSS during the copy (VmHWM)", rep.CopyPeakRSS)
	row("peak RSS over the run (sampled)", rep.PeakRSS)
	row("… peak anonymous RSS over the run (sampled)", rep.PeakAnon)
	row("RSS after the copy, after a GC", m.RSS)
	row("… anonymous", m.RSSAnon)
	row("… file-backed (mapped files)", m.RSSFile)
	row("Go runtime, held from the OS", m.GoTotal)
	row("Go heap, live objects after a GC", m.GoHeapObjects)
	row("radix index (head.Table.IndexBytes)", m.RadixIndex)
	row("key store", m.KeyStore)
	row(fmt.Sprintf("heap: decoded pages (%d)", m.DecodedPages), m.HeapDecoded)
	row(fmt.Sprintf("heap: cold pages' in-memory part (%d, %d in the page file)", m.ColdPages, m.DiskPages), m.HeapCold)
	if len(rep.Parts) > 0 {
		p("\nThe daemon's own memory parts after the copy (`/api/status`):\n\n| Part | Key | Budget | Used |\n|---|---|---:|---:|\n")
		for _, pt := range rep.Parts {
			used := "—"
			if pt.UsedBytes != nil {
				used = fmtBytes(*pt.UsedBytes)
			}
			budget := "—"
			if pt.BudgetBytes > 0 {
				budget = fmtBytes(pt.BudgetBytes)
			}
			p("| %s | %s | %s | %s |\n", pt.Part, pt.Key, budget, used)
		}
	}
	p("\n### RSS curve\n\nSampled every second; here at most 30 points (every phase's first and largest sample, the rest evenly).\n\n| t | phase | rows at HEAD | RSS | Go heap objects | cgroup usage |\n|---:|---|---:|---:|---:|---:|\n")
	for _, s := range thinSamples(rep.Samples, 30) {
		cg := "—"
		if s.Cgroup >= 0 {
			cg = fmtBytes(s.Cgroup)
		}
		p("| %s | %s | %s | %s | %s | %s |\n", fmtDur(s.At.Round(time.Second)), s.Phase, fmtCount(int64(s.Rows)), fmtBytes(s.RSS), fmtBytes(s.GoHeap), cg)
	}
	if len(rep.Grow) > 0 {
		p("\n### RSS against the rows at HEAD (grow mode)\n\nThe table grew by 1M-row INSERT transactions while the sidecar followed; after each one was applied at HEAD:\n\n| rows at HEAD | RSS | RSS per row | COMMIT → applied | t |\n|---:|---:|---:|---:|---:|\n")
		step := max(1, len(rep.Grow)/25)
		for i, g := range rep.Grow {
			if i%step != 0 && i != len(rep.Grow)-1 {
				continue
			}
			p("| %s | %s | %.0f B | %s | %s |\n", fmtRecords(g.Rows), fmtBytes(g.RSS), float64(g.RSS)/float64(max(g.Rows, 1)), fmtDur(g.Applied), fmtDur(g.At.Round(time.Second)))
		}
		if n := len(rep.Grow); n >= 4 {
			a, b := rep.Grow[n/4], rep.Grow[n-1]
			if b.Rows > a.Rows {
				p("\nMarginal growth from %s to %s rows: %.0f bytes of RSS per row.\n", fmtRecords(a.Rows), fmtRecords(b.Rows), float64(b.RSS-a.RSS)/float64(b.Rows-a.Rows))
			}
		}
	}
	p("\n## Lifecycle and footprint\n\n| Phase | Time |\n|---|---:|\n")
	p("| PostgreSQL: INSERT %s rows + primary key + VACUUM ANALYZE + CHECKPOINT | `%s` |\n", fmtRecords(rep.Rows), fmtDur(rep.PGLoad))
	p("| `\\copy t TO '/dev/null'` (psql, text) | `%s` |\n", span3(rep.CopyText))
	ratio := "—"
	if len(rep.CopyText) > 0 && rep.CopyHead > 0 {
		ratio = fmt.Sprintf("%.2f×", float64(rep.CopyHead)/float64(median(rep.CopyText)))
	}
	p("| sidecar initial copy: start → HEAD holds every row (not serving yet) | `%s` |\n", fmtDur(rep.HeadHolds))
	p("| sidecar initial copy: start → HEAD `ready` (serving reads) | `%s` (%s the `\\copy`) |\n", fmtDur(rep.CopyHead), ratio)
	if rep.Restart > 0 {
		if rep.Stop > 0 {
			p("| sidecar clean stop before the restart (its shutdown checkpoint) | `%s` |\n", fmtDur(rep.Stop))
		}
		if rep.RestartHolds > 0 {
			p("| sidecar restart (cold): start → HEAD holds every row | `%s` |\n", fmtDur(rep.RestartHolds))
		}
		p("| sidecar restart (cold): start → HEAD `ready` | `%s` |\n", fmtDur(rep.Restart))
		if rep.PGRestart > 0 {
			p("| PostgreSQL restart (pg_ctl restart, its files dropped from the page cache after) | `%s` |\n", fmtDur(rep.PGRestart))
		}
	}
	if rep.CkptFirst > 0 {
		p("| sidecar HEAD checkpoint at the footprint phase (after the cold reads, and the apply when run; index + key store files written: %s) | `%s` |\n", fmtBytes(rep.CkptFirstFiles), fmtDur(rep.CkptFirst))
		p("| sidecar HEAD checkpoint right after it, nothing changed (files written: %s) | `%s` |\n", fmtBytes(rep.CkptUnchangedFiles), fmtDur(rep.CkptUnchanged))
	}
	if rep.CkptFirst > 0 {
		p("| … mapped image files given back by those checkpoints / unlinked files still mapped after them | `%s` / `%s` |\n", fmtBytes(rep.CkptReleased), fmtBytes(rep.HeldMapped))
	}
	if rep.PGCheckpoint > 0 {
		p("| PostgreSQL `CHECKPOINT` after the same reads | `%s` |\n", fmtDur(rep.PGCheckpoint))
	}
	p("\n| Engine/path | Bytes | vs PostgreSQL table + index |\n|---|---:|---:|\n")
	fp := func(name string, v int64) {
		if v <= 0 {
			return
		}
		p("| %s | `%s` | %.2f× |\n", name, fmtBytes(v), float64(v)/float64(max(rep.PGTotal, 1)))
	}
	fp("PostgreSQL `pg_total_relation_size('t')`", rep.PGTotal)
	fp("PostgreSQL heap", rep.PGHeap)
	fp("PostgreSQL primary key", rep.PGIdx)
	fp("sidecar data directory (du)", rep.DataDir)
	fp("HEAD checkpoint: heap pages", rep.HeadHeap)
	fp("HEAD checkpoint: radix index", rep.HeadIndex)
	fp("HEAD checkpoint: key store", rep.HeadKeys)
	if rep.DaemonLog != "" {
		p("\nThe daemon's log (its phase timings) was kept at %s.\n", rep.DaemonLog)
	}
	if len(rep.ProfileFiles) > 0 {
		p("\nHeap profiles written: %s.\n", strings.Join(rep.ProfileFiles, ", "))
	}
	p("\n## How to reproduce\n\n```\n# a memory cgroup (v1 here) as the hard cap, then\n%s\n```\n\n", command)
	if rep.Took > 0 {
		p("Run took %s.\n", fmtDur(rep.Took))
	} else {
		p("Rendered while the run was in phase %q, %s after it started.\n", rep.Phase, fmtDur(time.Since(rep.Started).Round(time.Second)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (rep *ScaleReport) cellAt(name, level string) *ScaleCell {
	for _, c := range rep.Cells {
		if c.Name == name && c.Level == level {
			return c
		}
	}
	return nil
}

// limitBytes is memory.limit in bytes (0: auto or unparsable).
func (rep *ScaleReport) limitBytes() int64 {
	for _, pt := range rep.Parts {
		if pt.Part == "limit" {
			return pt.BudgetBytes
		}
	}
	return 0
}

func sideOf(c *ScaleCell, sidecar bool) string {
	if c == nil {
		return "—"
	}
	xs := c.Postgres
	if sidecar {
		xs = c.Sidecar
	}
	if len(xs) == 0 {
		return "—"
	}
	if len(xs) == 1 {
		return "`" + fmtDur(xs[0]) + "`"
	}
	return "`" + span3(xs) + "`"
}

func ratioOf(c *ScaleCell) string {
	if c == nil || len(c.Sidecar) == 0 || len(c.Postgres) == 0 {
		return "—"
	}
	r := 100 * float64(median(c.Sidecar)) / float64(median(c.Postgres))
	if r < 100 {
		return fmt.Sprintf("**%.1f%%**", r)
	}
	return fmt.Sprintf("%.1f%%", r)
}

// thinSamples keeps at most n samples: each phase's first and largest-RSS
// samples, the last one, and the rest evenly spaced.
func thinSamples(xs []RSSSample, n int) []RSSSample {
	if len(xs) <= n {
		return xs
	}
	keep := map[int]bool{len(xs) - 1: true}
	for i := range xs {
		if i == 0 || xs[i].Phase != xs[i-1].Phase {
			keep[i] = true
			best := i
			for j := i; j < len(xs) && xs[j].Phase == xs[i].Phase; j++ {
				if xs[j].RSS > xs[best].RSS {
					best = j
				}
			}
			keep[best] = true
		}
	}
	step := max(1, len(xs)/max(1, n-len(keep)))
	for i := 0; i < len(xs); i += step {
		keep[i] = true
	}
	var out []RSSSample
	for i := range xs {
		if keep[i] {
			out = append(out, xs[i])
		}
	}
	return out
}
