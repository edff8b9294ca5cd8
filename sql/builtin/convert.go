package builtin

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// convert_to(text, name), convert_from(bytea, name) and convert(bytea,
// name, name) as PostgreSQL's pg_convert (mbutils.c) in a UTF8
// database: the source verified in its encoding (pg_verify_mbstr), then
// converted. UTF8, LATIN1 and SQL_ASCII are converted; another encoding
// PostgreSQL knows is refused with 0A000 naming it; a name it does not
// know is 22023 as in PostgreSQL.

// encodingNames are the cleaned names (clean_encoding_name: lower case,
// only letters and digits) of PostgreSQL's pg_encname_tbl, to its
// encodings' names.
var encodingNames = func() map[string]string {
	m := map[string]string{"abc": "WIN1258", "alt": "WIN866", "koi8": "KOI8R", "mskanji": "SJIS", "shiftjis": "SJIS",
		"tcvn": "WIN1258", "tcvn5712": "WIN1258", "unicode": "UTF8", "vscii": "WIN1258", "win": "WIN1251",
		"win932": "SJIS", "win936": "GBK", "win949": "UHC", "win950": "BIG5", "windows932": "SJIS", "windows936": "GBK",
		"windows949": "UHC", "windows950": "BIG5", "iso88591": "LATIN1", "iso88592": "LATIN2", "iso88593": "LATIN3",
		"iso88594": "LATIN4", "iso88599": "LATIN5", "iso885910": "LATIN6", "iso885913": "LATIN7", "iso885914": "LATIN8",
		"iso885915": "LATIN9", "iso885916": "LATIN10", "shiftjis2004": "SHIFT_JIS_2004", "eucjis2004": "EUC_JIS_2004",
		"iso88595": "ISO_8859_5", "iso88596": "ISO_8859_6", "iso88597": "ISO_8859_7", "iso88598": "ISO_8859_8",
		"muleinternal": "MULE_INTERNAL", "sqlascii": "SQL_ASCII"}
	for _, e := range strings.Fields(`BIG5 EUC_CN EUC_JP EUC_KR EUC_TW GB18030 GBK JOHAB KOI8R KOI8U LATIN1 LATIN2 LATIN3
LATIN4 LATIN5 LATIN6 LATIN7 LATIN8 LATIN9 LATIN10 SJIS UHC UTF8 WIN866 WIN874 WIN1250 WIN1251 WIN1252 WIN1253 WIN1254
WIN1255 WIN1256 WIN1257 WIN1258`) {
		m[cleanEncodingName(e)] = e
		if strings.HasPrefix(e, "WIN") {
			m["windows"+e[3:]] = e
		}
	}
	return m
}()

// cleanEncodingName is clean_encoding_name: letters lowered, only
// letters and digits kept.
func cleanEncodingName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// charsetOf is the encoding named name (pg_char_to_encoding); role is
// "source" or "destination" for the error. Encodings sidecar does not
// convert are refused.
func charsetOf(name, role string) (string, error) {
	enc, ok := encodingNames[cleanEncodingName(name)]
	if !ok {
		return "", errorf(CodeInvalidParameter, "invalid %s encoding name \"%s\"", role, name)
	}
	switch enc {
	case "UTF8", "LATIN1", "SQL_ASCII":
		return enc, nil
	}
	return "", unsupported("the encoding %s in convert (UTF8, LATIN1 and SQL_ASCII only)", enc)
}

// badSequence is 22021 for the invalid sequence at b's start in
// encoding enc (report_invalid_encoding: up to the sequence's length).
func badSequence(enc string, b []byte, n int) *Error {
	n = min(max(n, 1), len(b))
	var hex []string
	for _, c := range b[:n] {
		hex = append(hex, fmt.Sprintf("0x%02x", c))
	}
	return errorf(CodeCharNotInRepertoire, "invalid byte sequence for encoding \"%s\": %s", enc, strings.Join(hex, " "))
}

// verifyEncoding is pg_verify_mbstr(enc, b): a NUL byte is invalid in
// every encoding; UTF8 must be well formed.
func verifyEncoding(enc string, b []byte) error {
	for i := 0; i < len(b); {
		if b[i] == 0 {
			return badSequence(enc, b[i:], 1)
		}
		if enc != "UTF8" || b[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return badSequence(enc, b[i:], utf8SeqLen(b[i]))
		}
		i += n
	}
	return nil
}

// utf8SeqLen is pg_utf_mblen: the length the first byte announces.
func utf8SeqLen(c byte) int {
	switch {
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	case c&0xf8 == 0xf0:
		return 4
	}
	return 1
}

// convertEncoding is pg_convert(b, from, to) for a verified b.
func convertEncoding(b []byte, from, to string) ([]byte, error) {
	if from == to || from == "SQL_ASCII" || to == "SQL_ASCII" {
		return b, nil
	}
	if from == "LATIN1" { // to UTF8: iso8859_1_to_utf8
		out := make([]byte, 0, len(b)+len(b)/2)
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return out, nil
	}
	// UTF8 to LATIN1 (utf8_to_iso8859_1): code points above 0xff have no
	// equivalent.
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r > 0xff {
			var hex []string
			for _, c := range b[i : i+n] {
				hex = append(hex, fmt.Sprintf("0x%02x", c))
			}
			return nil, errorf("22P05", "character with byte sequence %s in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\"", strings.Join(hex, " "))
		}
		out = append(out, byte(r))
		i += n
	}
	return out, nil
}

// pgConvert is pg_convert: b verified in from and converted to to.
func pgConvert(b []byte, fromName, toName string) ([]byte, error) {
	from, err := charsetOf(fromName, "source")
	if err != nil {
		return nil, err
	}
	to, err := charsetOf(toName, "destination")
	if err != nil {
		return nil, err
	}
	if err := verifyEncoding(from, b); err != nil {
		return nil, err
	}
	return convertEncoding(b, from, to)
}

func (r *Registry) addConvert() {
	r.def("convert_to", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return pgConvert([]byte(a[0].(string)), "UTF8", a[1].(string))
	}, tx, types.Name).stable() // pg_proc: stable (the server encoding)
	r.def("convert_from", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		out, err := pgConvert(byt(a[0]), a[1].(string), "UTF8")
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(out) {
			// From SQL_ASCII PostgreSQL returns the bytes unverified: text
			// that is not UTF8 sidecar cannot hold.
			return nil, unsupported("convert_from of bytes that are not UTF8 from SQL_ASCII")
		}
		return string(out), nil
	}, bya, types.Name).stable()
	r.def("convert", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return pgConvert(byt(a[0]), a[1].(string), a[2].(string))
	}, bya, types.Name, types.Name).stable()
}
