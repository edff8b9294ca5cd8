package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunReplicationSmall runs every phase of the replication benchmark at
// 10k rows, so that the benchmark cannot rot between the long runs: every
// cell must have its samples, every correctness check must pass, and the
// report must render with a row per target.
func TestRunReplicationSmall(t *testing.T) {
	var progress bytes.Buffer
	prof := t.TempDir()
	o := ReplicationOptions{Rows: []int{10_000}, Reps: 2, UpdateRows: 2_000, Txns: 400, Clients: 4, Sustain: 2 * time.Second, Dir: t.TempDir(), ProfileDir: prof, Out: &progress}
	rep, err := RunReplication(t.Context(), o)
	if err != nil {
		t.Fatalf("RunReplication: %v\nprogress:\n%s", err, progress.String())
	}
	if len(rep.Sizes) != 1 {
		t.Fatalf("%d sizes, want 1", len(rep.Sizes))
	}
	s := rep.Sizes[0]
	cells := map[string]*Cell{
		"copy_out": &s.CopyOut, "sub_sync": &s.SubSync, "sidecar_copy": &s.SidecarCopy,
		"update_stmt": &s.UpdateStmt, "sidecar_update": &s.SidecarUpdate, "sidecar_update_durable": &s.SidecarDur,
		"sub_update": &s.SubUpdate, "raw_decode": &s.RawDecode, "sidecar_update_down": &s.SidecarUpdateDown, "sub_update_down": &s.SubUpdateDown,
		"sidecar_catch": &s.SidecarCatch, "sub_catch": &s.SubCatch, "raw_catch": &s.RawCatch,
	}
	for name, c := range cells {
		want := o.Reps
		if name == "update_stmt" {
			want = 2 * o.Reps // one UPDATE per live consumer
		}
		if len(c.Samples) != want {
			t.Errorf("cell %s: %d samples, want %d", name, len(c.Samples), want)
		}
		for _, d := range c.Samples {
			if d <= 0 || d > time.Minute {
				t.Errorf("cell %s: sample %s out of range", name, d)
			}
		}
	}
	if s.UpdateRows != 2_000 {
		t.Errorf("update changed %d rows, want 2000", s.UpdateRows)
	}
	if s.CatchTxns != 400 {
		t.Errorf("catch-up ran %d txns, want 400", s.CatchTxns)
	}
	su := s.Sustained
	if su == nil || su.Txns <= 0 || len(su.Lag) == 0 {
		t.Fatalf("sustained cell missing or empty: %+v", su)
	}
	if su.Badger.User <= 0 || su.Commits < su.Txns {
		t.Errorf("sustained: %d bytes handed to Badger, %d commits applied for %d txns", su.Badger.User, su.Commits, su.Txns)
	}
	phases := []string{"initial copy", "big update", "catch-up", "sustained"}
	if len(s.Checks) != len(phases) {
		t.Fatalf("%d checks, want %d", len(s.Checks), len(phases))
	}
	for i, c := range s.Checks {
		if c.Phase != phases[i] || !c.OK || c.Publisher.Rows != 10_000 {
			t.Errorf("check %d: %+v", i, c)
		}
	}
	for _, name := range []string{"sidecar_copy-0", "sidecar_copy-1", "sidecar_update-1", "sidecar_update_down-0", "sidecar_catch-1", "sustained-0"} {
		st, err := os.Stat(filepath.Join(prof, "10k-"+name+".prof"))
		if err != nil || st.Size() == 0 {
			t.Errorf("profile %s missing or empty: %v", name, err)
		}
	}
	var md bytes.Buffer
	if err := WriteReplicationMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if got, want := len(s.Targets()), 7; got != want {
		t.Errorf("%d target rows, want %d", got, want)
	}
	for _, want := range []string{"## 10k rows", "initial copy vs built-in subscriber sync", "≥ 30k txn/s", "| sustained |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("progress:\n%s", progress.String())
	}
}

// TestChecksumDetectsDifference checks that the checksum sees a changed
// value, a missing row and a reordering of the same lines.
func TestChecksumDetectsDifference(t *testing.T) {
	sum := func(lines ...string) Checksum {
		c := newChecksummer()
		for _, l := range lines {
			c.add([]byte(l), 1)
		}
		return c.result()
	}
	base := sum("1:aa:x:1", "2:bb:y:1")
	for name, other := range map[string]Checksum{
		"value":   sum("1:aa:x:1", "2:bb:z:1"),
		"missing": sum("1:aa:x:1"),
		"order":   sum("2:bb:y:1", "1:aa:x:1"),
	} {
		if other == base {
			t.Errorf("%s: checksum %s equals the base", name, other)
		}
	}
	if again := sum("1:aa:x:1", "2:bb:y:1"); again != base {
		t.Errorf("same lines: %s != %s", again, base)
	}
}
