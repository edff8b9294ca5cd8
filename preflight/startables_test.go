package preflight

import (
	"strings"
	"testing"
)

// TestStarPublicationOwner: with tables ["*"], a table the publication
// does not cover is one the sidecar adds when the publication is its own
// (OK, saying so), and one that is simply not followed when the user made
// the publication (a warning saying how to add it).
func TestStarPublicationOwner(t *testing.T) {
	tables := []tableFacts{{qualified: "public.a", found: true, hasPK: true, replident: "d"},
		{qualified: "public.jt", found: true, hasPK: true, replident: "d"}}
	p := pubFacts{exists: true, insert: true, update: true, delete: true, truncate: true, covered: map[string]bool{"public.a": true}}
	c := checkPublication("sidecar", p, true, tables)
	if c.Status != Warn || !strings.Contains(c.Detail, "does not cover public.jt") || !strings.Contains(c.Detail, "did not create") ||
		!strings.Contains(c.Fix, "ADD TABLE public.jt") {
		t.Errorf("the user's publication: %+v", c)
	}
	p.managed = true
	c = checkPublication("sidecar", p, true, tables)
	if c.Status != OK || !strings.Contains(c.Detail, "sidecar run adds public.jt") {
		t.Errorf("the sidecar's publication: %+v", c)
	}
	c = checkPublication("sidecar", p, false, tables) // named tables: never added
	if c.Status != Fail || !strings.Contains(c.Detail, "does not cover public.jt") {
		t.Errorf("named tables, the sidecar's publication: %+v", c)
	}
}
