package daemon

import (
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/internal/testkit/racedetector"
)

// TestStopDuringInitialCopy: a shutdown (SIGTERM) while the initial copy
// runs is a clean stop, whatever the copy was doing when its context
// ended: Run returns nil (exit status 0), and the next start copies the
// table again and follows it.
func TestStopDuringInitialCopy(t *testing.T) {
	url := pg.NewDB(t)
	// Rows enough for the copy to outlast the stops (0, 100 and 400 ms
	// after it began; the test fails if none came during it). Under the
	// race detector, which makes the copy several times slower, a quarter
	// (100,000 rows took 185 s at load 40 there, copied four times).
	rows := 100000
	if racedetector.Enabled {
		rows = 25000
	}
	execSQL(t, url, "CREATE TABLE big (id int PRIMARY KEY, pad text)",
		fmt.Sprintf("INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, %d) g", rows))
	cfg := testConfig(t, url, "public.big")
	copying := 0
	for _, after := range []time.Duration{0, 100 * time.Millisecond, 400 * time.Millisecond} {
		r := start(t, cfg, io.Discard)
		// Wait for the copy to begin (on a loaded machine the first
		// status may still say "starting"), then let it run a while.
		for deadline := time.Now().Add(2 * time.Minute); r.status(t).Phase == "starting" && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond)
		}
		time.Sleep(after)
		if r.status(t).Phase == "copying" {
			copying++
		}
		if err := r.stop(); err != nil {
			t.Fatalf("stop %v after ready, during the copy: %v", after, err)
		}
	}
	if copying == 0 {
		t.Fatal("no stop came during the copy: the test tests nothing")
	}
	r := start(t, cfg, io.Discard)
	// The first marker races the copy: when it commits after the slot's
	// consistent point, Durable still jumps past its start (to that point)
	// before the stream applies it. The second is taken while streaming.
	r.waitDurable(t, marker(t, url, "UPDATE big SET pad = 'y' WHERE id = 1"))
	r.waitDurable(t, marker(t, url, "UPDATE big SET pad = 'z' WHERE id = 2"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.big")
	if want := mirrortest.PGRows(t, url, "big"); !slices.Equal(got, want) {
		t.Fatalf("after stops during the copy and a restart: mirror %d rows, PostgreSQL %d", len(got), len(want))
	}
}
