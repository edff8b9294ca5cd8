package mirror

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestRecordsRoundTrip encodes random records and decodes them back.
func TestRecordsRoundTrip(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 7))
	bs := func() []byte {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for range 300 {
		v := &Version{EndLSN: wal.LSN(rng.Uint64() >> 1), CommitLSN: wal.LSN(rng.Uint64() >> 1),
			CommitTime: time.Unix(0, rng.Int64()).UTC(), Xid: rng.Uint32(), Spilled: rng.IntN(2) == 0}
		var tables []logTable
		for i := range rng.IntN(4) {
			lt := logTable{change: TableChange{Table: string(rune('a' + i)), Rows: int64(rng.IntN(100)), Truncated: rng.IntN(2) == 0}}
			for range rng.IntN(5) {
				e := logEdit{key: bs(), del: rng.IntN(3) == 0}
				if !e.del {
					e.val = bs()
				}
				lt.edits = append(lt.edits, e)
			}
			tables = append(tables, lt)
			v.Tables = append(v.Tables, lt.change)
		}
		for i := range rng.IntN(3) { // tables whose changes were held for a resync
			v.Held = append(v.Held, "held"+string(rune('a'+i)))
		}
		b := encodeLog(v, tables)
		got, gotTables, err := decodeLog(v.EndLSN, b, true)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(got, v) || len(gotTables) != len(tables) {
			t.Fatalf("seed %d: version %+v, want %+v", seed, got, v)
		}
		for i := range tables {
			for j, e := range tables[i].edits {
				g := gotTables[i].edits[j]
				if !bytes.Equal(g.key, e.key) || !bytes.Equal(g.val, e.val) || g.del != e.del {
					t.Fatalf("seed %d: edit %d/%d %+v, want %+v", seed, i, j, g, e)
				}
			}
		}
		rec := tableRecord{Name: "s.t", State: StateReady, CopiedAt: 5, ResyncFrom: 7, Rows: rng.Uint64(),
			Root: prolly.Root{Hash: [20]byte{1, 2}, Spec: [8]byte{3}}, Rel: testRel(rng.Uint32(), "t")}
		gotRec, err := decodeTable(rec.encode())
		if err != nil || !reflect.DeepEqual(*gotRec, rec) {
			t.Fatalf("seed %d: table %+v (%v), want %+v", seed, gotRec, err, rec)
		}
		h := &heldChange{kind: wal.Update, oldKind: wal.OldKey,
			newVals: []wal.Value{{Kind: wal.Text, Bytes: bs()}, {Kind: wal.Null}, {Kind: wal.Unchanged}}}
		gotH, err := decodeHeld(h.encode())
		if err != nil || gotH.kind != h.kind || len(gotH.newVals) != 3 || gotH.newVals[2].Kind != wal.Unchanged || !bytes.Equal(gotH.newVals[0].Bytes, h.newVals[0].Bytes) {
			t.Fatalf("seed %d: held %+v (%v)", seed, gotH, err)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to every decoder of records read back
// from disk: errors, never panics, never huge allocations.
func FuzzDecode(f *testing.F) {
	v := &Version{EndLSN: 9, CommitLSN: 8, CommitTime: time.Unix(1, 0), Xid: 3}
	f.Add(encodeLog(v, []logTable{{change: TableChange{Table: "t", Rows: 1}, edits: []logEdit{{key: []byte("k"), val: []byte("v")}}}}))
	f.Add((&tableRecord{Name: "s.t", State: StateReady, Rel: testRel(1, "t")}).encode())
	f.Add((&groupRecord{Roots: map[string]groupRoot{"t": {}}}).encode([]string{"t"}))
	f.Add((&heldChange{kind: wal.Delete, oldVals: []wal.Value{{Kind: wal.Text, Bytes: []byte("1")}}}).encode())
	f.Add((&metaRecord{Format: 1, RowHash: "pghash64"}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeLog(1, b, true)
		decodeTable(b)
		decodeGroup(1, b)
		decodeHeld(b)
		decodeMeta(b)
		decodeRel(b)
	})
}
