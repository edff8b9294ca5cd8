package builtin

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

var errUnterminatedFormat = &Error{Code: CodeInvalidParameter, Message: "unterminated format() type specifier", Hint: `For a single "%" use "%%".`}

// formatImpl is PostgreSQL's format(): %[n$][-][width|*|*n$](s|I|L) and
// %%, NULL format string giving NULL.
func formatImpl(_ *Context, a []types.Value, p []OID) (types.Value, error) {
	if a[0] == nil {
		return nil, nil
	}
	f := str(a[0])
	var b strings.Builder
	arg := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return nil, errUnterminatedFormat
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		spec, next, err := parseFormatSpec(f, i)
		if err != nil {
			return nil, err
		}
		i = next
		c := f[i]
		if c != 's' && c != 'I' && c != 'L' {
			_, n := utf8.DecodeRuneInString(f[i:])
			return nil, &Error{Code: CodeInvalidParameter, Message: `unrecognized format() type specifier "` + f[i:i+n] + `"`, Hint: `For a single "%" use "%%".`}
		}
		width := spec.width
		if spec.widthPos >= 0 {
			if spec.widthPos > 0 {
				arg = spec.widthPos
			}
			if arg >= len(a) {
				return nil, errorf(CodeInvalidParameter, "too few arguments for format()")
			}
			w, err := formatWidth(a[arg], p[arg])
			if err != nil {
				return nil, err
			}
			width = w
			arg++
		}
		if spec.argPos > 0 {
			arg = spec.argPos
		}
		if arg >= len(a) {
			return nil, errorf(CodeInvalidParameter, "too few arguments for format()")
		}
		v, t := a[arg], p[arg]
		arg++
		var s string
		switch {
		case v == nil && c == 's':
			s = ""
		case v == nil && c == 'L':
			s = "NULL"
		case v == nil:
			return nil, errorf(CodeNullNotAllowed, "null values cannot be formatted as an SQL identifier")
		default:
			s = outText(v, t)
			switch c {
			case 'I':
				s = quoteIdent(s)
			case 'L':
				s = quoteLiteral(s)
			}
		}
		if err := appendWidth(&b, s, width, spec.minus); err != nil {
			return nil, err
		}
		if b.Len() > maxResultBytes {
			return nil, allocLimit(int64(b.Len()))
		}
	}
	return b.String(), nil
}

type formatSpec struct {
	argPos, widthPos int // -1: none; widthPos 0: the next argument
	minus            bool
	width            int64
}

// parseFormatSpec is text_format_parse_format from f[i] (after %): the
// spec and the index of the conversion character.
func parseFormatSpec(f string, i int) (formatSpec, int, error) {
	sp := formatSpec{argPos: -1, widthPos: -1}
	n, found, i, err := formatDigits(f, i)
	if err != nil {
		return sp, i, err
	}
	if found {
		if f[i] != '$' {
			sp.width = n
			return sp, i, nil
		}
		if n == 0 {
			return sp, i, errorf(CodeInvalidParameter, "format specifies argument 0, but arguments are numbered from 1")
		}
		sp.argPos = int(n)
		if i++; i >= len(f) {
			return sp, i, errUnterminatedFormat
		}
	}
	for f[i] == '-' {
		sp.minus = true
		if i++; i >= len(f) {
			return sp, i, errUnterminatedFormat
		}
	}
	if f[i] == '*' {
		if i++; i >= len(f) {
			return sp, i, errUnterminatedFormat
		}
		n, found, i, err = formatDigits(f, i)
		if err != nil {
			return sp, i, err
		}
		if found {
			if f[i] != '$' {
				return sp, i, errorf(CodeInvalidParameter, `width argument position must be ended by "$"`)
			}
			if n == 0 {
				return sp, i, errorf(CodeInvalidParameter, "format specifies argument 0, but arguments are numbered from 1")
			}
			sp.widthPos = int(n)
			if i++; i >= len(f) {
				return sp, i, errUnterminatedFormat
			}
		} else {
			sp.widthPos = 0
		}
	} else {
		n, found, i, err = formatDigits(f, i)
		if err != nil {
			return sp, i, err
		}
		if found {
			sp.width = n
		}
	}
	return sp, i, nil
}

// formatDigits is text_format_parse_digits: an int32 at f[i:].
func formatDigits(f string, i int) (int64, bool, int, error) {
	var n int64
	found := false
	for f[i] >= '0' && f[i] <= '9' {
		n = n*10 + int64(f[i]-'0')
		if n > 1<<31-1 {
			return 0, false, i, errorf(CodeOutOfRange, "number is out of range")
		}
		found = true
		if i++; i >= len(f) {
			return 0, false, i, errUnterminatedFormat
		}
	}
	return n, found, i, nil
}

// formatWidth is a width argument's value: int2/int4 as they are, other
// types through their output text read as int4; NULL is 0.
func formatWidth(v types.Value, t OID) (int64, error) {
	switch {
	case v == nil:
		return 0, nil
	case t == types.Int4 || t == types.Int2:
		return v.(int64), nil
	}
	w, err := types.In(types.Int4, -1, outText(v, t))
	if err != nil {
		return 0, err
	}
	return w.(int64), nil
}

// appendWidth is text_format_append_string: s padded to width characters
// (negative width or the - flag: left-aligned).
func appendWidth(b *strings.Builder, s string, width int64, minus bool) error {
	if width == 0 {
		b.WriteString(s)
		return nil
	}
	left := minus
	if width < 0 {
		if width <= -1<<31 {
			return errorf(CodeProgramLimit, "number is out of range")
		}
		left, width = true, -width
	}
	n := int64(utf8.RuneCountInString(s))
	if width > n {
		if err := allocLimit(int64(b.Len()) + width); err != nil {
			return err
		}
	}
	if !left && n < width {
		b.WriteString(strings.Repeat(" ", int(width-n)))
	}
	b.WriteString(s)
	if left && n < width {
		b.WriteString(strings.Repeat(" ", int(width-n)))
	}
	return nil
}
