package types

import (
	"hash/maphash"
	"testing"
)

// TestJSONBHashFollowsEquality: values CompareJSONB finds equal (numbers
// of different scale, at any depth) hash alike; a raw scalar and the
// one-element array holding it are different values.
func TestJSONBHashFollowsEquality(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, p := range [][2]string{
		{`1`, `1.0`}, {`[1.50, {"a": 0}]`, `[1.5, {"a": 0.000}]`}, {`{"a": -0}`, `{"a": 0}`}, {`"é"`, `"é"`},
	} {
		a, err := parseJSONB(p[0])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := parseJSONB(p[1])
		if CompareJSONB(a, b) != 0 || Hash(seed, JSONB, a) != Hash(seed, JSONB, b) {
			t.Errorf("%s and %s: compare %d, hashes differ %v", a, b, CompareJSONB(a, b), Hash(seed, JSONB, a) != Hash(seed, JSONB, b))
		}
	}
	for _, p := range [][2]string{{`1`, `[1]`}, {`[]`, `{}`}, {`"1"`, `1`}, {`[[1]]`, `[1]`}, {`{"a": 1}`, `{"b": 1}`}} {
		if CompareJSONB(p[0], p[1]) == 0 {
			t.Errorf("%s = %s", p[0], p[1])
		}
	}
}
