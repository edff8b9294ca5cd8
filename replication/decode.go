package replication

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// This file decodes pgoutput protocol version 2 messages (PostgreSQL 15
// proto.c). It is our own decoder rather than pglogrepl's: every read is
// bounds-checked (a truncated message is an error, never a panic), all
// values of a message share one copy of its bytes, and the output is this
// package's types.

// errShort is wrapped when a message ends before its fields do.
var errShort = errors.New("message truncated")

// pgEpoch is PostgreSQL's timestamp epoch.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// wireMsg is one decoded pgoutput message, not yet resolved against the
// relation cache.
type wireMsg struct {
	typ byte
	// xid: Begin's xid, Stream Start/Commit/Abort's top-level xid, or the
	// (sub)transaction xid prefixed to an in-stream change.
	xid     uint32
	subxid  uint32  // Stream Abort only
	first   bool    // Stream Start: first segment
	lsn     wal.LSN // Begin: final (commit) LSN; Commit: commit LSN; Message: its LSN
	endLSN  wal.LSN // Commit, Stream Commit
	time    time.Time
	flags   uint8 // Truncate options; Message: 1 = transactional
	relID   uint32
	rel     *wal.Relation // Relation message (type names not yet resolved)
	typOID  uint32        // Type message
	typName string        // Type message: schema-qualified unless pg_catalog
	oldKind byte          // 0, 'K' or 'O'
	old     []wal.Value
	new     []wal.Value
	relIDs  []uint32
	prefix  string
	content []byte
	size    int // bytes of the message (for the reader's memory budget)
}

// reader walks a message's bytes.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("%w: need %d bytes at offset %d of %d", errShort, n, r.off, len(r.b))
		return false
	}
	return true
}

func (r *reader) u8() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *reader) ts() time.Time {
	us := int64(r.u64())
	return pgEpoch.Add(time.Duration(us) * time.Microsecond).UTC()
}

// str reads a NUL-terminated string.
func (r *reader) str() string {
	if r.err != nil {
		return ""
	}
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s
		}
	}
	r.err = fmt.Errorf("%w: unterminated string at offset %d", errShort, r.off)
	return ""
}

// bytes returns the next n bytes, aliasing the buffer.
func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

// tuple reads TupleData. Values alias the buffer.
func (r *reader) tuple() []wal.Value {
	n := int(r.u16())
	if r.err != nil {
		return nil
	}
	// Each column takes at least one byte: refuse counts the buffer cannot hold
	// before allocating for them.
	if !r.need(n) {
		return nil
	}
	vals := make([]wal.Value, n)
	for i := range vals {
		switch k := r.u8(); k {
		case 'n':
			vals[i] = wal.Value{Kind: wal.Null}
		case 'u':
			vals[i] = wal.Value{Kind: wal.Unchanged}
		case 't':
			l := r.u32()
			vals[i] = wal.Value{Kind: wal.Text, Bytes: r.bytes(int(l))}
		case 'b':
			if r.err == nil {
				r.err = fmt.Errorf("column %d: binary value, but binary mode is never requested", i)
			}
		default:
			if r.err == nil {
				r.err = fmt.Errorf("column %d: unknown tuple value kind %q", i, k)
			}
		}
		if r.err != nil {
			return nil
		}
	}
	return vals
}

// isStreamable reports whether a message type carries a transaction id
// prefix when sent inside a stream block.
func isStreamable(t byte) bool {
	switch t {
	case 'R', 'Y', 'I', 'U', 'D', 'T', 'M':
		return true
	}
	return false
}

// decodeMessage decodes one pgoutput message. inStream must be true between
// Stream Start and Stream Stop: messages sent there carry the xid of the
// (sub)transaction that made them. The result aliases data; callers pass a
// buffer they own.
func decodeMessage(data []byte, inStream bool) (m wireMsg, err error) {
	if len(data) == 0 {
		return m, errors.New("decode pgoutput message: empty")
	}
	r := &reader{b: data, off: 1}
	m.typ = data[0]
	m.size = len(data)
	if inStream && isStreamable(m.typ) {
		m.xid = r.u32()
	}
	switch m.typ {
	case 'B':
		m.lsn = wal.LSN(r.u64())
		m.time = r.ts()
		m.xid = r.u32()
	case 'C':
		m.flags = r.u8()
		m.lsn = wal.LSN(r.u64())
		m.endLSN = wal.LSN(r.u64())
		m.time = r.ts()
	case 'O':
		m.lsn = wal.LSN(r.u64())
		m.prefix = r.str()
	case 'R':
		rel := &wal.Relation{}
		rel.OID = r.u32()
		rel.Schema = r.str()
		rel.Name = r.str()
		rel.Identity = wal.ReplicaIdentity(r.u8())
		n := int(r.u16())
		if r.need(n) { // at least one byte per column
			rel.Columns = make([]wal.Column, n)
			for i := range rel.Columns {
				c := &rel.Columns[i]
				c.Key = r.u8()&1 != 0
				c.Name = r.str()
				c.TypeOID = r.u32()
				c.TypeMod = int32(r.u32())
			}
		}
		m.relID = rel.OID
		m.rel = rel
	case 'Y':
		m.typOID = r.u32()
		ns := r.str()
		name := r.str()
		m.typName = qualifyType(ns, name)
	case 'I':
		m.relID = r.u32()
		if t := r.u8(); t != 'N' && r.err == nil {
			r.err = fmt.Errorf("insert: tuple marker %q, want 'N'", t)
		}
		m.new = r.tuple()
	case 'U':
		m.relID = r.u32()
		t := r.u8()
		if t == 'K' || t == 'O' {
			m.oldKind = t
			m.old = r.tuple()
			t = r.u8()
		}
		if t != 'N' && r.err == nil {
			r.err = fmt.Errorf("update: tuple marker %q, want 'N'", t)
		}
		m.new = r.tuple()
	case 'D':
		m.relID = r.u32()
		t := r.u8()
		if t != 'K' && t != 'O' && r.err == nil {
			r.err = fmt.Errorf("delete: tuple marker %q, want 'K' or 'O'", t)
		}
		m.oldKind = t
		m.old = r.tuple()
	case 'T':
		n := int(r.u32())
		m.flags = r.u8()
		if r.need(4 * n) {
			m.relIDs = make([]uint32, n)
			for i := range m.relIDs {
				m.relIDs[i] = r.u32()
			}
		}
	case 'M':
		m.flags = r.u8()
		m.lsn = wal.LSN(r.u64())
		m.prefix = r.str()
		n := r.u32()
		m.content = r.bytes(int(n))
	case 'S':
		m.xid = r.u32()
		m.first = r.u8() == 1
	case 'E':
	case 'c':
		m.xid = r.u32()
		m.flags = r.u8()
		m.lsn = wal.LSN(r.u64())
		m.endLSN = wal.LSN(r.u64())
		m.time = r.ts()
	case 'A':
		m.xid = r.u32()
		m.subxid = r.u32()
	default:
		return m, fmt.Errorf("decode pgoutput message: unsupported type %q (two-phase and protocol 4 are never requested)", m.typ)
	}
	if r.err != nil {
		return m, fmt.Errorf("decode pgoutput message %q: %w", m.typ, r.err)
	}
	return m, nil
}

// qualifyType names a type as Column.TypeName does.
func qualifyType(schema, name string) string {
	if schema == "pg_catalog" || schema == "" {
		return name
	}
	return schema + "." + name
}

// streamXid returns the xid prefix of an in-stream message without decoding
// the rest, so the stream's spool can file it by subtransaction.
func streamXid(data []byte) (uint32, error) {
	if len(data) < 5 || !isStreamable(data[0]) {
		return 0, fmt.Errorf("in-stream message %q of %d bytes has no xid", firstByte(data), len(data))
	}
	return binary.BigEndian.Uint32(data[1:5]), nil
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
