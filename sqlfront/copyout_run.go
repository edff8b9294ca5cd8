package sqlfront

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"
)

// copyBinarySignature starts COPY BINARY's header: the signature, then
// the flags field and the header extension's length (both 0).
var copyBinarySignature = []byte("PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// runCopy runs a COPY … TO STDOUT: CopyOutResponse, the header line, a
// CopyData per row as the select produces it (nothing buffered beyond
// the engine's), CopyDone and `COPY n`. As PostgreSQL's CopyTo,
// CopyOutResponse and the header line go out once the statement is
// planned, before its first row is read: a query failing at its first
// row (1/0) answers CopyOutResponse, the header, then the error — before,
// the error came alone. COPY BINARY's signature goes out with the first
// row (PostgreSQL buffers it with the row). A replan after a resync
// (errReplan before any row) runs again without sending them twice
// (copyBegun).
func (s *session) runCopy(ctx context.Context, p *plan, params []Value) error {
	c := p.copyOut
	if c.err != nil {
		return c.err
	}
	sel := c.query
	var fmts []int16
	if c.format == copyBinary {
		fmts = []int16{1}
	}
	enc := s.encoder(sel, fmts)
	var line []byte
	begin, headerAt := c.beginning(sel)
	sent := false
	if prev := s.copyBegun; prev != nil && prev.ctx == ctx {
		// The statement's first attempt sent the beginning already.
		s.copyBegun = nil
		if prev.begin != begin {
			return &Error{Code: errReplan.Code, Msg: errReplan.Msg, Pos: -1}
		}
		sent = true
	}
	s.copyBegun = nil
	send := func() {
		if sent {
			return
		}
		sent = true
		resp := &pgproto3.CopyOutResponse{ColumnFormatCodes: make([]uint16, len(sel.cols))}
		if c.format == copyBinary {
			resp.OverallFormat = 1
			for i := range resp.ColumnFormatCodes {
				resp.ColumnFormatCodes[i] = 1
			}
		}
		s.be.Send(resp)
		if headerAt < len(begin) {
			s.be.Send(&pgproto3.CopyData{Data: []byte(begin[headerAt:])})
		}
	}
	if c.format == copyBinary {
		line = append(line, copyBinarySignature...) // sent with the first row, as PostgreSQL does
	}
	// Paths that do not say where planning ends send it with the first row.
	ex := &execCtx{ctx: ctx, src: s.srv.src, sess: s, params: params, planned: send}
	n := 0
	err := sel.run(ex, func(row []Value) error {
		vals, err := enc(row)
		if err != nil {
			return err
		}
		send()
		line = c.appendRow(line, vals)
		s.be.Send(&pgproto3.CopyData{Data: line})
		line = line[:0]
		if n++; n%256 == 0 {
			return s.be.Flush()
		}
		return nil
	})
	if err != nil {
		if sent && errors.Is(err, errReplan) {
			if n > 0 {
				// Rows went out: the statement cannot be run again.
				return &Error{Code: errReplan.Code, Msg: errReplan.Msg, Pos: -1}
			}
			s.copyBegun = &copyBegun{ctx: ctx, begin: begin} // planned again and run by the caller
		}
		return err
	}
	send()
	if c.format == copyBinary {
		line = binary.BigEndian.AppendUint16(line, 0xFFFF)
	}
	if len(line) > 0 {
		s.be.Send(&pgproto3.CopyData{Data: line})
	}
	s.be.Send(&pgproto3.CopyDone{})
	s.srv.met.rows.Add(float64(n))
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("COPY " + strconv.Itoa(n))})
	return nil
}

// copyBegun is what a COPY's first attempt sent before a replan
// (errReplan before its first row): the statement's context, and its
// beginning (copySpec.beginning), which the replanned COPY must match.
type copyBegun struct {
	ctx   context.Context
	begin string
}

// beginning is what runCopy sends before the rows, as a string to
// compare across a replan: the format and the column count, then the
// header line (from the offset returned; empty without HEADER).
func (c *copySpec) beginning(sel *plan) (string, int) {
	b := strconv.AppendInt([]byte{byte('0' + c.format)}, int64(len(sel.cols)), 10)
	b = append(b, ' ')
	at := len(b)
	if c.format != copyBinary && c.header {
		for i, col := range sel.cols {
			if i > 0 {
				b = append(b, c.delim)
			}
			b = c.appendField(b, []byte(col.name), false, len(sel.cols) == 1)
		}
		b = append(b, '\n')
	}
	return string(b), at
}

// appendRow appends one row (values as the encoder gives them: nil is
// NULL) in the COPY's format, as PostgreSQL's CopyOneRowTo writes it.
func (c *copySpec) appendRow(b []byte, vals [][]byte) []byte {
	if c.format == copyBinary {
		b = binary.BigEndian.AppendUint16(b, uint16(len(vals)))
		for _, v := range vals {
			if v == nil {
				b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
		}
		return b
	}
	for i, v := range vals {
		if i > 0 {
			b = append(b, c.delim)
		}
		if v == nil {
			b = append(b, c.null...)
			continue
		}
		b = c.appendField(b, v, c.forceAll || c.force[i], len(vals) == 1)
	}
	return append(b, '\n')
}

// appendField appends one non-NULL value: text format's backslash
// escapes (CopyAttributeOutText) or csv's quoting (CopyAttributeOutCSV:
// quoted when forced, when it equals the NULL string, when it holds the
// delimiter, the quote, CR or LF, or when it is `\.` alone on a line).
func (c *copySpec) appendField(b, v []byte, force, single bool) []byte {
	if c.format == copyText {
		for _, ch := range v {
			if ch < 0x20 {
				var e byte
				switch ch {
				case '\b':
					e = 'b'
				case '\f':
					e = 'f'
				case '\n':
					e = 'n'
				case '\r':
					e = 'r'
				case '\t':
					e = 't'
				case '\v':
					e = 'v'
				default:
					if ch == c.delim {
						e = ch
					}
				}
				if e != 0 {
					b = append(b, '\\', e)
					continue
				}
			} else if ch == '\\' || ch == c.delim {
				b = append(b, '\\')
			}
			b = append(b, ch)
		}
		return b
	}
	quote := force || string(v) == c.null
	if !quote && single && string(v) == `\.` {
		quote = true
	}
	for i := 0; !quote && i < len(v); i++ {
		ch := v[i]
		quote = ch == c.delim || ch == c.quote || ch == '\n' || ch == '\r'
	}
	if !quote {
		return append(b, v...)
	}
	b = append(b, c.quote)
	for _, ch := range v {
		if ch == c.quote || ch == c.escape {
			b = append(b, c.escape)
		}
		b = append(b, ch)
	}
	return append(b, c.quote)
}
