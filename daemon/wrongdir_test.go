package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// TestWrongDataDirNeverLosesChanges is issue 16's silent loss: a start
// with an empty data_dir (an unmounted volume, a typo) next to the slot
// of a real mirror must refuse instead of recreating the slot; once
// another data directory did take the slot over (--resync there) and
// moved it on, the real mirror, behind the slot's confirmed_flush_lsn,
// must refuse instead of streaming past the changes it never got; and
// --resync recovers it, equal to PostgreSQL.
func TestWrongDataDirNeverLosesChanges(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE w (id int PRIMARY KEY, v text)", "INSERT INTO w SELECT g, 'a' FROM generate_series(1, 100) g")
	real := testConfig(t, url, "public.w")
	var logs syncBuilder
	r := start(t, real, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE w SET v = 'b' WHERE id = 1"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}

	// An empty data directory beside the existing slot.
	wrong := *real
	wrong.DataDir = filepath.Join(t.TempDir(), "empty")
	err := runRefused(t, Options{Config: &wrong})
	if !errors.Is(err, ErrForeignSlot) {
		t.Fatalf("empty data_dir next to the slot: %v\n%s", err, logs.String())
	}
	for _, want := range []string{`slot "` + real.Slot + `"`, "confirmed_flush_lsn", "--resync", wrong.DataDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %q: %v", want, err)
		}
	}
	t.Logf("empty data_dir: %v", err)

	// Someone takes the slot over from the wrong directory and follows
	// writes the real mirror never sees.
	w := startOpts(t, Options{Config: &wrong, Resync: true}, &logs)
	w.waitDurable(t, marker(t, url, "INSERT INTO w VALUES (400, 'lost?')"))
	if err := w.stop(); err != nil {
		t.Fatal(err)
	}
	execSQL(t, url, "UPDATE w SET v = 'c' WHERE id = 2")

	err = runRefused(t, Options{Config: real})
	if !errors.Is(err, ErrForeignSlot) || !strings.Contains(err.Error(), "--resync") || !strings.Contains(err.Error(), "durable only up to") {
		t.Fatalf("the real data_dir behind its slot: %v", err)
	}
	t.Logf("real data_dir behind the slot: %v", err)

	// --resync recovers: the mirror equals PostgreSQL.
	r = startOpts(t, Options{Config: real, Resync: true}, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE w SET v = 'd' WHERE id = 3"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	durable, got := mirrortest.MirrorRows(t, real.DataDir, "public.w")
	if want := mirrortest.PGRows(t, url, "public.w"); !slices.Equal(got, want) {
		// Name the rows that differ (the counts alone were all a matrix
		// failure on PostgreSQL 14 said) and the log, to find the cause.
		var only []string
		for _, r := range got {
			if !slices.Contains(want, r) {
				only = append(only, "mirror only: "+r)
			}
		}
		for _, r := range want {
			if !slices.Contains(got, r) {
				only = append(only, "PostgreSQL only: "+r)
			}
		}
		t.Fatalf("after --resync: mirror %d rows at durable %s, PostgreSQL %d:\n%s\nlog:\n%s",
			len(got), durable, len(want), strings.Join(only, "\n"), logs.String())
	}

	// A clean restart of the recovered mirror is not refused (its own
	// acknowledgements, idle ones included, are known to it).
	r = start(t, real, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE w SET v = 'e' WHERE id = 4"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
}

// runRefused runs a daemon that should refuse to start; one that starts
// anyway is stopped after 30 s (Run then returns nil).
func runRefused(t *testing.T, opts Options) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return Run(ctx, opts)
}
