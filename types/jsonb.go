package types

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
)

// parseJSONB is jsonb_in followed by jsonb_out: the value is kept as its
// normalized text (keys unique, the last duplicate winning, sorted by
// length then bytes; ", " and ": " separators; numbers as numeric_out
// prints them).
func parseJSONB(s string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", syntaxErr(JSONB, s)
	}
	// Only white space may follow the value: '1f2', 'true, false' and
	// 'trues' are one value and then a token or garbage, not EOF.
	if _, err := dec.Token(); err != io.EOF {
		return "", syntaxErr(JSONB, s)
	}
	if strings.Contains(s, `\u0000`) {
		return "", errorf("22P05", "unsupported Unicode escape sequence")
	}
	var b bytes.Buffer
	if err := writeJSONB(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSONB(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		n, err := parseDecimal(string(x))
		if err != nil {
			return err
		}
		b.WriteString(n.String())
	case string:
		writeJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeJSONB(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			if err := writeJSONB(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

// QuoteJSON is s as a JSON string, escaped as PostgreSQL's escape_json
// does (the json functions print keys and strings with it).
func QuoteJSON(s string) string {
	var b bytes.Buffer
	writeJSONString(&b, s)
	return b.String()
}

// writeJSONString is escape_json.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
