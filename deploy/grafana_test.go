package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/metrics"
)

// TestGrafanaDashboard: deploy/grafana/sidecar.json is a dashboard model
// (title, uid, panels with ids, positions and targets) whose every sidecar_
// series is one the daemon exports, so no panel stays empty for a renamed
// metric.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("grafana/sidecar.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title, UID    string
		SchemaVersion int `json:"schemaVersion"`
		Panels        []struct {
			ID      int
			Type    string
			Title   string
			GridPos struct{ X, Y, W, H int } `json:"gridPos"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("not a JSON dashboard: %v", err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion == 0 || len(d.Panels) == 0 {
		t.Fatalf("dashboard lacks title, uid, schemaVersion or panels: %+v", d)
	}
	// The names the daemon exports: metrics.New's (a Vec has no series
	// before its first label values, so they are read from the source) and
	// the Go runtime's and process collectors'.
	src, err := os.ReadFile("../metrics/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`Name: *"(sidecar_[a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		exported[m[1]] = true
	}
	for _, f := range mustGather(t) {
		exported[f] = true
	}
	ids := map[int]bool{}
	series := regexp.MustCompile(`\b(sidecar|go|process)_[a-z_]+`)
	for _, p := range d.Panels {
		if p.ID == 0 || ids[p.ID] || p.Title == "" || p.GridPos.W == 0 || p.GridPos.H == 0 || len(p.Targets) == 0 {
			t.Errorf("panel %q: missing or duplicate id, title, size or targets", p.Title)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			for _, name := range series.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
				if !exported[base] && !exported[name] {
					t.Errorf("panel %q queries %s, which the daemon does not export", p.Title, name)
				}
			}
		}
	}
}

// mustGather lists the runtime and process series the daemon's registry
// has from the start (go_*, process_*).
func mustGather(t *testing.T) []string {
	families, err := metrics.New().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		out = append(out, f.GetName())
	}
	return out
}
