package refs

import (
	"strings"
	"testing"
	"time"
)

func TestParseRef(t *testing.T) {
	ok := []struct {
		in   string
		kind RefKind
		n    int
		lsn  uint64
		name string
	}{
		{"HEAD", RefHead, 0, 0, ""},
		{"HEAD~0", RefHead, 0, 0, ""},
		{"HEAD~12", RefHead, 12, 0, ""},
		{"HEAD^^", RefHead, 2, 0, ""},
		{"0/16B3748", RefLSN, 0, 0x16B3748, ""},
		{"1/0", RefLSN, 0, 1 << 32, ""},
		{"before-migration", RefName, 0, 0, "before-migration"},
		{"release/2026.11", RefName, 0, 0, "release/2026.11"},
		{"_x", RefName, 0, 0, "_x"},
	}
	for _, c := range ok {
		r, err := ParseRef(c.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", c.in, err)
			continue
		}
		if r.Kind != c.kind || r.N != c.n || uint64(r.LSN) != c.lsn || r.Name != c.name || r.String() != c.in {
			t.Errorf("ParseRef(%q) = %+v", c.in, r)
		}
	}
	r, err := ParseRef("@2026-11-30T10:00:00Z")
	if err != nil || r.Kind != RefTime || !r.Time.Equal(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("time ref: %+v %v", r, err)
	}
	bad := map[string]string{
		"":              "empty ref",
		"HEAD~":         "non-negative number",
		"HEAD~-1":       "non-negative number",
		"HEAD~x":        "non-negative number",
		"HEAD^~":        "write HEAD~N",
		"@yesterday":    "RFC 3339",
		"@2026-11-30":   "RFC 3339",
		"1abc":          "valid tag or branch name",
		"a b":           "valid tag or branch name",
		"x..y":          "no '..'",
		"tag/":          "no '..'",
		"'; DROP TABLE": "valid tag or branch name",
	}
	for in, want := range bad {
		_, err := ParseRef(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRef(%q) = %v, want error containing %q", in, err, want)
		}
	}
}

func TestValidateNameRejectsRefLookalikes(t *testing.T) {
	for _, n := range []string{"HEAD", "HEAD~1", "0/1"} {
		if ValidateName(n) == nil {
			t.Errorf("ValidateName(%q) accepted", n)
		}
	}
}
