package main

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/daemon"
)

// TestStatusTextSaysWhatItKnows: a stopped daemon is "not running" with the
// WAL it is behind and no growing time lag; a just-started one has received
// "nothing yet", not 0/0 (issue 25).
func TestStatusTextSaysWhatItKnows(t *testing.T) {
	render := func(st daemon.Status) string {
		var b strings.Builder
		if err := writeStatus(&b, st); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	stopped := render(daemon.Status{Phase: "stopped", DurableLSN: "0/1A2B3C", ServerLSN: "0/1A2C00", LagBytes: 196, LagSeconds: 57.3})
	for _, want := range []string{"stopped (daemon not running", "196 bytes of server WAL not applied", "no time lag measured"} {
		if !strings.Contains(stopped, want) {
			t.Errorf("stopped status lacks %q:\n%s", want, stopped)
		}
	}
	if strings.Contains(stopped, "57.3") {
		t.Errorf("stopped status shows the age of the last commit as lag:\n%s", stopped)
	}
	unreached := render(daemon.Status{Phase: "stopped", DurableLSN: "0/1A2B3C", LagSeconds: 57.3})
	if !strings.Contains(unreached, "unknown (not running, and PostgreSQL not reached)") {
		t.Errorf("stopped status without the server lacks the unknown lag:\n%s", unreached)
	}
	started := render(daemon.Status{Phase: "streaming", Connected: true, ReceivedLSN: "0/0", DurableLSN: "0/1A2B3C"})
	if strings.Contains(started, "0/0") || !strings.Contains(started, "nothing yet since the start") {
		t.Errorf("just-started status:\n%s", started)
	}
	if !strings.Contains(started, "lag") {
		t.Errorf("running status lost its lag line:\n%s", started)
	}
	// A resync's copy built and held until the stream reaches its LSN.
	held := render(daemon.Status{Phase: "streaming", Connected: true, ReceivedLSN: "0/1A2B3C", DurableLSN: "0/1A2B3C",
		Tables: []daemon.TableStatus{{Name: "public.a", State: "resync_needed", Rows: 10, CopiedAt: "0/100", HeldUntil: "0/1A2C00"}}})
	if !strings.Contains(held, "resync_needed (copy held until the stream reaches 0/1A2C00)") {
		t.Errorf("status of a held copy:\n%s", held)
	}
}
