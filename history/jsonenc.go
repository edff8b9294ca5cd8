package history

import (
	"strconv"
	"unicode/utf8"
)

// Hand-written JSON for the hot path of JSON-lines output: encoding/json
// re-validates what a MarshalJSON method returns and reflects over Event
// on every line, ~15 µs a row; this appends bytes directly. The output is
// what encoding/json with SetEscapeHTML(false) writes for the same
// values (TestJSONMatchesEncodingJSON).

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, and
// U+2028, U+2029 escaped (as encoding/json does).
func appendString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		var rb [utf8.UTFMax]byte // one decoder for strings and bytes, no allocation
		r, size := utf8.DecodeRune(rb[:copy(rb[:], s[i:])])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendRow appends a row object (column order, null for NULL).
func appendRow(dst []byte, r *Row) []byte {
	dst = append(dst, '{')
	for i, n := range r.Names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, n)
		dst = append(dst, ':')
		if r.Values[i] == nil {
			dst = append(dst, "null"...)
		} else {
			dst = appendString(dst, *r.Values[i])
		}
	}
	return append(dst, '}')
}

func appendField(dst []byte, name string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// appendEvent appends e as one JSON object, fields in Event's order,
// omitting empty ones like its json tags say.
func appendEvent(dst []byte, e *Event) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, e.Type)
	dst = appendField(dst, "table")
	dst = appendString(dst, e.Table)
	str := func(name, v string) {
		if v != "" {
			dst = appendField(dst, name)
			dst = appendString(dst, v)
		}
	}
	row := func(name string, r *Row) {
		if r != nil {
			dst = appendField(dst, name)
			dst = appendRow(dst, r)
		}
	}
	num := func(name string, v *int64) {
		if v != nil {
			dst = appendField(dst, name)
			dst = strconv.AppendInt(dst, *v, 10)
		}
	}
	str("from_ref", e.FromRef)
	str("to_ref", e.ToRef)
	if len(e.Columns) > 0 {
		dst = appendField(dst, "columns")
		dst = appendColumns(dst, e.Columns)
	}
	if sc := e.SchemaChange; sc != nil {
		dst = appendField(dst, "schema_change")
		dst = append(dst, `{"added":`...)
		dst = appendStrings(dst, sc.Added)
		dst = append(dst, `,"dropped":`...)
		dst = appendStrings(dst, sc.Dropped)
		if len(sc.Retyped) > 0 {
			dst = append(dst, `,"retyped":`...)
			dst = appendStrings(dst, sc.Retyped)
		}
		dst = append(dst, '}')
	}
	str("op", e.Op)
	str("kind", e.Kind)
	row("key", e.Key)
	row("from", e.From)
	row("to", e.To)
	if len(e.Changed) > 0 {
		dst = appendField(dst, "changed")
		dst = appendStrings(dst, e.Changed)
	}
	row("base", e.Base)
	row("ours", e.Ours)
	row("theirs", e.Theirs)
	num("rows_added", e.RowsAdded)
	num("rows_removed", e.RowsRemoved)
	num("rows_changed", e.RowsChanged)
	return append(dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

func appendColumns(dst []byte, cols []Column) []byte {
	if cols == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, c := range cols {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = appendString(dst, c.Name)
		dst = append(dst, `,"type":`...)
		dst = appendString(dst, c.Type)
		if c.Key {
			dst = append(dst, `,"key":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendGetResult appends a GetResult whose rows are already JSON (rows:
// the objects, comma-separated).
func appendGetResult(dst []byte, h *ReadHeader, rows []byte, missing [][]string) []byte {
	dst = append(dst, `{"table":`...)
	dst = appendString(dst, h.Table)
	dst = appendField(dst, "lsn")
	dst = appendString(dst, h.LSN)
	dst = appendField(dst, "ref")
	dst = appendString(dst, h.Ref)
	dst = appendField(dst, "columns")
	dst = appendColumns(dst, h.Columns)
	dst = appendField(dst, "rows")
	dst = append(dst, '[')
	dst = append(dst, rows...)
	dst = append(dst, ']')
	if len(missing) > 0 {
		dst = appendField(dst, "missing")
		dst = append(dst, '[')
		for i, k := range missing {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendStrings(dst, k)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
