package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/store"
)

// TestSetGoneBumpsFacts: marking a table gone (and back) is seen by Gone
// and moves the facts generation, which HEAD's table set and cached
// plans are keyed by; marking it again the same way does not.
func TestSetGoneBumpsFacts(t *testing.T) {
	db, err := store.Open(store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := Open(t.Context(), Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(t.Context())
	g0 := m.FactsGeneration()
	m.SetGone("public.t", true)
	if !m.Gone("public.t") || m.Gone("public.u") || m.FactsGeneration() == g0 {
		t.Fatalf("after SetGone(true): gone %v, other %v, generation %d → %d", m.Gone("public.t"), m.Gone("public.u"), g0, m.FactsGeneration())
	}
	g1 := m.FactsGeneration()
	m.SetGone("public.t", true)
	if m.FactsGeneration() != g1 {
		t.Errorf("marking a gone table gone again moved the generation")
	}
	m.SetGone("public.t", false)
	if m.Gone("public.t") || m.FactsGeneration() == g1 {
		t.Errorf("after SetGone(false): gone %v, generation %d → %d", m.Gone("public.t"), g1, m.FactsGeneration())
	}
}
