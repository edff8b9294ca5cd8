package types

import (
	"encoding/binary"
	"hash/maphash"
)

// Record is a value of type record (an anonymous row: ROW(…), a
// whole-row reference to a subquery or CTE): its fields' types and
// values (nil is a NULL field). Names are the fields' names where the
// row has them (nil: f1, f2, …).
type Record struct {
	Types  []OID
	Fields []Value
	Names  []string
}

// The record pseudo-type and its array.
const (
	RecordOID      OID = 2249
	RecordArrayOID OID = 2287
	// CatPseudo is the pseudo-types' category.
	CatPseudo Category = 'P'
)

func init() {
	byOID[RecordOID] = &Type{OID: RecordOID, Name: "record", SQLName: "record", Array: RecordArrayOID, Len: -1, Category: CatPseudo, Physical: PhysText}
	byOID[RecordArrayOID] = &Type{OID: RecordArrayOID, Name: "_record", SQLName: "record[]", Elem: RecordOID, Len: -1, Category: CatArray, Physical: PhysText}
}

// AllNull says whether every field is NULL (record IS NULL).
func (r *Record) AllNull() bool {
	for _, v := range r.Fields {
		if v != nil {
			return false
		}
	}
	return true
}

// NoneNull says whether no field is NULL (record IS NOT NULL).
func (r *Record) NoneNull() bool {
	for _, v := range r.Fields {
		if v == nil {
			return false
		}
	}
	return true
}

// appendRecord is record_out: '(' fields ',' ')', a NULL field empty, a
// field double-quoted (with " and \ doubled) when it is empty or holds a
// quote, backslash, parenthesis, comma or blank.
func appendRecord(dst []byte, r *Record) []byte {
	dst = append(dst, '(')
	var buf []byte
	for i, v := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v == nil {
			continue
		}
		buf = AppendOut(buf[:0], r.Types[i], v)
		dst = appendQuotable(dst, buf, len(buf) == 0, recordSpecial, true)
	}
	return append(dst, ')')
}

// appendRecordSend is record_send: the number of fields, then per field
// its type OID and its length (-1 for NULL) and send bytes.
func appendRecordSend(dst []byte, r *Record) ([]byte, error) {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, uint32(len(r.Fields)))
	for i, v := range r.Fields {
		dst = be.AppendUint32(dst, r.Types[i])
		var err error
		if dst, err = appendSendElem(dst, r.Types[i], v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// appendSendElem is one element of an array's or record's send form:
// its length (-1 for NULL) and send bytes.
func appendSendElem(dst []byte, oid OID, v Value) ([]byte, error) {
	be := binary.BigEndian
	if v == nil {
		return be.AppendUint32(dst, 0xFFFFFFFF), nil
	}
	at := len(dst)
	dst = be.AppendUint32(dst, 0)
	dst, err := AppendSend(dst, oid, v)
	if err != nil {
		return nil, err
	}
	be.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst, nil
}

// CompareRecords is record_cmp (btree order of records): field by field,
// two NULLs equal and a NULL above any value; then the record with fewer
// fields first. Fields of different types are an error (42804), as is
// PostgreSQL's "cannot compare dissimilar column types".
func CompareRecords(x, y *Record) (int, error) {
	for i := 0; i < len(x.Fields) && i < len(y.Fields); i++ {
		if !comparableOIDs(x.Types[i], y.Types[i]) {
			return 0, errorf(codeDatatypeMismatch, "cannot compare dissimilar column types %s and %s at record column %d", NameOf(x.Types[i]), NameOf(y.Types[i]), i+1)
		}
		if x.Types[i] == Unknown {
			return 0, errorf("42883", "could not identify a comparison function for type unknown")
		}
		a, b := x.Fields[i], y.Fields[i]
		switch {
		case a == nil && b == nil:
			continue
		case a == nil:
			return 1, nil
		case b == nil:
			return -1, nil
		}
		if c := Compare(x.Types[i], a, b); c != 0 {
			return c, nil
		}
	}
	if len(x.Fields) != len(y.Fields) {
		return 0, errorf(codeDatatypeMismatch, "cannot compare record types with different numbers of columns")
	}
	return 0, nil
}

// comparableOIDs says whether record fields of types a and b compare
// with each other (the same type; text and varchar alike, as their
// values are).
func comparableOIDs(a, b OID) bool {
	if a == b {
		return true
	}
	str := func(o OID) bool { return o == Text || o == Varchar }
	return str(a) && str(b)
}

// compareRecords is CompareRecords for Compare, which cannot fail: a
// mismatch orders by the fields' type OIDs (callers that must report it
// check CheckRecordTypes first).
func compareRecords(x, y *Record) int {
	c, err := CompareRecords(x, y)
	if err != nil {
		for i := 0; i < len(x.Types) && i < len(y.Types); i++ {
			if x.Types[i] != y.Types[i] {
				return cmpInt(int64(x.Types[i]), int64(y.Types[i]))
			}
		}
		return cmpInt(int64(len(x.Fields)), int64(len(y.Fields)))
	}
	return c
}

// hashRecord hashes a record consistently with CompareRecords' equality.
func hashRecord(h *maphash.Hash, seed maphash.Seed, r *Record) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(r.Fields)))
	h.Write(n[:])
	for i, v := range r.Fields {
		if v == nil {
			h.WriteByte(0)
			continue
		}
		h.WriteByte(1)
		binary.BigEndian.PutUint64(n[:], Hash(seed, r.Types[i], v))
		h.Write(n[:])
	}
}

// recvRecord is record_recv for an anonymous record: the fields' types
// come with the data (what appendRecordSend writes; spilled rows are
// read back with it).
func recvRecord(b []byte) (Value, error) {
	be := binary.BigEndian
	bad := errorf(CodeInvalidBinary, "insufficient data left in message")
	if len(b) < 4 {
		return nil, bad
	}
	n := be.Uint32(b)
	b = b[4:]
	if uint64(n)*8 > uint64(len(b)) {
		return nil, bad
	}
	r := &Record{Types: make([]OID, n), Fields: make([]Value, n)}
	for i := range r.Fields {
		if len(b) < 8 {
			return nil, bad
		}
		r.Types[i] = be.Uint32(b)
		l := be.Uint32(b[4:])
		b = b[8:]
		if l == 0xFFFFFFFF {
			continue
		}
		if uint64(l) > uint64(len(b)) {
			return nil, bad
		}
		v, err := recv(r.Types[i], b[:l])
		if err != nil {
			return nil, err
		}
		r.Fields[i] = v
		b = b[l:]
	}
	if len(b) != 0 {
		return nil, errorf(CodeInvalidBinary, "improper binary format in record column")
	}
	return r, nil
}

func recordSpecial(c byte) bool {
	return c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isArraySpace(c)
}

// appendQuotable appends an element's text to an array's or record's
// output: as it is, or double-quoted when quote is set or it holds a
// special byte, a quote or backslash inside escaped by a backslash
// (array_out) or doubled (double: record_out).
func appendQuotable(dst, buf []byte, quote bool, special func(byte) bool, double bool) []byte {
	for i := 0; i < len(buf) && !quote; i++ {
		quote = special(buf[i])
	}
	if !quote {
		return append(dst, buf...)
	}
	dst = append(dst, '"')
	for _, c := range buf {
		if c == '"' || c == '\\' {
			if double {
				dst = append(dst, c)
			} else {
				dst = append(dst, '\\')
			}
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}
