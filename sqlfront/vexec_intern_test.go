package sqlfront

import (
	"fmt"
	"testing"
)

// TestInterner checks that interned strings equal their bytes, that a
// low-cardinality column shares one string per value (no allocation per
// row once seen), and that a high-cardinality one turns interning off
// with its memory released.
func TestInterner(t *testing.T) {
	var in interner
	flags := [][]byte{[]byte("A"), []byte("N"), []byte("R"), []byte("")}
	for i := 0; i < 3000; i++ {
		b := flags[i%len(flags)]
		if s := in.str(b); s != string(b) {
			t.Fatalf("%q interned as %q", b, s)
		}
	}
	if in.off || len(in.m) != len(flags) {
		t.Fatalf("low cardinality: off=%v, %d strings kept", in.off, len(in.m))
	}
	buf := []byte("R")
	if n := testing.AllocsPerRun(100, func() { _ = in.str(buf) }); n != 0 {
		t.Fatalf("a seen value allocates %v times", n)
	}
	s := in.str(buf)
	buf[0] = 'X' // the caller's bytes change (a page is reused): the string must not
	if s != "R" {
		t.Fatalf("interned string changed with its bytes: %q", s)
	}
	// Values sharing a slot (same length, first and last bytes) each
	// come back as themselves, from the slot or the map.
	same := [][]byte{[]byte("AxB"), []byte("AyB"), []byte("AzB"), []byte("AxB")}
	for i := 0; i < 200; i++ {
		b := same[i%len(same)]
		if s := in.str(b); s != string(b) {
			t.Fatalf("%q interned as %q", b, s)
		}
	}
	var many interner
	for i := 0; i < 5000; i++ {
		b := []byte(fmt.Sprintf("comment %d", i))
		if s := many.str(b); s != string(b) {
			t.Fatalf("%q interned as %q", b, s)
		}
	}
	if !many.off || many.m != nil {
		t.Fatalf("high cardinality: off=%v, %d strings kept", many.off, len(many.m))
	}
	long := make([]byte, internLen+1)
	if s := in.str(long); s != string(long) {
		t.Fatal("a long value changed")
	}
}
