package history

import (
	"bytes"
	"encoding/json"
	"testing"
)

func marshalNoHTML(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestJSONMatchesEncodingJSON checks the hand-written encoder against
// encoding/json: strings (control characters, quotes, invalid UTF-8,
// U+2028) and whole events with every optional field present or absent.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	rng := seeded(t)
	alphabet := []string{"a", "é", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\xff", "\xe2\x80\xa8", "\u2029", "<", "&", "'); DROP TABLE x; --", "💥", "\xed\xa0\x80"}
	str := func() string {
		var b bytes.Buffer
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 2000 {
		s := str()
		if got, want := appendString(nil, s), marshalNoHTML(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
	row := func() *Row {
		if rng.IntN(3) == 0 {
			return nil
		}
		r := &Row{}
		for range 1 + rng.IntN(3) {
			r.Names = append(r.Names, str())
			var v *string
			if rng.IntN(3) > 0 {
				s := str()
				v = &s
			}
			r.Values = append(r.Values, v)
		}
		return r
	}
	maybe := func() string {
		if rng.IntN(2) == 0 {
			return ""
		}
		return str()
	}
	num := func() *int64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		n := rng.Int64N(1000) - 10
		return &n
	}
	for range 500 {
		e := &Event{Type: str(), Table: str(), FromRef: maybe(), ToRef: maybe(), Op: maybe(), Kind: maybe(),
			Key: row(), From: row(), To: row(), Base: row(), Ours: row(), Theirs: row(),
			RowsAdded: num(), RowsRemoved: num(), RowsChanged: num()}
		for range rng.IntN(3) {
			e.Columns = append(e.Columns, Column{Name: str(), Type: str(), Key: rng.IntN(2) == 0})
			e.Changed = append(e.Changed, str())
		}
		if rng.IntN(3) == 0 {
			e.SchemaChange = &SchemaChange{Added: []string{str()}, Dropped: []string{}}
		}
		if got, want := appendEvent(nil, e), marshalNoHTML(t, e); !bytes.Equal(got, want) {
			t.Fatalf("appendEvent:\n%s\nencoding/json:\n%s", got, want)
		}
		// And the row objects read back through UnmarshalJSON.
		if e.To != nil {
			var back Row
			if err := json.Unmarshal(appendRow(nil, e.To), &back); err != nil {
				t.Fatal(err)
			}
			if len(back.Names) != len(e.To.Names) {
				t.Fatalf("row round trip: %+v vs %+v", back, e.To)
			}
		}
	}
}
