package demo

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// The README's first command must keep working: the tour runs end to end
// and shows the changes it made as versions.
func TestDemoShowsItsChanges(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Out: &out, Rows: 500}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"public.accounts: ready, 500 rows copied",
		"4 commits applied",
		"stopped cleanly",
		"public.accounts at HEAD: 496 rows",
		"(7, Zoë 'the bold',",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q:\n%s", want, s)
		}
	}
	versions := regexp.MustCompile(`(?m)^   0/[0-9A-F]+\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+public\.accounts (\d+)$`).FindAllStringSubmatch(s, -1)
	var rows []string
	for _, v := range versions {
		rows = append(rows, v[1])
	}
	if strings.Join(rows, ",") != "10,5,1,1" {
		t.Errorf("versions' rows changed = %v, want 10,5,1,1:\n%s", rows, s)
	}
}
