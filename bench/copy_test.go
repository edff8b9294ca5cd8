package bench

import (
	"strings"
	"testing"
	"time"
)

// TestWriteCopyMarkdown: the copy report shows each size's medians, the
// HEAD ÷ \copy ratio against the 1.5× target, the CPU ÷ \copy's CPU
// (psql and the server) and the load averages.
func TestWriteCopyMarkdown(t *testing.T) {
	s := time.Second
	rep := &CopyReport{Reps: 2, PGVersion: "15", MemoryLimit: "4GiB", EndLoad: "1.00", Cells: []*CopyCell{{
		Rows: 1_000_000, PGBytes: 126 << 20,
		Text: []time.Duration{2 * s, 2 * s}, Binary: []time.Duration{s, s},
		Ready: []time.Duration{2 * s, 2 * s}, Head: []time.Duration{3 * s, 3 * s},
		CPU: []time.Duration{4 * s, 4 * s}, PeakRSS: []int64{1 << 30, 2 << 30},
		LoadAvg: []string{"0.50", "0.70"},
		TextCPU: []time.Duration{2 * s, 2 * s}, PGCPU: []time.Duration{s, s},
	}}}
	var b strings.Builder
	if err := WriteCopyMarkdown(&b, rep, "sidecar-bench copy --rows 1000000 --reps 2"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| 1M | 126 MiB | 2.00 s (2.00 s–2.00 s) | 2.00 s |", "| 1.50× | 2.00× | ✓ |", "memory.limit: 4GiB", "- 1M rows: 0.50; 0.70", "| 2.00 GiB |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
