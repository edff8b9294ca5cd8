package replication

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// Protocol-level tests of the apply loop, fed hand-built pgoutput messages
// (the PostgreSQL-backed tests cover the same paths end to end; these pin
// the cases that are hard to time against a real server).

func relMsg(stream bool, xid uint32) []byte {
	e := (&enc{}).u8('R')
	if stream {
		e.u32(xid)
	}
	return e.u32(500).str("public").str("t").u8('d').u16(2).
		u8(1).str("id").u32(23).u32(0xffffffff).
		u8(0).str("v").u32(25).u32(0xffffffff).b
}

func insMsg(stream bool, xid uint32, id string) []byte {
	e := (&enc{}).u8('I')
	if stream {
		e.u32(xid)
	}
	return e.u32(500).u8('N').tuple(txt(id), txt("x")).b
}

func beginMsg(commit wal.LSN, xid uint32) []byte {
	return (&enc{}).u8('B').u64(uint64(commit)).ts(time.Unix(1, 0)).u32(xid).b
}

func commitMsg(commit, end wal.LSN) []byte {
	return (&enc{}).u8('C').u8(0).u64(uint64(commit)).u64(uint64(end)).ts(time.Unix(1, 0)).b
}

// feed runs an applier over msgs (in-stream ones marked by the S/E
// brackets, as the reader does) and returns its error.
func feed(t *testing.T, sink *memSink, spool Spool, msgs ...[]byte) error {
	t.Helper()
	st, err := NewStreamer(StreamConfig{Slot: "s", Publication: "p", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	a := &applier{s: st, spool: spool, rels: map[uint32]*wal.Relation{}, typeNames: map[uint32]string{}}
	q := &queue{ch: make(chan item, len(msgs)), budget: 1 << 30, drained: make(chan struct{}, 1)}
	ch := q.ch
	inStream := false
	for _, raw := range msgs {
		if inStream && isStreamable(raw[0]) {
			ch <- item{raw: raw}
			continue
		}
		m, err := decodeMessage(raw, false)
		if err != nil {
			t.Fatal(err)
		}
		inStream = m.typ == 'S' || (inStream && m.typ != 'E')
		ch <- item{m: m}
	}
	close(ch)
	return a.run(context.Background(), q)
}

func TestApplierAbortsPartialTransaction(t *testing.T) {
	t.Parallel()
	sink := newMemSink(100)
	spool, _ := NewDiskSpool(t.TempDir())
	defer spool.Close()
	err := feed(t, sink, spool,
		relMsg(false, 0), beginMsg(200, 7), insMsg(false, 0, "1"), commitMsg(200, 240),
		beginMsg(300, 8), insMsg(false, 0, "2")) // connection lost here
	if err != nil {
		t.Fatal(err)
	}
	if sink.aborts != 1 || len(sink.committed()) != 1 {
		t.Fatalf("%d aborts, %d commits; want the partial transaction aborted and the first committed", sink.aborts, len(sink.committed()))
	}
}

func TestApplierSkipsDurableTransactions(t *testing.T) {
	t.Parallel()
	sink := newMemSink(240) // xid 7 (ends at 240) is already durable
	spool, _ := NewDiskSpool(t.TempDir())
	defer spool.Close()
	err := feed(t, sink, spool,
		beginMsg(200, 7), insMsg(false, 0, "1"), commitMsg(200, 240),
		// A streamed transaction, also durable, whose Relation the server
		// now counts as sent: the next one relies on it.
		(&enc{}).u8('S').u32(9).u8(1).b, relMsg(true, 9), insMsg(true, 9, "2"), []byte{'E'},
		(&enc{}).u8('c').u32(9).u8(0).u64(220).u64(236).ts(time.Unix(1, 0)).b,
		beginMsg(300, 10), insMsg(false, 0, "3"), commitMsg(300, 340))
	if err != nil {
		t.Fatal(err)
	}
	got := changesOf(sink.committed())
	if want := []string{"insert t new['3','x']"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("delivered %q, want only the transaction past the durable LSN: %q", got, want)
	}
	if n := spool.Open(); n != 0 {
		t.Fatalf("%d spooled transactions left", n)
	}
}

func TestApplierStreamedAbortOfSubtransaction(t *testing.T) {
	t.Parallel()
	sink := newMemSink(100)
	spool, _ := NewDiskSpool(t.TempDir())
	defer spool.Close()
	err := feed(t, sink, spool,
		(&enc{}).u8('S').u32(20).u8(1).b, relMsg(true, 20), insMsg(true, 20, "1"), insMsg(true, 21, "2"), []byte{'E'},
		(&enc{}).u8('S').u32(30).u8(1).b, relMsg(true, 30), insMsg(true, 30, "9"), []byte{'E'}, // interleaved, aborted
		(&enc{}).u8('S').u32(20).u8(0).b, insMsg(true, 22, "3"), []byte{'E'},
		(&enc{}).u8('A').u32(20).u32(21).b,
		(&enc{}).u8('A').u32(30).u32(30).b,
		(&enc{}).u8('c').u32(20).u8(0).u64(400).u64(440).ts(time.Unix(1, 0)).b)
	if err != nil {
		t.Fatal(err)
	}
	txns := sink.committed()
	got := changesOf(txns)
	if want := []string{"insert t new['1','x']", "insert t new['3','x']"}; !reflect.DeepEqual(got, want) ||
		!txns[0].info.Streamed || txns[0].info.EndLSN != 440 {
		t.Fatalf("delivered %q (%+v), want rows 1 and 3 in one streamed transaction ending at 440", got, txns)
	}
	if n := spool.Open(); n != 0 {
		t.Fatalf("%d spooled transactions left", n)
	}
}

func TestApplierRejectsProtocolViolations(t *testing.T) {
	t.Parallel()
	for name, msgs := range map[string][][]byte{
		"change before relation": {beginMsg(200, 7), insMsg(false, 0, "1")},
		"change outside txn":     {relMsg(false, 0), insMsg(false, 0, "1")},
		"nested begin":           {beginMsg(200, 7), beginMsg(300, 8)},
		"commit without begin":   {commitMsg(200, 240)},
	} {
		spool, _ := NewDiskSpool(t.TempDir())
		if err := feed(t, newMemSink(100), spool, msgs...); err == nil {
			t.Errorf("%s: accepted", name)
		}
		spool.Close()
	}
}

func TestCopiedAtFilter(t *testing.T) {
	t.Parallel()
	c := wal.NewCopiedAt()
	c.Set("public.t", 1000)
	for _, tc := range []struct {
		table  string
		commit wal.LSN
		skip   bool
	}{
		{"public.t", 999, true}, {"public.t", 1000, false}, {"public.t", 1001, false}, {"public.u", 1, false},
	} {
		if got := c.Skip(tc.table, tc.commit); got != tc.skip {
			t.Errorf("Skip(%s, %d) = %v, want %v", tc.table, tc.commit, got, tc.skip)
		}
	}
	c.Delete("public.t")
	if c.Skip("public.t", 1) {
		t.Error("deleted table still filtered")
	}
	var none *wal.CopiedAt
	if none.Skip("public.t", 1) {
		t.Error("nil filter skipped a change")
	}
}
