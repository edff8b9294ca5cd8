package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writeReportFiles writes a benchmark report twice: the markdown that
// render prints, to path (its directory created), and the raw report rep
// as indented JSON beside it (JSONPath), from which the markdown can be
// rendered again without running the benchmark.
func writeReportFiles(path string, rep any, render func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create report dir: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create report: %w", err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(JSONPath(path), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write raw report: %w", err)
	}
	return nil
}

// JSONPath is the raw report's path beside the markdown one at md.
func JSONPath(md string) string {
	return strings.TrimSuffix(md, filepath.Ext(md)) + ".json"
}
