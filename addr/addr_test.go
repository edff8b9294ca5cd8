package addr

import "testing"

func TestOfIsStableAndParses(t *testing.T) {
	h := Of([]byte("sidecar"))
	// Pinned: changing the address function changes every stored node.
	const want = "6c8b4535ccc87f19061c4646189e33d78f01c8b6"
	if h.String() != want {
		t.Fatalf("Of(sidecar) = %s, want %s", h, want)
	}
	got, err := Parse(h.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != h {
		t.Fatalf("round trip: got %s want %s", got, h)
	}
	if h.IsZero() || !Zero.IsZero() {
		t.Fatal("IsZero wrong")
	}
	if _, err := Parse("zz"); err == nil {
		t.Fatal("Parse accepted a short string")
	}
}
