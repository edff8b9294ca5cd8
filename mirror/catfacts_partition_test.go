package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestPartitionRoundTrip: a partition's bound and constraint survive the
// relation record (after the column types and the inherits, and without
// them), a record written before decodes with Partition nil, a table
// read as no partition keeps its empty facts, and a changed bound is a
// change of the facts.
func TestPartitionRoundTrip(t *testing.T) {
	p := &wal.PartitionFacts{Bound: "FOR VALUES IN (3)", Constraint: "((k IS NOT NULL) AND (k = 3))"}
	in := &wal.InheritFacts{Parents: []wal.InheritParent{{OID: 16410, Schema: "public", Name: "meas_3", Kind: 'p'}}}
	for _, part := range []*wal.PartitionFacts{p, {}} {
		for _, inherits := range []*wal.InheritFacts{nil, in} {
			rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
				Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
				Facts:   &wal.Facts{Kind: 'r', Inherits: inherits, ColumnTypes: []wal.ColumnType{{Name: "int4"}}, Partition: part}}
			b := encodeRel(rel)
			got, err := decodeRel(b)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Facts.Equal(rel.Facts) || got.Facts.Partition == nil || *got.Facts.Partition != *part || !got.Facts.Inherits.Equal(inherits) {
				t.Errorf("inherits %v: decoded %+v, want %+v", inherits != nil, got.Facts.Partition, part)
			}
			got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Partition = nil })
			if got.Facts.Partition != nil || !got.Facts.Inherits.Equal(inherits) || len(got.Facts.ColumnTypes) != 1 {
				t.Errorf("inherits %v: an older record decoded with partition %+v", inherits != nil, got.Facts.Partition)
			}
		}
	}
	moved := *p
	moved.Bound = "FOR VALUES IN (4)"
	if p.Equal(&moved) || (&wal.Facts{Partition: p}).Equal(&wal.Facts{Partition: &moved}) || (&wal.Facts{Partition: p}).Equal(&wal.Facts{}) {
		t.Error("a changed bound compares equal")
	}
}
