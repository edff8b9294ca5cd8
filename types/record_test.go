package types

import (
	"testing"
)

// TestRecordOutSendRecv checks record_out's quoting and that a record's
// send form reads back to an equal record (what a spilled sort or hash
// partition relies on), nested records and record arrays included.
func TestRecordOutSendRecv(t *testing.T) {
	inner := &Record{Types: []OID{Int4, Text}, Fields: []Value{int64(1), "a b"}}
	r := &Record{
		Types:  []OID{Int4, Text, Text, Text, Text, Text, Int8, RecordOID, RecordArrayOID},
		Fields: []Value{int64(-3), "", `x"y`, `p\q`, "(,)", nil, int64(7), inner, &Array{Elem: RecordOID, Elems: []Value{inner, nil}}},
	}
	got := string(AppendOut(nil, RecordOID, r))
	want := `(-3,"","x""y","p\\q","(,)",,7,"(1,""a b"")","{""(1,\\""a b\\"")"",NULL}")`
	if got != want {
		t.Fatalf("record_out:\n got %s\nwant %s", got, want)
	}
	b, err := Send(RecordOID, r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Recv(RecordOID, -1, b)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := CompareRecords(r, back.(*Record)); err != nil || c != 0 {
		t.Fatalf("received %s (cmp %d, %v)", AppendOut(nil, RecordOID, back), c, err)
	}
	if _, err := Recv(RecordOID, -1, b[:len(b)-1]); err == nil {
		t.Fatal("a truncated record was read")
	}
}

// TestRecordCompare checks record_cmp's NULL order and its errors.
func TestRecordCompare(t *testing.T) {
	rec := func(v ...Value) *Record {
		r := &Record{Fields: v}
		for range v {
			r.Types = append(r.Types, Int4)
		}
		return r
	}
	cases := []struct {
		a, b *Record
		want int
	}{
		{rec(int64(1), nil), rec(int64(1), nil), 0},
		{rec(int64(1), int64(5)), rec(int64(1), nil), -1},
		{rec(nil, int64(0)), rec(int64(9), int64(0)), 1},
		{rec(int64(1), int64(2)), rec(int64(1), int64(3)), -1},
	}
	for _, c := range cases {
		if got, err := CompareRecords(c.a, c.b); err != nil || got != c.want {
			t.Errorf("%s vs %s: %d %v, want %d", AppendOut(nil, RecordOID, c.a), AppendOut(nil, RecordOID, c.b), got, err, c.want)
		}
	}
	if _, err := CompareRecords(rec(int64(1)), rec(int64(1), int64(2))); err == nil {
		t.Error("records of different lengths compared")
	}
	x := &Record{Types: []OID{Text}, Fields: []Value{"1"}}
	if _, err := CompareRecords(x, rec(int64(1))); err == nil {
		t.Error("dissimilar column types compared")
	}
}
