package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The shipped example must load, and must mention every key, so it stays the
// complete, commented reference it claims to be.
func TestExampleConfigLoadsAndCoversEveryKey(t *testing.T) {
	file := filepath.Join("..", "examples", "sidecar.yaml")
	cfg, err := Load(LoadOptions{File: file, Environ: []string{"SIDECAR_DATA_DIR=" + t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Publication == "" || len(cfg.Tables) == 0 {
		t.Fatalf("example loaded empty: %+v", cfg)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := yamlKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k.key] = true
	}
	for k := range knownKeys() {
		if !seen[k] {
			t.Errorf("examples/sidecar.yaml does not document %q", k)
		}
	}
}
