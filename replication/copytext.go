package replication

import (
	"bytes"
	"fmt"

	"github.com/sidecar-dev/sidecar/wal"
)

// copyParser decodes COPY ... TO STDOUT text format (the default: tab
// delimiter, \N for NULL, backslash escapes) into rows of Values holding the
// exact output-function text, the same bytes pgoutput sends. It is an
// io.Writer for pgconn.CopyTo; emit gets each row, whose values are valid
// only during the call.
type copyParser struct {
	ncols   int
	emit    func([]wal.Value) error
	pending []byte // an incomplete line carried between writes
	buf     []byte // unescaped bytes of the current row's escaped fields
	row     []wal.Value
	rows    int64
	bytes   int64
}

func newCopyParser(ncols int, emit func([]wal.Value) error) *copyParser {
	return &copyParser{ncols: ncols, emit: emit, row: make([]wal.Value, ncols)}
}

// Write consumes COPY data; rows may span writes.
func (p *copyParser) Write(b []byte) (int, error) {
	n := len(b)
	p.bytes += int64(n)
	if len(p.pending) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.pending = append(p.pending, b...)
			return n, nil
		}
		p.pending = append(p.pending, b[:i]...)
		if err := p.line(p.pending); err != nil {
			return 0, err
		}
		p.pending = p.pending[:0]
		b = b[i+1:]
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.pending = append(p.pending, b...)
			break
		}
		if err := p.line(b[:i]); err != nil {
			return 0, err
		}
		b = b[i+1:]
	}
	return n, nil
}

// finish reports an incomplete last line.
func (p *copyParser) finish() error {
	if len(p.pending) > 0 {
		return fmt.Errorf("COPY data ends inside a row (%d bytes without a newline)", len(p.pending))
	}
	return nil
}

// line decodes one row (without its newline). A field without a
// backslash is its own text: the value points into l, with no copy. An
// escaped field is unescaped into buf, whose capacity is first made at
// least len(l): unescaping never lengthens a field, so buf is never
// reallocated while the row's values point into it.
func (p *copyParser) line(l []byte) error {
	if cap(p.buf) < len(l) {
		p.buf = make([]byte, 0, max(len(l), 2*cap(p.buf)))
	}
	p.buf = p.buf[:0]
	field := 0
	for {
		end := bytes.IndexByte(l, '\t')
		f := l
		if end >= 0 {
			f = l[:end]
		}
		if field >= p.ncols {
			return fmt.Errorf("COPY row %d has more than %d columns", p.rows+1, p.ncols)
		}
		switch {
		case len(f) == 2 && f[0] == '\\' && f[1] == 'N':
			p.row[field] = wal.Value{Kind: wal.Null}
		case bytes.IndexByte(f, '\\') < 0:
			p.row[field] = wal.Value{Kind: wal.Text, Bytes: f[:len(f):len(f)]}
		default:
			start := len(p.buf)
			var err error
			if p.buf, err = unescapeCopy(p.buf, f); err != nil {
				return fmt.Errorf("COPY row %d column %d: %w", p.rows+1, field+1, err)
			}
			e := len(p.buf)
			p.row[field] = wal.Value{Kind: wal.Text, Bytes: p.buf[start:e:e]}
		}
		field++
		if end < 0 {
			break
		}
		l = l[end+1:]
	}
	if field != p.ncols {
		return fmt.Errorf("COPY row %d has %d columns, want %d", p.rows+1, field, p.ncols)
	}
	p.rows++
	return p.emit(p.row)
}

// DecodeCopyText decodes a whole COPY ... TO STDOUT text-format output of
// ncols columns with the initial copy's decoder: one []byte per field, nil
// for NULL, else the output-function text (an empty string is empty, not
// nil). Code outside the copy that reads COPY output (tests comparing it
// with pgoutput, tools) uses it so that there is one COPY decoder.
func DecodeCopyText(data []byte, ncols int) ([][][]byte, error) {
	var rows [][][]byte
	p := newCopyParser(ncols, func(vals []wal.Value) error {
		row := make([][]byte, len(vals))
		for i, v := range vals {
			if v.Kind == wal.Text {
				row[i] = append([]byte{}, v.Bytes...)
			}
		}
		rows = append(rows, row)
		return nil
	})
	if _, err := p.Write(data); err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return rows, nil
}

// unescapeCopy appends the decoded field f to dst. COPY TO writes \b \f \n
// \r \t \v and \\; the octal (\ooo) and hex (\xhh) forms are accepted too,
// as COPY FROM does, and any other escaped character stands for itself.
func unescapeCopy(dst, f []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(f, '\\')
		if i < 0 {
			return append(dst, f...), nil
		}
		dst = append(dst, f[:i]...)
		f = f[i+1:]
		if len(f) == 0 {
			return dst, fmt.Errorf("field ends with a lone backslash")
		}
		c := f[0]
		f = f[1:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'v':
			dst = append(dst, '\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for k := 0; k < 2 && len(f) > 0 && f[0] >= '0' && f[0] <= '7'; k++ {
				v = v*8 + int(f[0]-'0')
				f = f[1:]
			}
			dst = append(dst, byte(v))
		case 'x':
			if len(f) == 0 || hexVal(f[0]) < 0 {
				dst = append(dst, 'x')
				continue
			}
			v := hexVal(f[0])
			f = f[1:]
			if len(f) > 0 && hexVal(f[0]) >= 0 {
				v = v*16 + hexVal(f[0])
				f = f[1:]
			}
			dst = append(dst, byte(v))
		default:
			dst = append(dst, c)
		}
	}
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
