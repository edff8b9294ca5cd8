// Package rowenc defines the two byte formats every other package agrees on:
//
//   - the canonical row value ("vrow1"): the tuple of a row's column values as
//     PostgreSQL's output functions print them, length-prefixed, in relation
//     column order. The mirror stores exactly these bytes, and verify/ builds
//     the same bytes inside PostgreSQL, so a row hash computed on either side
//     is equal by construction, with no re-encoding (DESIGN.md invariant 5);
//   - the key: an order-preserving (memcmp) encoding of the primary-key
//     column values, so that the Prolly tree's byte order is PostgreSQL's
//     key order (see key.go).
//
// vrow1, per column, with no separator between columns:
//
//	NULL      "-"
//	value v   <decimal byte length of v> ":" v
//
// The decimal length has no sign and no leading zeros ("0:" is the empty
// string). The format is prefix-free, hence injective: NULL and "" differ,
// ("a|b","c") and ("a","b|c") differ, and no escaping is needed. A column
// added to a table without a default is NULL in every existing row, and
// appending a NULL appends exactly "-": old rows stay valid rows of the new
// schema once "-" is appended, and verify's SQL produces the same bytes.
//
// Decoding accepts only the canonical form, so that a decoded row re-encodes
// to the same bytes (and so to the same hash); everything read back from disk
// or the network goes through the validating Iter.
package rowenc

import (
	"fmt"
	"strconv"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// Version names the row encoding. It is recorded with every stored tree and
// printed in every verify report, so a future vrow2 can never be compared
// against vrow1 bytes by mistake.
const Version = "vrow1"

// ErrCorrupt is wrapped by every error about bytes that are not a canonical
// vrow1 row.
var ErrCorrupt = corrupt.New("corrupt vrow1 row")

// nullMarker is the encoding of a NULL column.
const nullMarker = '-'

// maxLenDigits bounds the decimal length prefix: 10 digits cover every length
// PostgreSQL can produce (a varlena is at most 1 GiB) and keep the parse free
// of overflow on 64-bit ints.
const maxLenDigits = 10

// AppendNull appends a NULL column to the row being built in dst.
func AppendNull(dst []byte) []byte { return append(dst, nullMarker) }

// AppendValue appends a non-NULL column whose output-function text is v
// (which may be empty: the empty string is not NULL).
func AppendValue(dst, v []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, ':')
	return append(dst, v...)
}

// AppendNulls appends n NULL columns: what a row stored before
// `ALTER TABLE … ADD COLUMN` (no default) becomes under the new schema.
func AppendNulls(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, nullMarker)
	}
	return dst
}

// Append appends the encoding of values to dst. A nil element is NULL; a
// non-nil empty slice is the empty string.
func Append(dst []byte, values [][]byte) []byte {
	for _, v := range values {
		if v == nil {
			dst = AppendNull(dst)
		} else {
			dst = AppendValue(dst, v)
		}
	}
	return dst
}

// Encode returns the vrow1 encoding of values (nil element = NULL).
func Encode(values [][]byte) []byte {
	n := 0
	for _, v := range values {
		n += len(v) + 12
	}
	return Append(make([]byte, 0, n), values)
}

// EncodedLen returns len(Encode(values)) without encoding.
func EncodedLen(values [][]byte) int {
	n := 0
	for _, v := range values {
		if v == nil {
			n++
			continue
		}
		n += decimalLen(len(v)) + 1 + len(v)
	}
	return n
}

func decimalLen(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// Iter walks the columns of an untrusted vrow1 row without allocating. The
// zero Iter is an empty row.
//
//	it := rowenc.NewIter(row)
//	for it.Next() {
//		if it.Null() { … } else { use(it.Value()) }
//	}
//	if err := it.Err(); err != nil { … }
type Iter struct {
	row  []byte
	pos  int
	col  int // index of the current column; -1 before the first Next
	val  []byte
	null bool
	err  error
}

// NewIter returns an iterator over row's columns. The values it yields are
// sub-slices of row: valid as long as row is, and not to be modified.
func NewIter(row []byte) Iter { return Iter{row: row, col: -1} }

// Next advances to the next column. It returns false at the end of the row
// or on malformed bytes; Err tells the two apart.
func (it *Iter) Next() bool {
	if it.err != nil || it.pos >= len(it.row) {
		return false
	}
	it.col++
	start := it.pos
	if it.row[it.pos] == nullMarker {
		it.pos++
		it.val, it.null = nil, true
		return true
	}
	n, digits := 0, 0
	p := it.pos
	for ; p < len(it.row) && it.row[p] != ':'; p++ {
		c := it.row[p]
		if c < '0' || c > '9' {
			return it.fail(start, "unexpected byte %q in length", c)
		}
		digits++
		if digits > maxLenDigits {
			return it.fail(start, "length prefix longer than %d digits", maxLenDigits)
		}
		if digits == 2 && n == 0 {
			return it.fail(start, "length prefix with a leading zero")
		}
		n = n*10 + int(c-'0')
	}
	if p >= len(it.row) {
		return it.fail(start, "length prefix without ':'")
	}
	if digits == 0 {
		return it.fail(start, "empty length prefix")
	}
	p++ // ':'
	if n > len(it.row)-p {
		return it.fail(start, "value of %d bytes overruns the row (%d left)", n, len(it.row)-p)
	}
	it.val, it.null = it.row[p:p+n:p+n], false
	it.pos = p + n
	return true
}

func (it *Iter) fail(at int, format string, args ...any) bool {
	it.err = fmt.Errorf("%w: column %d at byte %d: %s", ErrCorrupt, it.col, at, fmt.Sprintf(format, args...))
	it.val, it.null = nil, false
	return false
}

// Value returns the current column's bytes (nil for NULL).
func (it *Iter) Value() []byte { return it.val }

// Null reports whether the current column is NULL.
func (it *Iter) Null() bool { return it.null }

// Column returns the index of the current column (0-based).
func (it *Iter) Column() int { return it.col }

// Err returns the first decoding error, or nil at a clean end of row.
func (it *Iter) Err() error { return it.err }

// Validate checks that row is canonical vrow1 and returns its column count.
func Validate(row []byte) (int, error) {
	it := NewIter(row)
	n := 0
	for it.Next() {
		n++
	}
	return n, it.Err()
}

// Decode splits row into its column values: nil for NULL, a non-nil (possibly
// empty) sub-slice of row otherwise. It allocates the result slice only; use
// Iter on hot paths.
func Decode(row []byte) ([][]byte, error) {
	var out [][]byte
	it := NewIter(row)
	for it.Next() {
		v := it.Value()
		if !it.Null() && v == nil {
			v = row[:0:0]
		}
		out = append(out, v)
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Column returns column i of row (nil, true for NULL). Columns past the end
// of the row are reported as NULL: a row encoded before a nullable column was
// added reads as NULL there, exactly as PostgreSQL reads it. The caller is
// responsible for knowing the schema's column count.
func Column(row []byte, i int) (v []byte, null bool, err error) {
	it := NewIter(row)
	for it.Next() {
		if it.Column() == i {
			return it.Value(), it.Null(), nil
		}
	}
	if err := it.Err(); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// AppendMerged appends a row built from a pgoutput tuple: column i is
// vals[i] (nil for NULL) unless keep[i], in which case it is column i of
// prev, the row stored before, copied verbatim. keep marks the unchanged
// out-of-line TOAST columns ('u'), whose bytes pgoutput does not resend.
// A kept column that prev does not have is an error: the mirror must then
// resync the table rather than invent a value (replication.md §5).
// keep may be nil (nothing kept); otherwise len(keep) == len(vals).
func AppendMerged(dst []byte, vals [][]byte, keep []bool, prev []byte) ([]byte, error) {
	if keep != nil && len(keep) != len(vals) {
		return dst, fmt.Errorf("merge row: %d keep flags for %d columns", len(keep), len(vals))
	}
	it := NewIter(prev)
	for i, v := range vals {
		if keep == nil || !keep[i] {
			if v == nil {
				dst = AppendNull(dst)
			} else {
				dst = AppendValue(dst, v)
			}
			continue
		}
		// Advance prev to column i.
		for it.Column() < i {
			if !it.Next() {
				if err := it.Err(); err != nil {
					return dst, fmt.Errorf("merge row: previous row: %w", err)
				}
				return dst, fmt.Errorf("merge row: column %d is unchanged but the previous row has only %d columns", i, it.Column()+1)
			}
		}
		if it.Null() {
			dst = AppendNull(dst)
		} else {
			dst = AppendValue(dst, it.Value())
		}
	}
	return dst, nil
}
