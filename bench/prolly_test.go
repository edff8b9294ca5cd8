package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunProllySmall runs the whole matrix at two small sizes in a temp dir
// and checks that every cell is there with a sane value, so the benchmark
// cannot rot between the long runs.
func TestRunProllySmall(t *testing.T) {
	var progress bytes.Buffer
	o := ProllyOptions{Records: []int{20_000, 30_000}, Dir: t.TempDir(), Reps: 2, Seed: 7, Batch: 2_000, Out: &progress}
	rep, err := RunProlly(t.Context(), o)
	if err != nil {
		t.Fatalf("RunProlly: %v\nprogress:\n%s", err, progress.String())
	}
	if len(rep.Sizes) != 2 {
		t.Fatalf("%d sizes, want 2", len(rep.Sizes))
	}
	for _, s := range rep.Sizes {
		for _, spec := range prollyCells {
			c := s.Cell(spec.id)
			if c == nil {
				t.Errorf("%d records: cell %s missing", s.Records, spec.id)
				continue
			}
			want := o.Reps
			if spec.id == "build" || spec.id == "scan" {
				want = 1
			}
			if len(c.Samples) != want || len(c.CPU) != want || len(c.DiskRead) != want || len(c.DiskWrite) != want {
				t.Errorf("%d records: %s has %d samples, %d CPU times, %d+%d I/O counts, want %d each", s.Records, spec.id, len(c.Samples), len(c.CPU), len(c.DiskRead), len(c.DiskWrite), want)
			}
			for _, d := range c.Samples {
				if d <= 0 || d > time.Minute {
					t.Errorf("%d records: %s sample %v not in (0, 1m]", s.Records, spec.id, d)
				}
			}
			if c.Min() > c.Median() || c.Median() > c.Max() {
				t.Errorf("%d records: %s min %v median %v max %v out of order", s.Records, spec.id, c.Min(), c.Median(), c.Max())
			}
		}
		// The cache states the report claims: cold gets read every node
		// of their path from Badger, warm gets none; mutations write.
		if c := s.Cell("get/cold"); c != nil && c.MedianNodeReads() < int64(c.Ops*(s.Tree.Height-1)) {
			t.Errorf("%d records: cold gets read %d nodes for %d calls: not cold", s.Records, c.MedianNodeReads(), c.Ops)
		}
		if c := s.Cell("get/warm"); c != nil && c.MedianNodeReads() != 0 {
			t.Errorf("%d records: warm gets read %d nodes from Badger", s.Records, c.MedianNodeReads())
		}
		for _, id := range []string{"batch/append", "batch/random", "batch/clustered", "put/random", "merge/random"} {
			if c := s.Cell(id); c != nil && c.MedianNodePuts() == 0 {
				t.Errorf("%d records: %s wrote no nodes", s.Records, id)
			}
		}
		tr := s.Tree
		// 20k rows of ~60 bytes: tens of leaves of a few KiB.
		if tr.Height < 2 || tr.Nodes < 10 || tr.SerializedBytes < int64(s.Records)*(KeySize+ValueSize) {
			t.Errorf("%d records: implausible tree %+v", s.Records, tr)
		}
		if len(tr.NodesPerLevel) != tr.Height || tr.NodesPerLevel[tr.Height-1] != 1 || tr.NodesPerLevel[0] <= tr.NodesPerLevel[tr.Height-1] {
			t.Errorf("%d records: nodes per level %v for height %d", s.Records, tr.NodesPerLevel, tr.Height)
		}
		if tr.StoredBytes <= 0 || tr.DiskAfterBuild <= 0 || tr.DiskAtEnd < tr.DiskAfterBuild {
			t.Errorf("%d records: implausible sizes %+v", s.Records, tr)
		}
		if tr.PeakRSSBuild <= 0 || tr.PeakRSSRun < tr.PeakRSSBuild && tr.PeakRSSReset {
			t.Errorf("%d records: implausible RSS %+v", s.Records, tr)
		}
	}
	if rs := rep.Ratios(); len(rs) != 2 {
		t.Errorf("ratios %+v, want 2", rs)
	} else {
		for _, r := range rs {
			if !(r.Value > 0) {
				t.Errorf("ratio %s = %v", r.Name, r.Value)
			}
		}
	}

	path := filepath.Join(t.TempDir(), "r", ProllyResultName(rep.Started))
	if err := WriteProllyFiles(path, rep); err != nil {
		t.Fatal(err)
	}
	mdBytes, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := bytes.NewBuffer(mdBytes)
	raw, err := os.ReadFile(JSONPath(path))
	if err != nil {
		t.Fatal(err)
	}
	var back ProllyReport
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("raw report does not decode: %v", err)
	}
	if len(back.Sizes) != 2 || len(back.Sizes[1].Cells) != len(rep.Sizes[1].Cells) || back.Sizes[1].Cells[0].Samples[0] != rep.Sizes[1].Cells[0].Samples[0] {
		t.Errorf("raw report does not round-trip: %+v", back.Sizes)
	}
	for _, want := range []string{"## Setup", "## Method", "## Headline metrics", "| cell | ours 20k | ours 30k |", "Random batch, 10k", "## Storage", "nodes per level, leaves first", "## Wall time, CPU time and disk I/O (ours)", "Range digest, half the table", "## Machine-independent ratios", "## Interpretation", "## How to reproduce", "--records 20000,30000"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	t.Logf("progress:\n%s", progress.String())
}

var (
	flagRecords = flag.String("prolly.records", "", "run the full-size matrix at these sizes (e.g. 1M); skipped when empty")
	flagReps    = flag.Int("prolly.reps", 3, "repetitions for -prolly.records")
	flagOut     = flag.String("prolly.out", "", "write the -prolly.records report (markdown) here")
)

// TestProllyFullSize runs the real matrix when -prolly.records is given, for
// profiling with go test -cpuprofile (the CLI is sidecar-bench prolly).
func TestProllyFullSize(t *testing.T) {
	if *flagRecords == "" {
		t.Skip("set -prolly.records to run")
	}
	sizes, err := ParseRecords(*flagRecords)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunProlly(t.Context(), ProllyOptions{Records: sizes, Reps: *flagReps, Out: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	if *flagOut != "" {
		if err := WriteProllyFiles(*flagOut, rep); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChecksCatchWrongAnswers builds a tree, then judges it against a
// workload with another seed (same keys' positions, other bytes): every
// checked cell must fail, so a broken engine cannot post a fast number.
func TestChecksCatchWrongAnswers(t *testing.T) {
	ctx := t.Context()
	o := ProllyOptions{Records: []int{20_000}, Reps: 1, Batch: 1_000}.withDefaults()
	r := &sizeRun{o: o, w: &workload{n: 20_000, seed: 1}, dir: t.TempDir(), res: &SizeResult{}, batchRoots: map[string][]mutated{}}
	if err := r.open(); err != nil {
		t.Fatal(err)
	}
	defer r.close(ctx)
	if err := r.build(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.scan(ctx); err != nil {
		t.Fatalf("scan of the right tree: %v", err)
	}
	r.w = &workload{n: 20_000, seed: 2}
	for name, fn := range map[string]func(context.Context) error{
		"scan": r.scan, "point gets": r.pointGets, "GetMany": r.getMany, "range": r.rangeScan, "digests": r.digests,
	} {
		if err := fn(ctx); err == nil {
			t.Errorf("%s accepted a tree built from other rows", name)
		}
	}
	r.w = &workload{n: 20_000, seed: 1}
	eds := r.edits(r.w.inserts(patRandom, 10, r.w.rng("x", 0), 0, 1), 1)
	if err := r.checkRows(ctx, r.base, 20_000+len(eds), eds); err == nil {
		t.Error("checkRows accepted a tree without the inserted rows")
	}
	if err := r.checkRows(ctx, r.base, 20_000, eds); err == nil {
		t.Error("checkRows accepted a tree whose inserted rows are missing")
	}
}

func TestParseRecords(t *testing.T) {
	for in, want := range map[string][]int{"1000000,10000000": {1_000_000, 10_000_000}, "1M, 10M": {1_000_000, 10_000_000}, "20k": {20_000}} {
		got, err := ParseRecords(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseRecords(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1G", "1M,", "abc", "99999999999999999999M"} {
		if got, err := ParseRecords(in); err == nil {
			t.Errorf("ParseRecords(%q) = %v, want an error", in, got)
		}
	}
}

// TestMarkdownAtTargetSize renders a synthetic 1M + 10M report, so that the
// parts only written at the seed's sizes (seed columns, targets, verdicts,
// interpretation) are exercised without a 10M run.
func TestMarkdownAtTargetSize(t *testing.T) {
	rep := &ProllyReport{Started: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Reps: 3, Seed: 1, Batch: 10_000}
	for _, n := range []int{seedSmall, seedLarge} {
		s := SizeResult{Records: n, Tree: TreeStats{Nodes: 10, Height: 2, NodesPerLevel: []int{9, 1}, BytesPerLevel: []int64{9 << 12, 1 << 12}, PeakRSSBuild: 2 << 30, PeakRSSReset: true}}
		for i, spec := range prollyCells {
			ops, reps := 10_000, 3
			if spec.id == "build" || spec.id == "scan" {
				ops, reps = n, 1
			}
			// Every cell twice its target (or 1 ms), CPU at half the wall.
			d := 2 * spec.target
			if d == 0 || spec.id == "batch/append" {
				d = time.Millisecond
			}
			if spec.perOp {
				d *= time.Duration(ops)
			}
			c := Cell{ID: spec.id, Ops: ops}
			for range reps {
				c.Samples = append(c.Samples, d)
				c.CPU = append(c.CPU, d/2)
				c.RunqWait = append(c.RunqWait, d/2)
				c.DiskRead, c.DiskWrite = append(c.DiskRead, 0), append(c.DiskWrite, 4096)
				c.NodeReads, c.NodePuts = append(c.NodeReads, int64(i)), append(c.NodePuts, int64(i+1))
			}
			s.Cells = append(s.Cells, c)
		}
		rep.Sizes = append(rep.Sizes, s)
	}
	var b bytes.Buffer
	if err := WriteProllyMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "%!") {
		t.Errorf("formatting error in the report:\n%s", md)
	}
	for _, want := range []string{
		"| cell | seed 1M | ours 1M | seed 10M | ours 10M | target (10M) | ratio seed/ours |",
		"| Random batch, 10k | 8.93 s | **800 ms** (800 ms–800 ms), 12,500/s | 92.0 s | **800 ms** (800 ms–800 ms), 12,500/s | ≤ 400 ms ✗ | 1M 11×; 10M 115× |",
		"**Random batch, 10k**: 800 ms wall against ≤ 400 ms (2.0× over); CPU 400 ms, meets it on CPU time",
		"Peak RSS during the build**: 2.00 GiB against ≤ 1 GiB",
		"| random batch ÷ append batch at 10M | 2,031 | **800.00** ✗ | 800.00 ✗ | ≤ 25 |",
		"the first factor alone is ~1 here (nodes put 4 vs 3)",
		"| nodes per level, leaves first | — | 9 / 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestProllySteps runs only the selected steps (diff bringing batch, whose
// trees it reads), and rejects unknown step names.
func TestProllySteps(t *testing.T) {
	o := ProllyOptions{Records: []int{20_000}, Dir: t.TempDir(), Reps: 1, Batch: 1_000, Steps: []string{"diff"}}
	rep, err := RunProlly(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range rep.Sizes[0].Cells {
		ids = append(ids, c.ID)
		if !strings.HasPrefix(c.ID, "build") && !strings.HasPrefix(c.ID, "batch/") && !strings.HasPrefix(c.ID, "diff/") {
			t.Errorf("cell %s ran, but only diff (and the batches it reads) were asked for", c.ID)
		}
		if len(c.SysCPU) != len(c.Samples) || len(c.MinorFaults) != len(c.Samples) {
			t.Errorf("cell %s: %d samples but %d sys CPU and %d minor-fault readings", c.ID, len(c.Samples), len(c.SysCPU), len(c.MinorFaults))
		}
	}
	for _, want := range []string{"build", "batch/random", "diff/random"} {
		if !slices.Contains(ids, want) {
			t.Errorf("cell %s missing from %v", want, ids)
		}
	}
	o.Steps = []string{"diffs"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `"diffs"`) {
		t.Errorf("Validate of an unknown step: %v", err)
	}
}
