package main

import (
	"regexp"
	"strings"
	"testing"
)

// The README's first command must keep working: the tour runs end to end
// and shows the changes it made, the diff of a bad change and its revert,
// verify (equal, then naming a drifted row), and the resync that repairs it.
func TestDemoShowsItsChanges(t *testing.T) {
	out, errOut, code := sidecar(t, "demo", "--rows", "500")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"public.accounts: ready, 500 rows copied",
		"4 commits applied",
		"tagged 0/",
		"0 rows added, 50 removed, 0 changed", // balance < 100: a tenth of the 496 rows
		"1 conflicts",
		"(applied to PostgreSQL)",
		"public.accounts  equal",
		"changed key (42)",
		`balance="0.00"`,
		"[public.accounts] copied again; streaming",
		"stopped cleanly",
		"(7, Zoë 'the bold',",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	versions := regexp.MustCompile(`(?m)^   0/[0-9A-F]+\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+public\.accounts (\d+)$`).FindAllStringSubmatch(out, -1)
	var rows []string
	for _, v := range versions {
		rows = append(rows, v[1])
	}
	if got := strings.Join(rows, ","); !strings.HasPrefix(got, "10,5,1,1,") {
		t.Errorf("versions' rows changed = %s, want 10,5,1,1,…:\n%s", got, out)
	}
}
