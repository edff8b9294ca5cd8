package metrics

import (
	"strings"
	"testing"

	_ "github.com/dgraph-io/badger/v4" // registers Badger's expvars
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSetGathersOwnAndBadgerMetrics(t *testing.T) {
	s := New()
	s.RowsApplied.WithLabelValues("insert").Add(3)
	s.SetPhase("streaming")
	fams, err := s.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
		if !strings.HasPrefix(f.GetName(), "sidecar_") && !strings.HasPrefix(f.GetName(), "go_") && !strings.HasPrefix(f.GetName(), "process_") {
			t.Errorf("metric %s is not named sidecar_*", f.GetName())
		}
	}
	for _, want := range []string{"sidecar_rows_applied_total", "sidecar_phase", "sidecar_badger_put_num_user", "sidecar_badger_write_bytes_user"} {
		if !names[want] {
			t.Errorf("missing %s", want)
		}
	}
	if got := testutil.ToFloat64(s.Phase.WithLabelValues("streaming")); got != 1 {
		t.Errorf("phase streaming = %v", got)
	}
	if got := testutil.ToFloat64(s.Phase.WithLabelValues("copying")); got != 0 {
		t.Errorf("phase copying = %v", got)
	}
	// Two Sets do not collide (no global registry).
	_ = New()
}
