package sqlfront

import (
	"fmt"
	"strings"
)

// String-literal settings. The parser (libpg_query) always lexes as
// PostgreSQL does with standard_conforming_strings = on and
// backslash_quote = safe_encoding. When a session sets them otherwise,
// conformStrings rewrites the statement text before it is parsed so that
// it means what PostgreSQL's lexer would make of it:
//
//   - standard_conforming_strings = off: a '…' (or N'…') literal treats
//     backslashes as escapes, as E'…' does; the rewrite puts an E before
//     each such literal that holds a backslash (without one both readings
//     agree, and the text is left alone so error positions stay put).
//     U&'…' is refused with 0A000, as PostgreSQL refuses it.
//   - backslash_quote = off: \' inside an escape string is refused with
//     22P06, as PostgreSQL refuses it.
//
// escape_string_warning only adds a WARNING in PostgreSQL; sidecar keeps
// the setting and sends no warning.

// literalSettings are the session's settings conformStrings honours.
type literalSettings struct {
	nonStandard  bool // standard_conforming_strings = off
	noBackslashQ bool // backslash_quote = off
	// quotedNames: the followed major quotes a setting's name in its
	// messages (17+, or unknown: the newest).
	quotedNames bool
}

// cachePrefix sets apart the plan-cache keys of statements read under
// non-default settings: the plan cache is shared by every session, and
// the same text is another statement under them.
func (ls literalSettings) cachePrefix() string {
	return fmt.Sprintf("\x00literals %t %t\x00", ls.nonStandard, ls.noBackslashQ)
}

// literalSettings reads them from the session's settings.
func (s *session) literalSettings() literalSettings {
	v := s.followedVersionNum()
	return literalSettings{
		nonStandard:  s.settings["standard_conforming_strings"] == "off",
		noBackslashQ: s.settings["backslash_quote"] == "off",
		quotedNames:  v == 0 || v >= 170000,
	}
}

// conformStrings rewrites query for ls (see above); with the defaults it
// returns query unchanged.
func conformStrings(query string, ls literalSettings) (string, error) {
	if !ls.nonStandard && !ls.noBackslashQ || !strings.ContainsAny(query, `\&`) {
		return query, nil
	}
	var out strings.Builder
	last := 0 // query[last:] not yet copied to out
	n := len(query)
	for i := 0; i < n; {
		c := query[i]
		switch {
		case c == '-' && i+1 < n && query[i+1] == '-':
			for i < n && query[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && query[i+1] == '*':
			i = skipBlockComment(query, i)
		case c == '"':
			i = skipQuoted(query, i, '"')
		case c == '$' && dollarTag(query, i) != "":
			tag := dollarTag(query, i)
			end := strings.Index(query[i+len(tag):], tag)
			if end < 0 {
				return query, nil // unterminated: the parser reports it
			}
			i += len(tag) + end + len(tag)
		case c == '\'':
			// A plain literal (the prefix letters are handled with words).
			end, hasBS, err := scanLiteral(query, i, ls.nonStandard, ls.noBackslashQ)
			if err != nil {
				return "", err
			}
			if ls.nonStandard && hasBS {
				out.WriteString(query[last:i])
				out.WriteByte('E')
				last = i
			}
			i = end
		case isIdentStart(c):
			j := i
			for j < n && isIdentChar(query[j]) {
				j++
			}
			word := strings.ToLower(query[i:j])
			switch {
			case j < n && query[j] == '\'' && (word == "e"):
				end, _, err := scanLiteral(query, j, true, ls.noBackslashQ)
				if err != nil {
					return "", err
				}
				j = end
			case j < n && query[j] == '\'' && (word == "b" || word == "x"):
				j = skipQuoted(query, j, '\'')
			case j < n && query[j] == '\'' && word == "n":
				end, hasBS, err := scanLiteral(query, j, ls.nonStandard, ls.noBackslashQ)
				if err != nil {
					return "", err
				}
				if ls.nonStandard && hasBS {
					return "", errf(codeUnsupported, i, "N'…' literals holding a backslash with standard_conforming_strings = off are not supported by sidecar's SQL front end").
						hint("write E'…' for a string with backslash escapes")
				}
				j = end
			case word == "u" && j+1 < n && query[j] == '&' && query[j+1] == '\'':
				if ls.nonStandard {
					e := errf(codeUnsupported, i, "unsafe use of string constant with Unicode escapes")
					e.Detail = "String constants with Unicode escapes cannot be used when standard_conforming_strings is off."
					if ls.quotedNames {
						e.Detail = `String constants with Unicode escapes cannot be used when "standard_conforming_strings" is off.`
					}
					return "", e
				}
				j = skipQuoted(query, j+1, '\'')
			case word == "u" && j+1 < n && query[j] == '&' && query[j+1] == '"':
				j = skipQuoted(query, j+1, '"')
			}
			i = j
		default:
			i++
		}
	}
	if last == 0 {
		return query, nil
	}
	out.WriteString(query[last:])
	return out.String(), nil
}

// scanLiteral scans the '…' literal starting at query[i] and returns the
// offset just past it, whether it holds a backslash, and 22P06 when
// noBQ refuses a \'. With escapes, a backslash escapes the next byte (as
// PostgreSQL's xe state); ” is a quote either way. Continuation
// segments ('a' <newline> 'b') are scanned as part
// of the same literal, in the same mode, as PostgreSQL's lexer keeps
// the mode.
func scanLiteral(query string, i int, escapes, noBQ bool) (int, bool, error) {
	n := len(query)
	hasBS := false
	for j := i + 1; j < n; j++ {
		switch query[j] {
		case '\\':
			hasBS = true
			if escapes {
				if j+1 < n && query[j+1] == '\'' && noBQ {
					e := errf("22P06", j, "unsafe use of \\' in a string literal")
					e.Hint = "Use '' to write quotes in strings. \\' is insecure in client-only encodings."
					return 0, false, e
				}
				j++
			}
		case '\'':
			if j+1 < n && query[j+1] == '\'' {
				j++
				continue
			}
			if k := continuation(query, j+1); k > 0 {
				j = k // 'a' <newline> 'b': one literal, same mode
				continue
			}
			return j + 1, hasBS, nil
		}
	}
	return n, hasBS, nil // unterminated: the parser reports it
}

// continuation returns the offset of the opening quote of a
// continuation segment after a literal ending at query[i] (white space
// holding a newline, then a quote), or 0.
func continuation(query string, i int) int {
	nl := false
	for ; i < len(query); i++ {
		switch query[i] {
		case ' ', '\t', '\f', '\r':
		case '\n':
			nl = true
		case '\'':
			if nl {
				return i
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// skipQuoted returns the offset past the q-quoted token at query[i]
// (a doubled q stands for itself).
func skipQuoted(query string, i int, q byte) int {
	for j := i + 1; j < len(query); j++ {
		if query[j] == q {
			if j+1 < len(query) && query[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(query)
}

// skipBlockComment returns the offset past the (nested) /* … */ comment
// at query[i].
func skipBlockComment(query string, i int) int {
	depth := 0
	for j := i; j+1 < len(query); j++ {
		switch {
		case query[j] == '/' && query[j+1] == '*':
			depth++
			j++
		case query[j] == '*' && query[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(query)
}

// dollarTag returns the $tag$ opening a dollar-quoted string at
// query[i], or "" ($1 is a parameter, not a quote).
func dollarTag(query string, i int) string {
	j := i + 1
	if j < len(query) && query[j] >= '0' && query[j] <= '9' {
		return ""
	}
	for j < len(query) && query[j] != '$' {
		if !isIdentChar(query[j]) {
			return ""
		}
		j++
	}
	if j >= len(query) {
		return ""
	}
	return query[i : j+1]
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// literalDefaults are the string-literal settings' values at session
// start and after RESET (PostgreSQL's defaults).
var literalDefaults = map[string]string{"standard_conforming_strings": "on", "escape_string_warning": "on", "backslash_quote": "safe_encoding"}

// setLiteralSetting applies SET name = val (nil: RESET) for the three
// string-literal settings, checking the value as PostgreSQL does and
// storing it as SHOW prints it.
func (s *session) setLiteralSetting(name string, val *string) error {
	if val == nil {
		s.settings[name] = literalDefaults[name]
		return nil
	}
	v := strings.ToLower(strings.TrimSpace(*val))
	if name == "backslash_quote" {
		switch v {
		case "safe_encoding", "on", "off":
		case "true", "yes", "1":
			v = "on"
		case "false", "no", "0":
			v = "off"
		default:
			return errf(codeInvalidParam, -1, "invalid value for parameter \"%s\": \"%s\"", name, *val).hint("Available values: safe_encoding, on, off.")
		}
		s.settings[name] = v
		return nil
	}
	b, err := parseAs(oidBool, v)
	if err != nil {
		return errf(codeInvalidParam, -1, "parameter \"%s\" requires a Boolean value", name)
	}
	if b == true {
		s.settings[name] = "on"
	} else {
		s.settings[name] = "off"
	}
	return nil
}
