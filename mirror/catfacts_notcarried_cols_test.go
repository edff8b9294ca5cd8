package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestColumnNumbersRoundTrip: the attnums of the carried columns and the
// definitions of the generated columns the stream does not carry survive
// the relation record (with and without the sections before them), and
// a record written before them (ending after the not-carried names, or
// after the schema facts) decodes with neither.
func TestColumnNumbersRoundTrip(t *testing.T) {
	gen := []wal.NotCarriedColumn{
		{Name: "dur", AttNum: 4, TypeOID: 1186, TypeMod: -1, TypeName: "interval", NotNull: true, Generated: 's',
			Expr: "(closed - opened)", ExprPretty: "closed - opened", Comment: "how long", Storage: "p", StatTarget: "100"},
		{Name: "Label", AttNum: 6, TypeOID: 25, TypeMod: -1, TypeName: "text", Generated: 's', Expr: "upper(note)", ExprPretty: "upper(note)",
			Collation: wal.Collation{Name: "C", Locale: "libc C", Order: wal.CollBytes}, Storage: "x", Compression: "p"},
	}
	for _, schema := range []*wal.SchemaFacts{nil, {}} {
		for _, notCarried := range [][]string{nil, {"dur", "Label"}} {
			rel := &wal.Relation{OID: 7, Schema: "public", Name: "inc", Identity: wal.IdentityDefault,
				Columns: []wal.Column{{Name: "id", TypeOID: 20, TypeMod: -1, Key: true}, {Name: "opened", TypeOID: 1184, TypeMod: -1}, {Name: "sev", TypeOID: 23, TypeMod: -1}},
				Facts:   &wal.Facts{Kind: 'r', Schema: schema, NotCarried: notCarried, AttNums: []int16{1, 3, 5}, Dropped: []wal.DroppedColumn{{AttNum: 2, Len: 4, TypeMod: -1}, {AttNum: 8, Len: -1, TypeMod: 20, Identity: 'a'}}}}
			if notCarried != nil {
				rel.Facts.NotCarriedColumns = gen
			}
			b := encodeRel(rel)
			got, err := decodeRel(b)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Facts.Equal(rel.Facts) || !got.Facts.ColumnNumbersRead() {
				t.Errorf("schema %v, not carried %v: decoded %+v, want %+v", schema != nil, notCarried, got.Facts, rel.Facts)
			}
			// The record as a sidecar before this section wrote it.
			old := *rel
			of := *rel.Facts
			of.AttNums, of.NotCarriedColumns, of.Dropped = nil, nil, nil
			old.Facts = &of
			ob := encodeRel(&old)
			if len(ob) >= len(b) || string(b[:len(ob)]) != string(ob) {
				t.Fatalf("the section is not appended after the older record's bytes")
			}
			got, err = decodeRel(ob)
			if err != nil {
				t.Fatal(err)
			}
			if got.Facts.ColumnNumbersRead() || got.Facts.NotCarriedColumns != nil || !got.Facts.Equal(&of) {
				t.Errorf("schema %v, not carried %v: an older record decoded as %+v", schema != nil, notCarried, got.Facts)
			}
		}
	}
	// A later sidecar's fields appended to the body are skipped.
	rel := &wal.Relation{OID: 7, Schema: "public", Name: "inc", Columns: []wal.Column{{Name: "id", TypeOID: 20, TypeMod: -1}},
		Facts: &wal.Facts{Kind: 'r', AttNums: []int16{2}, NotCarried: []string{"dur"}, NotCarriedColumns: gen[:1], Dropped: []wal.DroppedColumn{{AttNum: 1, Len: 8, TypeMod: -1}}}}
	var body, sec enc
	encodeColumnNumbers(&body, rel.Facts) // the section's body
	sec.byte(columnNumbersMark)
	sec.bytes(body.b)
	b := encodeRel(rel)
	var x enc
	x.byte(columnNumbersMark)
	x.bytes(append(append([]byte{}, body.b...), 9, 9, 9))
	got, err := decodeRel(append(b[:len(b)-len(sec.b)], x.b...))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Facts.Equal(rel.Facts) {
		t.Errorf("with later fields: decoded %+v, want %+v", got.Facts, rel.Facts)
	}
}
