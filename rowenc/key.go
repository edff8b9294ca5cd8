package rowenc

import (
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
	"github.com/sidecar-dev/sidecar/types"
)

// Keys
//
// A key is the concatenation of one self-delimiting, order-preserving
// encoding per primary-key column, so bytes.Compare on two keys orders them
// column by column, as PostgreSQL orders the key (with the caveats per kind
// below), and the encoding of a key prefix (the first k columns) is a byte
// prefix of every key that starts with those values: a range scan over a
// prefix is a byte range.
//
// Input is the column's output-function text, exactly as pgoutput sends it
// with the pinned session settings (DateStyle=ISO, TimeZone=UTC, …), and
// DecodeKey gives those exact bytes back: keys are printed and turned into
// SQL literals from the decoded text. Encoding accepts only the canonical
// text PostgreSQL prints ("+5", "007" or "1.5e3" are errors), which is what
// makes the round trip exact.

// KeyKind selects the encoding of one key column.
type KeyKind uint8

const (
	// KindBytes: the text's bytes, 0x00 escaped as 0x00 0xFF and terminated
	// by 0x00 0x01. Order is byte order, i.e. PostgreSQL's order under
	// COLLATE "C" for text and varchar; it is the type's own order for uuid
	// (fixed-format lowercase hex) and bytea (hex output, shorter prefix
	// first). Used for every type without a dedicated kind: equality is
	// always exact, order only as good as the text's byte order.
	KindBytes KeyKind = iota + 1
	// KindInt2, KindInt4, KindInt8: fixed-width big-endian two's complement
	// with the sign bit flipped (2, 4, 8 bytes).
	KindInt2
	KindInt4
	KindInt8
	// KindNumeric: a tag (-Infinity < negative < zero < positive < Infinity
	// < NaN, PostgreSQL's order), then for non-zero finite values the
	// decimal exponent and the significant digits packed two per byte
	// (complemented for negatives), then the display scale.
	//
	// PostgreSQL compares numerics by value, so 1.5 = 1.50 and a primary key
	// cannot hold both, but they print differently and the mirror must give
	// back the text PostgreSQL sent. The mirror therefore keys by value first
	// and the display scale second: 1.5 sorts immediately before 1.50, and
	// the two are distinct keys. Because a table never holds both, the tie
	// break never orders two live rows; an UPDATE from 1.50 to 1.5 carries
	// the old key text (1.50) in its 'K' tuple, so it is applied as delete +
	// insert like any other key change.
	KindNumeric
	// KindBool: false (f) < true (t), one byte.
	KindBool
	// KindDate: -infinity < finite dates (by astronomical year, month, day;
	// BC dates come first) < infinity. Exact for every date PostgreSQL
	// prints in DateStyle ISO, including BC and years past 9999.
	KindDate
	// KindTimestamp: timestamp and timestamptz in DateStyle ISO:
	// -infinity < finite < infinity; finite values by astronomical year,
	// month, day, time, microseconds, then the printed UTC offset (always
	// "+00" under the pinned TimeZone=UTC, where this order is the instant
	// order; timestamp without time zone prints no offset).
	KindTimestamp
	numKinds
)

var kindNames = [...]string{
	KindBytes: "bytes", KindInt2: "int2", KindInt4: "int4", KindInt8: "int8",
	KindNumeric: "numeric", KindBool: "bool", KindDate: "date", KindTimestamp: "timestamp",
}

// String returns the kind's name.
func (k KeyKind) String() string {
	if k == 0 || k >= numKinds {
		return fmt.Sprintf("KeyKind(%d)", uint8(k))
	}
	return kindNames[k]
}

// KindForType returns the key kind for a PostgreSQL type, given as its
// pg_type.typname ("int4", "timestamptz") or its SQL name as printed by
// format_type ("integer", "timestamp with time zone", "numeric(12,2)").
// Types without a dedicated kind get KindBytes.
func KindForType(name string) KeyKind {
	t, _, err := types.Parse(name)
	if err != nil {
		return KindBytes
	}
	return keyKindOf(t.Physical)
}

// KindForOID returns the key kind for a column type OID as carried by
// pgoutput's Relation message; unknown and non-built-in OIDs (enums,
// domains) get KindBytes.
func KindForOID(oid uint32) KeyKind { return keyKindOf(types.PhysicalOf(oid)) }

// keyKindOf is the key encoding of a type the catalog stores with
// physical kind p: integers, numeric, bool, date and both timestamps
// have their own; the rest (floats included) are keyed by their text.
func keyKindOf(p types.Physical) KeyKind {
	switch p {
	case types.PhysInt2:
		return KindInt2
	case types.PhysInt4:
		return KindInt4
	case types.PhysInt8:
		return KindInt8
	case types.PhysNumeric:
		return KindNumeric
	case types.PhysBool:
		return KindBool
	case types.PhysDate:
		return KindDate
	case types.PhysTimestamp, types.PhysTimestampTZ:
		return KindTimestamp
	}
	return KindBytes
}

// ErrKeyText is wrapped by errors about key column text that is not the
// canonical output of the column's type.
var ErrKeyText = errors.New("not canonical key text")

// ErrCorruptKey is wrapped by errors about key bytes that no text encodes to.
var ErrCorruptKey = corrupt.New("corrupt key")

// KeyCodec encodes and decodes the keys of one table: the kinds of its
// primary-key columns in key order. It is immutable and safe for concurrent
// use.
type KeyCodec struct {
	kinds []KeyKind
}

// NewKeyCodec returns the codec for a key with the given column kinds.
func NewKeyCodec(kinds ...KeyKind) (*KeyCodec, error) {
	if len(kinds) == 0 {
		return nil, errors.New("key codec: no key columns")
	}
	for i, k := range kinds {
		if k == 0 || k >= numKinds {
			return nil, fmt.Errorf("key codec: column %d: unknown kind %d", i, k)
		}
	}
	return &KeyCodec{kinds: append([]KeyKind(nil), kinds...)}, nil
}

// Kinds returns the key column kinds (a copy).
func (c *KeyCodec) Kinds() []KeyKind { return append([]KeyKind(nil), c.kinds...) }

// Append appends the key of the given column texts (one per key column) to
// dst.
func (c *KeyCodec) Append(dst []byte, texts [][]byte) ([]byte, error) {
	if len(texts) != len(c.kinds) {
		return dst, fmt.Errorf("encode key: %d values for %d key columns", len(texts), len(c.kinds))
	}
	return c.AppendPrefix(dst, texts)
}

// AppendPrefix appends the encoding of the first len(texts) key columns: a
// byte prefix of every key starting with those values, for range bounds.
func (c *KeyCodec) AppendPrefix(dst []byte, texts [][]byte) ([]byte, error) {
	if len(texts) > len(c.kinds) {
		return dst, fmt.Errorf("encode key: %d values for %d key columns", len(texts), len(c.kinds))
	}
	for i, t := range texts {
		var err error
		if dst, err = AppendKeyColumn(dst, c.kinds[i], t); err != nil {
			return dst, fmt.Errorf("encode key column %d: %w", i, err)
		}
	}
	return dst, nil
}

// Encode is Append for string texts, into a fresh slice.
func (c *KeyCodec) Encode(texts ...string) ([]byte, error) {
	if len(texts) != len(c.kinds) {
		return nil, fmt.Errorf("encode key: %d values for %d key columns", len(texts), len(c.kinds))
	}
	var dst []byte
	for i, t := range texts {
		var err error
		if dst, err = AppendKeyColumn(dst, c.kinds[i], []byte(t)); err != nil {
			return nil, fmt.Errorf("encode key column %d: %w", i, err)
		}
	}
	return dst, nil
}

// Decode returns the output-function texts of the key's columns. It
// validates the bytes: a key that decodes re-encodes to the same bytes.
func (c *KeyCodec) Decode(key []byte) ([]string, error) {
	out := make([]string, len(c.kinds))
	rest := key
	var buf []byte
	for i, k := range c.kinds {
		var err error
		buf, rest, err = DecodeKeyColumn(buf[:0], k, rest)
		if err != nil {
			return nil, fmt.Errorf("decode key column %d: %w", i, err)
		}
		out[i] = string(buf)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("decode key: %w: %d trailing bytes", ErrCorruptKey, len(rest))
	}
	return out, nil
}

// AppendKeyColumn appends the encoding of one key column's text.
func AppendKeyColumn(dst []byte, kind KeyKind, text []byte) ([]byte, error) {
	switch kind {
	case KindBytes:
		return appendEscaped(dst, text), nil
	case KindInt2:
		return appendInt(dst, text, 2)
	case KindInt4:
		return appendInt(dst, text, 4)
	case KindInt8:
		return appendInt(dst, text, 8)
	case KindNumeric:
		return appendNumeric(dst, text)
	case KindBool:
		switch string(text) {
		case "f":
			return append(dst, 0), nil
		case "t":
			return append(dst, 1), nil
		}
		return dst, fmt.Errorf("%w: bool %q", ErrKeyText, clip(text))
	case KindDate:
		return appendDate(dst, text)
	case KindTimestamp:
		return appendTimestamp(dst, text)
	}
	return dst, fmt.Errorf("encode key: unknown kind %d", kind)
}

// DecodeKeyColumn decodes the first column of key, appending its text to
// dst, and returns the remaining bytes.
func DecodeKeyColumn(dst []byte, kind KeyKind, key []byte) (text, rest []byte, err error) {
	switch kind {
	case KindBytes:
		return decodeEscaped(dst, key)
	case KindInt2:
		return decodeInt(dst, key, 2)
	case KindInt4:
		return decodeInt(dst, key, 4)
	case KindInt8:
		return decodeInt(dst, key, 8)
	case KindNumeric:
		return decodeNumeric(dst, key)
	case KindBool:
		if len(key) == 0 || key[0] > 1 {
			return dst, key, fmt.Errorf("%w: bad bool byte", ErrCorruptKey)
		}
		return append(dst, "ft"[key[0]]), key[1:], nil
	case KindDate:
		return decodeDate(dst, key)
	case KindTimestamp:
		return decodeTimestamp(dst, key)
	}
	return dst, key, fmt.Errorf("decode key: unknown kind %d", kind)
}

// --- bytes ---

const (
	escByte  = 0x00
	escZero  = 0xFF // 0x00 0xFF is a literal 0x00
	escTerm  = 0x01 // 0x00 0x01 ends the column
	termSize = 2
)

func appendEscaped(dst, text []byte) []byte {
	for _, b := range text {
		if b == escByte {
			dst = append(dst, escByte, escZero)
		} else {
			dst = append(dst, b)
		}
	}
	return append(dst, escByte, escTerm)
}

func decodeEscaped(dst, key []byte) ([]byte, []byte, error) {
	for i := 0; i < len(key); i++ {
		b := key[i]
		if b != escByte {
			dst = append(dst, b)
			continue
		}
		if i+1 >= len(key) {
			return dst, key, fmt.Errorf("%w: truncated escape", ErrCorruptKey)
		}
		switch key[i+1] {
		case escZero:
			dst = append(dst, 0)
			i++
		case escTerm:
			return dst, key[i+termSize:], nil
		default:
			return dst, key, fmt.Errorf("%w: bad escape 0x00 0x%02x", ErrCorruptKey, key[i+1])
		}
	}
	return dst, key, fmt.Errorf("%w: unterminated bytes column", ErrCorruptKey)
}

// clip shortens untrusted text for error messages.
func clip(b []byte) string {
	const max = 64
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// EncodeKey returns the key of the given column texts under kinds; a
// shorthand for NewKeyCodec(kinds...).Encode(texts...).
func EncodeKey(kinds []KeyKind, texts ...string) ([]byte, error) {
	c, err := NewKeyCodec(kinds...)
	if err != nil {
		return nil, err
	}
	return c.Encode(texts...)
}

// DecodeKey returns the column texts of key under kinds; a shorthand for
// NewKeyCodec(kinds...).Decode(key).
func DecodeKey(key []byte, kinds []KeyKind) ([]string, error) {
	c, err := NewKeyCodec(kinds...)
	if err != nil {
		return nil, err
	}
	return c.Decode(key)
}
