package deploy

import (
	"encoding/json"
	"os"
	"testing"
)

// TestGrafanaDashboard: deploy/grafana/sidecar.json is a dashboard model
// (title, uid, panels with ids, positions and targets). That every series
// it queries is exported is TestDashboardAgainstLiveMetrics.
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
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if p.ID == 0 || ids[p.ID] || p.Title == "" || p.GridPos.W == 0 || p.GridPos.H == 0 || len(p.Targets) == 0 {
			t.Errorf("panel %q: missing or duplicate id, title, size or targets", p.Title)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			if tg.RefID == "" || tg.Expr == "" {
				t.Errorf("panel %q: a target without refId or expr", p.Title)
			}
		}
	}
}
