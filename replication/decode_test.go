package replication

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// enc builds pgoutput messages for decoder tests, following PG15 proto.c.
type enc struct{ b []byte }

func (e *enc) u8(v byte) *enc      { e.b = append(e.b, v); return e }
func (e *enc) u16(v uint16) *enc   { e.b = binary.BigEndian.AppendUint16(e.b, v); return e }
func (e *enc) u32(v uint32) *enc   { e.b = binary.BigEndian.AppendUint32(e.b, v); return e }
func (e *enc) u64(v uint64) *enc   { e.b = binary.BigEndian.AppendUint64(e.b, v); return e }
func (e *enc) str(s string) *enc   { e.b = append(append(e.b, s...), 0); return e }
func (e *enc) raw(p []byte) *enc   { e.b = append(e.b, p...); return e }
func (e *enc) ts(t time.Time) *enc { return e.u64(uint64(t.Sub(pgEpoch).Microseconds())) }
func (e *enc) tuple(vals ...wal.Value) *enc {
	e.u16(uint16(len(vals)))
	for _, v := range vals {
		switch v.Kind {
		case wal.Null:
			e.u8('n')
		case wal.Unchanged:
			e.u8('u')
		case wal.Text:
			e.u8('t').u32(uint32(len(v.Bytes))).raw(v.Bytes)
		}
	}
	return e
}

func txt(s string) wal.Value { return wal.Value{Kind: wal.Text, Bytes: []byte(s)} }

func TestDecodeMessages(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 11, 30, 10, 0, 0, 123456000, time.UTC)
	rel := &wal.Relation{OID: 16384, Schema: "public", Name: "t", Identity: wal.IdentityDefault, Columns: []wal.Column{
		{Name: "id", TypeOID: 20, TypeMod: -1, Key: true},
		{Name: "v", TypeOID: 25, TypeMod: -1},
	}}
	relBytes := func(stream bool) []byte {
		e := (&enc{}).u8('R')
		if stream {
			e.u32(77)
		}
		e.u32(16384).str("public").str("t").u8('d').u16(2)
		e.u8(1).str("id").u32(20).u32(0xffffffff)
		e.u8(0).str("v").u32(25).u32(0xffffffff)
		return e.b
	}
	tests := []struct {
		name     string
		data     []byte
		inStream bool
		want     wireMsg
	}{
		{"begin", (&enc{}).u8('B').u64(0x16B3748).ts(when).u32(900).b, false,
			wireMsg{typ: 'B', lsn: 0x16B3748, time: when, xid: 900}},
		{"commit", (&enc{}).u8('C').u8(0).u64(100).u64(140).ts(when).b, false,
			wireMsg{typ: 'C', lsn: 100, endLSN: 140, time: when}},
		{"relation", relBytes(false), false, wireMsg{typ: 'R', relID: 16384, rel: rel}},
		{"relation in stream", relBytes(true), true, wireMsg{typ: 'R', xid: 77, relID: 16384, rel: rel}},
		{"type", (&enc{}).u8('Y').u32(16500).str("public").str("mood").b, false,
			wireMsg{typ: 'Y', typOID: 16500, typName: "public.mood"}},
		{"insert null vs empty", (&enc{}).u8('I').u32(16384).u8('N').tuple(txt("1"), txt(""), wal.Value{}).b, false,
			wireMsg{typ: 'I', relID: 16384, new: []wal.Value{txt("1"), txt(""), {Kind: wal.Null}}}},
		{"update new only with toast", (&enc{}).u8('U').u32(16384).u8('N').tuple(txt("1"), wal.Value{Kind: wal.Unchanged}).b, false,
			wireMsg{typ: 'U', relID: 16384, new: []wal.Value{txt("1"), {Kind: wal.Unchanged}}}},
		{"update old key", (&enc{}).u8('U').u32(16384).u8('K').tuple(txt("1"), wal.Value{}).u8('N').tuple(txt("2"), txt("x")).b, false,
			wireMsg{typ: 'U', relID: 16384, oldKind: 'K', old: []wal.Value{txt("1"), {}}, new: []wal.Value{txt("2"), txt("x")}}},
		{"update in stream", (&enc{}).u8('U').u32(78).u32(16384).u8('O').tuple(txt("1"), txt("a")).u8('N').tuple(txt("1"), txt("b")).b, true,
			wireMsg{typ: 'U', xid: 78, relID: 16384, oldKind: 'O', old: []wal.Value{txt("1"), txt("a")}, new: []wal.Value{txt("1"), txt("b")}}},
		{"delete", (&enc{}).u8('D').u32(16384).u8('K').tuple(txt("1"), wal.Value{}).b, false,
			wireMsg{typ: 'D', relID: 16384, oldKind: 'K', old: []wal.Value{txt("1"), {}}}},
		{"truncate", (&enc{}).u8('T').u32(2).u8(3).u32(10).u32(11).b, false,
			wireMsg{typ: 'T', flags: 3, relIDs: []uint32{10, 11}}},
		{"message", (&enc{}).u8('M').u8(1).u64(55).str("pfx").u32(3).raw([]byte("abc")).b, false,
			wireMsg{typ: 'M', flags: 1, lsn: 55, prefix: "pfx", content: []byte("abc")}},
		{"stream start", (&enc{}).u8('S').u32(20800).u8(1).b, false, wireMsg{typ: 'S', xid: 20800, first: true}},
		{"stream stop", []byte{'E'}, false, wireMsg{typ: 'E'}},
		{"stream commit", (&enc{}).u8('c').u32(20800).u8(0).u64(300).u64(340).ts(when).b, false,
			wireMsg{typ: 'c', xid: 20800, lsn: 300, endLSN: 340, time: when}},
		{"stream abort", (&enc{}).u8('A').u32(20800).u32(20801).b, false, wireMsg{typ: 'A', xid: 20800, subxid: 20801}},
		{"origin", (&enc{}).u8('O').u64(9).str("sub").b, false, wireMsg{typ: 'O', lsn: 9, prefix: "sub"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeMessage(tc.data, tc.inStream)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got.size != len(tc.data) {
				t.Fatalf("size %d, want %d", got.size, len(tc.data))
			}
			got.size = 0
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("decode:\n got %+v\nwant %+v", got, tc.want)
			}
			// Every strict prefix is truncated and must fail cleanly.
			for n := 1; n < len(tc.data); n++ {
				if _, err := decodeMessage(tc.data[:n], tc.inStream); err == nil {
					t.Fatalf("prefix of %d/%d bytes decoded without error", n, len(tc.data))
				}
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"empty":           nil,
		"two-phase":       {'P', 0, 0},
		"binary value":    (&enc{}).u8('I').u32(1).u8('N').u16(1).u8('b').u32(1).u8(7).b,
		"unknown kind":    (&enc{}).u8('I').u32(1).u8('N').u16(1).u8('z').b,
		"insert marker":   (&enc{}).u8('I').u32(1).u8('K').tuple(txt("1")).b,
		"huge count":      (&enc{}).u8('I').u32(1).u8('N').u16(65535).b,
		"huge truncate":   (&enc{}).u8('T').u32(1 << 30).u8(0).b,
		"huge value":      (&enc{}).u8('I').u32(1).u8('N').u16(1).u8('t').u32(1 << 31).b,
		"delete marker":   (&enc{}).u8('D').u32(1).u8('N').tuple(txt("1")).b,
		"unterminated":    (&enc{}).u8('R').u32(1).raw([]byte("public")).b,
		"update bad mark": (&enc{}).u8('U').u32(1).u8('K').tuple(txt("1")).u8('X').tuple(txt("1")).b,
	} {
		if _, err := decodeMessage(data, false); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if _, err := decodeMessage((&enc{}).u8('I').u32(1).b, false); !errors.Is(err, errShort) {
		t.Errorf("truncated insert: error %v does not wrap errShort", err)
	}
}

func TestStreamXid(t *testing.T) {
	t.Parallel()
	x, err := streamXid((&enc{}).u8('I').u32(4242).u32(1).b)
	if err != nil || x != 4242 {
		t.Fatalf("streamXid = %d, %v; want 4242", x, err)
	}
	if _, err := streamXid([]byte{'S', 0, 0, 0, 1}); err == nil {
		t.Fatal("stream start has no xid prefix, want error")
	}
}

func TestLSN(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0/0", "0/16B3748", "1/0", "FFFFFFFF/FFFFFFFF"} {
		l, err := wal.ParseLSN(s)
		if err != nil {
			t.Fatalf("ParseLSN(%q): %v", s, err)
		}
		if l.String() != s {
			t.Fatalf("ParseLSN(%q).String() = %q", s, l.String())
		}
	}
	if l, _ := wal.ParseLSN("1/2"); l != 1<<32|2 {
		t.Fatalf("ParseLSN(1/2) = %d", uint64(l))
	}
	for _, s := range []string{"", "12", "x/1", "1/", "100000000/0"} {
		if _, err := wal.ParseLSN(s); err == nil {
			t.Errorf("ParseLSN(%q) accepted", s)
		}
	}
}

// FuzzDecodeMessage checks that no input panics the decoder and that a
// decoded tuple never reaches outside its input.
func FuzzDecodeMessage(f *testing.F) {
	f.Add((&enc{}).u8('I').u32(1).u8('N').tuple(txt("1"), wal.Value{}, wal.Value{Kind: wal.Unchanged}).b, false)
	f.Add((&enc{}).u8('U').u32(9).u32(1).u8('K').tuple(txt("1")).u8('N').tuple(txt("2")).b, true)
	f.Add((&enc{}).u8('R').u32(1).str("s").str("t").u8('f').u16(1).u8(1).str("c").u32(23).u32(0).b, false)
	f.Add((&enc{}).u8('T').u32(2).u8(1).u32(1).u32(2).b, false)
	f.Add((&enc{}).u8('M').u8(1).u64(5).str("p").u32(1).u8('x').b, false)
	f.Fuzz(func(t *testing.T, data []byte, inStream bool) {
		m, err := decodeMessage(data, inStream)
		if err != nil {
			return
		}
		for _, vals := range [][]wal.Value{m.old, m.new} {
			for _, v := range vals {
				if v.Kind == wal.Text && len(v.Bytes) > 0 && !bytes.Contains(data, v.Bytes) {
					t.Fatalf("value %q is not part of the input", v.Bytes)
				}
			}
		}
	})
}
