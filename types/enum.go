package types

import (
	"hash/maphash"
	"maps"
	"slices"
)

// A user enum type (CREATE TYPE … AS ENUM) is not in the static catalog:
// its OID and labels are the followed database's, read into the facts
// (pg_enum: wal.EnumLabel) and current at each version. A statement's
// planner builds an Enum per enum type it reads (from the facts at the
// version the table is read at) and decodes the stored label text with
// it into an EnumVal, which carries the label's pg_enum.enumsortorder:
// values order by it (PostgreSQL's enum_cmp), not by their text nor by
// the labels' OIDs, and are equal when their labels are. The value is
// thus self-describing and Compare, Hash and AppendOut need no catalog.

// FirstNormalOID is FirstNormalObjectId: the OIDs of user-defined objects
// (a CREATE TYPE's) start there.
const FirstNormalOID OID = 16384

// EnumVal is one value of an enum type: its label and the label's sort
// order in the type.
type EnumVal struct {
	Sort  float32
	Label string
}

// EnumLabel is one label of an Enum (a pg_enum row).
type EnumLabel struct {
	Sort  float32
	Label string
}

// Enum is one enum type as a statement reads it: its OID, its name as
// format_type prints it (for messages) and its labels.
type Enum struct {
	OID  OID
	Name string
	// Array is the OID of the type's array type (0: unknown).
	Array  OID
	labels map[string]float32
	sorted []EnumLabel // by sort order
	// ambiguous are labels whose text another label of the type had
	// before a RENAME VALUE: a stored value of that text may be either
	// (wal.UserTypeFacts.AmbiguousLabels).
	ambiguous map[string]struct{}
}

// WithAmbiguous returns e with the labels whose stored text may mean
// another label (e itself when there are none); literals still read
// them (In), stored values do not (Stored).
func (e *Enum) WithAmbiguous(labels map[string]struct{}) *Enum {
	if len(labels) == 0 {
		return e
	}
	out := *e
	out.ambiguous = labels
	return &out
}

// Ambiguous reports whether a stored value of text s may mean another
// label than s (see WithAmbiguous).
func (e *Enum) Ambiguous(s string) bool {
	_, ok := e.ambiguous[s]
	return ok
}

// NewEnum builds an Enum from its pg_enum rows.
func NewEnum(oid OID, name string, array OID, labels []EnumLabel) *Enum {
	e := &Enum{OID: oid, Name: name, Array: array, labels: make(map[string]float32, len(labels)), sorted: slices.Clone(labels)}
	for _, l := range labels {
		e.labels[l.Label] = l.Sort
	}
	slices.SortFunc(e.sorted, func(a, b EnumLabel) int { return CompareFloat(float64(a.Sort), float64(b.Sort)) })
	return e
}

// In is enum_in: the value of label s, or 22P02 as PostgreSQL words it.
func (e *Enum) In(s string) (Value, error) {
	if v, ok := e.Value(s); ok {
		return v, nil
	}
	return nil, errorf(CodeInvalidText, "invalid input value for enum %s: \"%s\"", e.Name, s)
}

// Value is label s's value; ok is false when the type has no such label.
func (e *Enum) Value(s string) (EnumVal, bool) {
	sort, ok := e.labels[s]
	return EnumVal{Sort: sort, Label: s}, ok
}

// Labels are the type's values in their order (enum_range).
func (e *Enum) Labels() []EnumVal {
	out := make([]EnumVal, len(e.sorted))
	for i, l := range e.sorted {
		out[i] = EnumVal(l)
	}
	return out
}

// Equal reports whether e and o are the same type with the same labels
// in the same order.
func (e *Enum) Equal(o *Enum) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.OID == o.OID && e.Name == o.Name && e.Array == o.Array && slices.Equal(e.sorted, o.sorted) && maps.Equal(e.ambiguous, o.ambiguous)
}

// IsUserOID reports whether oid is a user-defined type's the catalog does
// not know. sql/exec reads no value of such a type but an enum's (its
// scans refuse the others), so Orderable takes one for an enum.
func IsUserOID(oid OID) bool {
	if oid < FirstNormalOID {
		return false
	}
	_, ok := byOID[oid]
	return !ok
}

// compareEnum is enum_cmp: by sort order.
func compareEnum(x, y EnumVal) int {
	return CompareFloat(float64(x.Sort), float64(y.Sort))
}

// hashEnum hashes an enum value by its label (equal labels of one type
// are equal values).
func hashEnum(h *maphash.Hash, x EnumVal) {
	h.WriteString(x.Label)
}
