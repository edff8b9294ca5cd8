package history

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// KeyRange is a half-open range [Start, End) of encoded keys; nil is
// unbounded.
type KeyRange struct {
	Start, End []byte
}

// predicate is one "column op value" term of a --where expression.
type predicate struct {
	col, op, val string
}

// parseWhere reads a --where expression on the first primary-key column:
// terms "col OP value" joined by AND, OP one of = < <= > >=, value a bare
// word or a single-quoted string (a quote inside doubled). Anything else is
// rejected up front rather than half-applied.
func parseWhere(s string) ([]predicate, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []predicate
	rest := s
	for {
		p, r, err := parseTerm(rest)
		if err != nil {
			return nil, fmt.Errorf("--where %q: %w: %w", s, ErrBadRequest, err)
		}
		out = append(out, p)
		r = strings.TrimSpace(r)
		if r == "" {
			return out, nil
		}
		if len(r) < 4 || !strings.EqualFold(r[:4], "and ") {
			return nil, fmt.Errorf("--where %q: %w: expected AND before %q (only AND of key comparisons is supported)", s, ErrBadRequest, r)
		}
		rest = r[4:]
	}
}

func parseTerm(s string) (predicate, string, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, "=<>")
	if i <= 0 {
		return predicate{}, "", fmt.Errorf("expected column OP value at %q", s)
	}
	p := predicate{col: strings.TrimSpace(s[:i])}
	if strings.HasPrefix(p.col, `"`) && strings.HasSuffix(p.col, `"`) && len(p.col) >= 2 {
		p.col = strings.ReplaceAll(p.col[1:len(p.col)-1], `""`, `"`)
	}
	s = s[i:]
	for _, op := range []string{"<=", ">=", "=", "<", ">"} {
		if strings.HasPrefix(s, op) {
			p.op, s = op, strings.TrimSpace(s[len(op):])
			break
		}
	}
	if strings.HasPrefix(s, "'") {
		var b strings.Builder
		for j := 1; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				p.val = b.String()
				return p, s[j+1:], nil
			}
			b.WriteByte(s[j])
		}
		return p, "", fmt.Errorf("unterminated quoted value")
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	p.val = s[:end]
	if p.val == "" {
		return p, "", fmt.Errorf("missing value after %s", p.op)
	}
	return p, s[end:], nil
}

// keyRange turns predicates into a range of keys of a table whose first
// key column is keyCol (encoded by codec).
func keyRange(table, keyCol string, codec *rowenc.KeyCodec, preds []predicate) (KeyRange, error) {
	var r KeyRange
	if len(preds) == 0 {
		return r, nil
	}
	if codec == nil {
		return r, fmt.Errorf("key range (--where, --from, --to) on %s: %w: the table has REPLICA IDENTITY FULL and no key to range over; read it whole", table, ErrBadRequest)
	}
	for _, p := range preds {
		if p.col != keyCol {
			return r, fmt.Errorf("--where on %s: %w: %q is not the first primary-key column (%q); --where ranges over the key", table, ErrBadRequest, p.col, keyCol)
		}
		enc, err := codec.AppendPrefix(nil, [][]byte{[]byte(p.val)})
		if err != nil {
			return r, fmt.Errorf("--where on %s: %w: %s %s %q: %w", table, ErrBadRequest, p.col, p.op, p.val, err)
		}
		switch p.op {
		case "=":
			r.Start, r.End = maxKey(r.Start, enc), minKey(r.End, prefixEnd(enc))
		case ">=":
			r.Start = maxKey(r.Start, enc)
		case ">":
			r.Start = maxKey(r.Start, prefixEnd(enc))
		case "<":
			r.End = minKey(r.End, enc)
		case "<=":
			r.End = minKey(r.End, prefixEnd(enc))
		}
	}
	return r, nil
}

// prefixEnd returns the least key greater than every key starting with p
// (nil when there is none).
func prefixEnd(p []byte) []byte {
	e := bytes.Clone(p)
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] != 0xff {
			e[i]++
			return e[:i+1]
		}
	}
	return nil
}

func maxKey(a, b []byte) []byte {
	if a == nil || bytes.Compare(b, a) > 0 {
		return b
	}
	return a
}

// minKey treats nil as +infinity.
func minKey(a, b []byte) []byte {
	if a == nil {
		return b
	}
	if b == nil || bytes.Compare(a, b) < 0 {
		return a
	}
	return b
}

// empty reports whether the range holds no key.
func (r KeyRange) empty() bool {
	return r.End != nil && r.Start != nil && bytes.Compare(r.Start, r.End) >= 0
}
