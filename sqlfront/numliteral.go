package sqlfront

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Numeric literal tokens follow the followed server's major.
//
// sidecar parses with pg_query, whose grammar is PostgreSQL 17's: it reads
// 0x1F, 0o17, 0b101 as integers and allows underscores between digits
// (1_000, 1_000.5), which PostgreSQL 16 introduced. Before 16 the same
// text means something else:
//
//   - PostgreSQL 15 rejects a number followed by identifier characters:
//     42601 "trailing junk after numeric literal at or near "0x1F"".
//   - PostgreSQL 14 and older split it: `SELECT 0x1F` is `SELECT 0 AS x1F`,
//     `SELECT 123abc` is `SELECT 123 AS abc`. sidecar does not reproduce
//     that reading and refuses with 0A000 (also where pg_query itself
//     reports trailing junk, which 14 would have split).
//
// Answering 31 where the followed server answers 0 or an error would be a
// different answer (issue 21).

// trailingJunkMsg is the lexer's message, the same in PostgreSQL 15 and in
// pg_query's 17.
const trailingJunkMsg = "trailing junk after numeric literal"

// checkNumericLiterals returns the error the followed major gives for a
// numeric literal of text (already parsed by pg_query without error) that
// only PostgreSQL 16 and later read as a number; nil when there is none or
// the major is 16 or later (or unknown: the newest is assumed, as for the
// engine's input functions).
func checkNumericLiterals(text string, versionNum int) error {
	if versionNum == 0 || versionNum >= 160000 || !mayHaveNewNumeric(text) {
		return nil
	}
	sr, err := pg.Scan(text)
	if err != nil {
		return nil // the parser accepted it: nothing more to say
	}
	for _, tok := range sr.Tokens {
		if tok.Token != pg.Token_ICONST && tok.Token != pg.Token_FCONST {
			continue
		}
		lit := text[tok.Start:tok.End]
		if !newNumericForm(lit) {
			continue
		}
		start := int(tok.Start)
		junk := junkBefore16(text[start:])
		if versionNum >= 150000 {
			return errf(codeSyntax, start, "%s at or near \"%s\"", trailingJunkMsg, junk)
		}
		return errf(codeUnsupported, start, "the numeric literal %s: PostgreSQL %d reads it as a number followed by a name (\"%s\" is not one token before PostgreSQL 16); not supported", lit, versionNum/10000, junk)
	}
	return nil
}

// junkParseError turns pg_query's "trailing junk" syntax error into
// PostgreSQL 14's case: there the lexer split the token instead of
// failing, which sidecar does not reproduce (0A000). Other errors and
// other majors are returned as they are.
func junkParseError(err error, versionNum int) error {
	e, ok := err.(*Error)
	if !ok || versionNum == 0 || versionNum >= 150000 || !strings.HasPrefix(e.Msg, trailingJunkMsg) {
		return err
	}
	return errf(codeUnsupported, e.Pos, "%s: PostgreSQL %d reads it as a number followed by a name; not supported", e.Msg, versionNum/10000)
}

// mayHaveNewNumeric is a cheap filter: a digit followed by one of x, o, b
// (either case) or an underscore somewhere in text.
func mayHaveNewNumeric(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			continue
		}
		switch text[i+1] {
		case 'x', 'X', 'o', 'O', 'b', 'B', '_':
			return true
		}
	}
	return false
}

// newNumericForm reports whether a numeric token's text is a form only
// PostgreSQL 16 and later read: a 0x/0o/0b prefix or an underscore.
func newNumericForm(lit string) bool {
	if strings.Contains(lit, "_") {
		return true
	}
	if len(lit) > 1 && lit[0] == '0' {
		switch lit[1] {
		case 'x', 'X', 'o', 'O', 'b', 'B':
			return true
		}
	}
	return false
}

// junkBefore16 is the text PostgreSQL 15's lexer names in its trailing
// junk error for s, which starts with a numeric token: the longest
// number of its grammar (digits, a fraction, an exponent with digits)
// and the identifier characters right after it.
func junkBefore16(s string) string {
	digits := func(i int) int {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	i := digits(0)
	if i < len(s) && s[i] == '.' && (i+1 >= len(s) || s[i+1] != '.') {
		i = digits(i + 1)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if k := digits(j); k > j {
			i = k
		}
	}
	for i < len(s) && identChar(s[i]) {
		i++
	}
	return s[:i]
}

// identChar is a character that continues an identifier in PostgreSQL's
// lexer: a letter, a digit, an underscore, a dollar sign or any byte of a
// multibyte character.
func identChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// followedVersionNum is server_version_num of the version the session
// advertises (the followed server's); 0 when none is known.
func (s *session) followedVersionNum() int {
	if s == nil || s.srv == nil {
		return 0
	}
	v := s.srv.advertisedVersion()
	if v == unknownServerVersion {
		return 0
	}
	n, _ := strconv.Atoi(versionNum(v))
	return n
}
