package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestVerifyWaitsForCopyAndResync: with a daemon running, `sidecar verify`
// during the initial copy, and right after an ALTER TABLE … ADD COLUMN …
// DEFAULT (with and without a row change carrying it to the mirror), says
// what it waits for, waits until the copy or resync is done and then
// verifies (exit 0); when its --wait runs out it names the table and
// since when (exit 2), never "columns differ".
func TestVerifyWaitsForCopyAndResync(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE big (id int PRIMARY KEY, n bigint NOT NULL, note text)",
		// Big enough that verify starts while it is being copied.
		"INSERT INTO big SELECT g, g, repeat('x', 60) || g FROM generate_series(1, 300000) g")
	file, _ := runConfig(t, url, "public.big")
	p := sidecarProcess(t, "run", "--config", file)
	base := p.waitListen(t)
	listen := strings.TrimPrefix(base, "http://")
	verify := func(wait string) (string, string, int) {
		return verifyCLI(t, "--config", file, "--listen", listen, "--wait", wait)
	}

	// During the copy, a wait too short: exit 2 naming the copy.
	out, errOut, code := verify("200ms")
	if code != 2 || !strings.Contains(errOut, "being copied or resynced") || !strings.Contains(errOut, "public.big is being copied") && !strings.Contains(errOut, "initial copy has not started") || strings.Contains(errOut, "columns differ") {
		t.Fatalf("verify --wait 200ms during the copy: exit %d, want 2 naming the copy\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "verify: waiting up to 200ms for") {
		t.Errorf("verify during the copy did not say what it waits for:\n%s", errOut)
	}
	t.Logf("wait ran out: %s", errorLine(errOut))
	// Once its ranges are being copied, the error names the table and
	// since when.
	waitFor(t, "the copy of public.big under way", 60*time.Second, func() bool {
		_, body := httpBody(t, base+"/api/status")
		var st struct {
			Copy []struct {
				Table string `json:"table"`
				Rows  int64  `json:"rows"`
				Done  bool   `json:"done"`
			} `json:"copy"`
		}
		return jsonUnmarshal(body, &st) == nil && len(st.Copy) == 1 && st.Copy[0].Rows > 0 && !st.Copy[0].Done
	})
	out, errOut, code = verify("200ms")
	copied := code == 0
	switch {
	case code == 0 && strings.Contains(out, "equal"):
		// The copy ended within the 200 ms: it waited, then verified.
		t.Logf("the copy finished within the wait; verified: %s", strings.TrimSpace(errOut))
	case code != 2 || !strings.Contains(errOut, "public.big is being copied (initial copy; its copy started"):
		t.Fatalf("verify --wait 200ms while public.big is copied: exit %d, want 2 naming it and since when\n%s", code, errOut)
	default:
		t.Logf("wait ran out: %s", errorLine(errOut))
	}
	// During the copy, waiting: the copy finishes, then verify runs.
	out, errOut, code = verify("3m")
	if code != 0 || !strings.Contains(out, "equal") {
		t.Fatalf("verify --wait 3m during the copy: exit %d\n%s\n%s", code, out, errOut)
	}
	if !copied && !strings.Contains(errOut, "verify: waiting up to 3m0s for") {
		t.Errorf("verify started after the copy: the test proves nothing (stderr %q)", errOut)
	}

	// A schema change carried by a row change: the mirror resyncs the table.
	mustExec(t, url, "ALTER TABLE big ADD COLUMN extra int NOT NULL DEFAULT 7", "UPDATE big SET n = n + 1 WHERE id = 1")
	out, errOut, code = verify("3m")
	if code != 0 || !strings.Contains(out, "equal") {
		t.Fatalf("verify right after ALTER … ADD COLUMN … DEFAULT and a row change: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("after ALTER + UPDATE: %s", strings.TrimSpace(errOut))

	// A schema change no row change carried: verify has it resynced.
	mustExec(t, url, "ALTER TABLE big ADD COLUMN other text DEFAULT 'd'")
	out, errOut, code = verify("3m")
	if code != 0 || !strings.Contains(out, "equal") {
		t.Fatalf("verify right after ALTER … ADD COLUMN … DEFAULT alone: exit %d\n%s\n%s", code, out, errOut)
	}

	// A resync that outlasts the wait: exit 2 naming it and since when.
	mustExec(t, url, "ALTER TABLE big ADD COLUMN third int DEFAULT 3", "UPDATE big SET n = n + 1 WHERE id = 2")
	_, errOut, code = verify("1ms")
	if code != 2 || strings.Contains(errOut, "columns differ") || !strings.Contains(errOut, "public.big is being resynced") || !strings.Contains(errOut, "held from commit LSN") {
		t.Fatalf("verify --wait 1ms during a resync: exit %d, want 2 naming the resync, not columns differ\n%s", code, errOut)
	}
	t.Logf("resync wait ran out: %s", errorLine(errOut))
	out, errOut, code = verify("3m")
	if code != 0 || !strings.Contains(out, "equal") {
		t.Fatalf("verify after the resync: exit %d\n%s\n%s", code, out, errOut)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, 60*time.Second)
}

// errorLine is the "Error: …" line of a command's stderr.
func errorLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Error:") {
			return l
		}
	}
	return s
}
