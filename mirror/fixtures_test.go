package mirror

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// Byte-pinned records (issue 12 item 6): each fixed value must encode to
// exactly the pinned bytes, and the pinned bytes must decode to the value.
// A round trip alone would miss a change made symmetrically to encoder and
// decoder, which silently breaks every data directory already written. A
// deliberate format change updates the hex here and FormatVersion.

func fixtureRelation() *wal.Relation {
	return &wal.Relation{OID: 16384, Schema: "public", Name: "Accounts", Identity: wal.IdentityDefault, Columns: []wal.Column{
		{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
		{Name: "note", TypeOID: 1043, TypeName: "varchar", TypeMod: 36},
	}}
}

func fixtureRoot() prolly.Root {
	var r prolly.Root
	for i := range r.Hash {
		r.Hash[i] = byte(i)
	}
	copy(r.Spec[:], "spec0001")
	return r
}

const (
	pinnedRelation = "01808001067075626c6963084163636f756e747364020269641404696e74380101046e6f7465930807766172636861724800"
	pinnedMeta     = "0101737065633030303104787868330576726f773113373330313233343536373839303132333435360203617070"
	pinnedTable    = "01117075626c69632e224163636f756e74732203c8eeac0b8080ad0b000102030405060708090a0b0c0d0e0f10111213737065633030303187ad4b808001067075626c6963084163636f756e747364020269641404696e74380101046e6f7465930807766172636861724800"
	pinnedLog      = "01f081801080a8fab0badc8fed3183060002087075626c69632e61020002117075626c69632e224163636f756e7473220101010201020005726f772d610201030101090000"
	pinnedHeld     = "010201020102343202020102343100"
)

func checkPinned(t *testing.T, name string, got []byte, pinned string) {
	t.Helper()
	if h := hex.EncodeToString(got); h != pinned {
		t.Errorf("%s record encodes to\n%s\nwant the pinned\n%s", name, h, pinned)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("pinned hex: %v", err)
	}
	return b
}

func TestPinnedRelation(t *testing.T) {
	rel := fixtureRelation()
	checkPinned(t, "relation", encodeRel(rel), pinnedRelation)
	got, err := decodeRel(mustHex(t, pinnedRelation))
	if err != nil || !reflect.DeepEqual(got, rel) {
		t.Errorf("pinned relation decodes to %+v, %v; want %+v", got, err, rel)
	}
}

func TestPinnedMeta(t *testing.T) {
	m := metaRecord{Format: FormatVersion, Spec: fixtureRoot().Spec, RowHash: "xxh3", RowEnc: "vrow1",
		System: wal.SystemIdentity{SystemID: "7301234567890123456", Timeline: 1, DBName: "app"}}
	checkPinned(t, "meta", m.encode(), pinnedMeta)
	got, err := decodeMeta(mustHex(t, pinnedMeta))
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("pinned meta decodes to %+v, %v; want %+v", got, err, m)
	}
}

func TestPinnedTable(t *testing.T) {
	r := &tableRecord{Name: `public."Accounts"`, State: StateResyncNeeded, CopiedAt: 0x16B3748, ResyncFrom: 0x16B4000,
		Root: fixtureRoot(), Rows: 1234567, Rel: fixtureRelation()}
	checkPinned(t, "table", r.encode(), pinnedTable)
	got, err := decodeTable(mustHex(t, pinnedTable))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("pinned table decodes to %+v, %v; want %+v", got, err, r)
	}
}

func TestPinnedLog(t *testing.T) {
	v := &Version{EndLSN: 0x2000100, CommitLSN: 0x20000F0, CommitTime: time.Date(2026, 12, 1, 12, 0, 0, 123456000, time.UTC), Xid: 771,
		Tables: []TableChange{{Table: "public.a", Rows: 2}, {Table: `public."Accounts"`, Rows: 1, Truncated: true}}}
	tables := []logTable{
		{change: v.Tables[0], edits: []logEdit{{key: []byte{1, 2}, val: []byte("row-a")}, {key: []byte{1, 3}, del: true}}},
		{change: v.Tables[1], edits: []logEdit{{key: []byte{9}, val: []byte{}}}},
	}
	checkPinned(t, "log", encodeLog(v, tables), pinnedLog)
	gotV, gotT, err := decodeLog(v.EndLSN, mustHex(t, pinnedLog), true)
	if err != nil || !reflect.DeepEqual(gotV, v) || !reflect.DeepEqual(gotT, tables) {
		t.Errorf("pinned log decodes to %+v %+v, %v; want %+v %+v", gotV, gotT, err, v, tables)
	}
}

func TestPinnedHeld(t *testing.T) {
	h := &heldChange{kind: wal.Update, oldKind: wal.OldKey,
		newVals: []wal.Value{{Kind: wal.Text, Bytes: []byte("42")}, {Kind: wal.Unchanged}},
		oldVals: []wal.Value{{Kind: wal.Text, Bytes: []byte("41")}, {Kind: wal.Null}}}
	checkPinned(t, "held change", h.encode(), pinnedHeld)
	got, err := decodeHeld(mustHex(t, pinnedHeld))
	if err != nil || !reflect.DeepEqual(got, h) {
		t.Errorf("pinned held change decodes to %+v, %v; want %+v", got, err, h)
	}
}

// The group, retention and key layouts below were written out by hand
// from the encoders' layout (not captured from them): field by field, so
// a reader can check each part against records.go and retain.go.

const (
	pinnedRootHex = "000102030405060708090a0b0c0d0e0f10111213" + "7370656330303031" // hash, spec
	pinnedGroup   = "01" +                                                          // record version
		"02" + // tables
		"08" + "7075626c69632e61" + pinnedRootHex + "03" + // "public.a", root, 3 rows
		"11" + "7075626c69632e224163636f756e747322" + pinnedRootHex + "87ad4b" // `public."Accounts"`, root, 1234567 rows
	pinnedRetention = "01" + // record version
		"80828010" + // horizon 0/2000100
		"02" + // islands
		"80808008" + "f0818008" + // 0/1000000 .. 0/10000F0
		"8080800c" + "c080800c" // 0/1800000 .. 0/1800040
	pinnedAccountsHex = "7075626c69632e224163636f756e747322"
)

func TestPinnedGroup(t *testing.T) {
	g := &groupRecord{End: 0x2000100, Roots: map[string]groupRoot{
		"public.a":          {Root: fixtureRoot(), Rows: 3},
		`public."Accounts"`: {Root: fixtureRoot(), Rows: 1234567},
	}}
	checkPinned(t, "group", g.encode([]string{"public.a", `public."Accounts"`}), pinnedGroup)
	got, err := decodeGroup(g.End, mustHex(t, pinnedGroup))
	if err != nil || !reflect.DeepEqual(got, g) {
		t.Errorf("pinned group decodes to %+v, %v; want %+v", got, err, g)
	}
}

func TestPinnedRetention(t *testing.T) {
	r := &retention{Horizon: 0x2000100, Islands: []Island{{Base: 0x1000000, Kept: 0x10000F0}, {Base: 0x1800000, Kept: 0x1800040}}}
	checkPinned(t, "retention", r.encode(), pinnedRetention)
	got, err := decodeRetention(mustHex(t, pinnedRetention))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("pinned retention decodes to %+v, %v; want %+v", got, err, r)
	}
}

// TestPinnedKeys pins the key layouts: prefix byte, sub-kind byte, then
// names and big-endian LSNs (whose byte order is Badger's scan order).
func TestPinnedKeys(t *testing.T) {
	const name = `public."Accounts"`
	for _, c := range []struct {
		what string
		key  []byte
		hex  string
	}{
		{"meta", keyMeta, "6d69"},
		{"durable", keyDurable, "6d64"},
		{"resume", keyResume, "6d72"},
		{"retention", keyRetain, "6d68"},
		{"table", tableKey(name), "6374" + pinnedAccountsHex},
		{"relation", relKey(name, 0x16B3748), "6372" + pinnedAccountsHex + "00" + "00000000016b3748"},
		{"group", groupKey(0x2000100), "6367" + "0000000002000100"},
		{"log", logKey(0x2000100), "736c" + "0000000002000100"},
		{"held", heldKey(name, 0x20000F0, 7), "7368" + pinnedAccountsHex + "00" + "00000000020000f0" + "00000007"},
		{"commit index", ordKey(5), "736e" + "0000000000000005"},
	} {
		checkPinned(t, c.what+" key", c.key, c.hex)
	}
	if l, err := lsnOfKey(mustHex(t, "6367"+"0000000002000100")); err != nil || l != 0x2000100 {
		t.Errorf("lsnOfKey of the pinned group key = %s, %v; want 0/2000100", l, err)
	}
}

// TestPinnedCommitValues pins what a commit writes beside its log record,
// which the apply path encodes inline: the durable LSN (uvarint) and the
// commit index entry (ordinal key → big-endian end LSN), read back from
// the store of a mirror that applied one commit at 0/2000100.
func TestPinnedCommitValues(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(3, "d")
	h.lsn = 0x1000000
	h.copyTable(rel, nil, 1)
	info := wal.TxnInfo{Xid: 771, CommitLSN: 0x20000F0, EndLSN: 0x2000100, CommitTime: time.Unix(1, 0)}
	if err := h.m.Begin(t.Context(), wal.TxnInfo{Xid: info.Xid, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime}); err != nil {
		t.Fatal(err)
	}
	h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp("1"), sp("a"), nil}.values()})
	h.commit(info)
	deadline := time.Now().Add(60 * time.Second)
	for h.m.Durable() != info.EndLSN {
		if time.Now().After(deadline) {
			t.Fatalf("durable %s 60 s after the commit at %s", h.m.Durable(), info.EndLSN)
		}
		time.Sleep(10 * time.Millisecond)
	}
	err := h.m.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyDurable)
		if err != nil {
			return fmt.Errorf("durable key: %w", err)
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		checkPinned(t, "durable LSN", v, "80828010")
		if _, err := txn.Get(logKey(info.EndLSN)); err != nil {
			return fmt.Errorf("log record at %s: %w", info.EndLSN, err)
		}
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: ordPrefix()})
		defer it.Close()
		it.Seek(ordKey(^uint64(0)))
		if !it.Valid() {
			return errors.New("no commit index entry")
		}
		k := it.Item().KeyCopy(nil)
		v, err = it.Item().ValueCopy(nil)
		if err != nil {
			return err
		}
		if len(k) != 10 || hex.EncodeToString(k[:2]) != "736e" {
			t.Errorf("commit index key %x: want 's' 'n' and an 8-byte ordinal", k)
		}
		checkPinned(t, "commit index", v, "0000000002000100")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
