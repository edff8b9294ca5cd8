package builtin

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// to_date(text, text) and to_timestamp(text, text): formatting.c's
// parse_format, DCH_from_char and do_to_timestamp in their non-standard
// (non-jsonpath) mode, ported field by field: the format's keywords
// (with FM/TH/th and FX), separators, spaces, quoted and backslashed
// text, the loose skipping of spaces and separators outside FX, the
// fixed-width and strtol readings of numbers, the name searches
// (months, days, AM/PM, AD/BC, Roman months), the year, century, week,
// day-of-year and Julian-day arithmetic, and PostgreSQL's 22007, 22008
// and 22009 errors with its messages.
//
// Refused (0A000), never read differently: the TM prefix (localized
// names) on month and day names, the SP suffix, TZ/tz/OF (read only from PostgreSQL 17, an
// error before), and values so large that PostgreSQL's 32-bit
// arithmetic would overflow (its checks differ by major).

// dchNodeKind is a FormatNode's type.
type dchNodeKind uint8

const (
	dchAction dchNodeKind = iota
	dchChar
	dchSeparator
	dchSpace
)

// dchDateMode is FromCharDateMode: Gregorian or ISO week dates.
type dchDateMode uint8

const (
	dchModeNone dchDateMode = iota
	dchModeGregorian
	dchModeISO
)

// dchFromKey is a DCH_keywords entry as DCH_from_char reads it: its
// name (as written, for messages), its action (the upper-case keyword
// it shares with its other spellings), whether its input is digits
// (is_next_separator) and its date convention.
type dchFromKey struct {
	name  string
	id    string
	digit bool
	mode  dchDateMode
}

// dchFromKeys are DCH_keywords in formatting.c's order: the first entry
// (among those with the same first character) prefixing the format is
// the keyword there.
var dchFromKeys = func() []dchFromKey {
	const (
		n = dchModeNone
		g = dchModeGregorian
		i = dchModeISO
	)
	type k = dchFromKey
	upper := []k{{"A.D.", "A.D.", false, n}, {"A.M.", "A.M.", false, n}, {"AD", "AD", false, n}, {"AM", "AM", false, n},
		{"B.C.", "A.D.", false, n}, {"BC", "AD", false, n}, {"CC", "CC", true, n}, {"DAY", "DAY", false, n},
		{"DDD", "DDD", true, g}, {"DD", "DD", true, g}, {"DY", "DY", false, n}, {"Day", "DAY", false, n}, {"Dy", "DY", false, n},
		{"D", "D", true, g}, {"FF1", "FF1", true, n}, {"FF2", "FF2", true, n}, {"FF3", "FF3", true, n}, {"FF4", "FF4", true, n},
		{"FF5", "FF5", true, n}, {"FF6", "FF6", true, n}, {"FX", "FX", false, n}, {"HH24", "HH24", true, n},
		{"HH12", "HH", true, n}, {"HH", "HH", true, n}, {"IDDD", "IDDD", true, i}, {"ID", "ID", true, i}, {"IW", "WW", true, i},
		{"IYYY", "YYYY", true, i}, {"IYY", "YYY", true, i}, {"IY", "YY", true, i}, {"I", "Y", true, i}, {"J", "J", true, n},
		{"MI", "MI", true, n}, {"MM", "MM", true, g}, {"MONTH", "MONTH", false, g}, {"MON", "MON", false, g}, {"MS", "MS", true, n},
		{"Month", "MONTH", false, g}, {"Mon", "MON", false, g}, {"OF", "OF", false, n}, {"P.M.", "A.M.", false, n},
		{"PM", "AM", false, n}, {"Q", "Q", true, n}, {"RM", "RM", false, g}, {"SSSSS", "SSSS", true, n},
		{"SSSS", "SSSS", true, n}, {"SS", "SS", true, n}, {"TZH", "TZH", false, n}, {"TZM", "TZM", true, n},
		{"TZ", "TZ", false, n}, {"US", "US", true, n}, {"WW", "WW", true, g}, {"W", "W", true, g},
		{"Y,YYY", "Y,YYY", true, g}, {"YYYY", "YYYY", true, g}, {"YYY", "YYY", true, g}, {"YY", "YY", true, g}, {"Y", "Y", true, g}}
	lower := []string{"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d", "ff1", "ff2", "ff3", "ff4",
		"ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon",
		"ms", "of", "p.m.", "pm", "q", "rm", "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy",
		"yy", "y"}
	out := upper
	for _, name := range lower {
		for _, u := range upper {
			if strings.ToLower(u.name) == name && u.name == strings.ToUpper(u.name) {
				out = append(out, k{name, u.id, u.digit, u.mode})
				break
			}
		}
	}
	return out
}()

// dchFromKeyword is index_seq_search: the keyword format f starts with
// (nil: none). Only printable ASCII starts one.
func dchFromKeyword(f string) *dchFromKey {
	if f[0] <= ' ' || f[0] >= '~' {
		return nil
	}
	for i := range dchFromKeys {
		k := &dchFromKeys[i]
		if k.name[0] == f[0] && strings.HasPrefix(f, k.name) {
			return k
		}
	}
	return nil
}

// dchNode is a FormatNode: a keyword with its suffixes, or one
// character of text, separator or space.
type dchNode struct {
	kind   dchNodeKind
	key    *dchFromKey
	fm, th bool
	char   string
}

// isSeparatorChar is is_separator_char: printable ASCII other than a
// letter or digit.
func isSeparatorChar(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c > 0x20 && c < 0x7f && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9')
}

// cIsSpace is isspace in the C locale.
func cIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// charLen is pg_mblen of s's first character (UTF-8; an invalid byte
// counts one).
func charLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return 1
	}
	return n
}

// parseDCHFormat is parse_format for DCH_FLAG (not the standard mode).
func parseDCHFormat(f string) ([]dchNode, error) {
	var out []dchNode
	for f != "" {
		var n dchNode
		tm := false
		switch {
		case strings.HasPrefix(f, "FM"), strings.HasPrefix(f, "fm"):
			n.fm = true
			f = f[2:]
		case strings.HasPrefix(f, "TM"), strings.HasPrefix(f, "tm"):
			tm = true // localized names; numbers read the same
			f = f[2:]
		}
		if f == "" {
			break
		}
		if k := dchFromKeyword(f); k != nil {
			if tm && (k.id == "MONTH" || k.id == "MON" || k.id == "DAY" || k.id == "DY") {
				return nil, unsupported("to_date/to_timestamp with the TM (localized names) prefix on %s", k.name)
			}
			n.kind, n.key = dchAction, k
			f = f[len(k.name):]
			switch {
			case strings.HasPrefix(f, "TH"), strings.HasPrefix(f, "th"):
				n.th = true
				f = f[2:]
			case strings.HasPrefix(f, "SP"):
				return nil, unsupported("to_date/to_timestamp with the SP suffix")
			}
			out = append(out, n)
			continue
		}
		if f[0] == '"' {
			f = f[1:]
			for f != "" {
				if f[0] == '"' {
					f = f[1:]
					break
				}
				if f[0] == '\\' && len(f) > 1 {
					f = f[1:]
				}
				l := charLen(f)
				out = append(out, dchNode{kind: dchChar, char: f[:l]})
				f = f[l:]
			}
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			f = f[1:]
		}
		l := charLen(f)
		kind := dchChar
		if isSeparatorChar(f) {
			kind = dchSeparator
		} else if cIsSpace(f[0]) {
			kind = dchSpace
		}
		out = append(out, dchNode{kind: kind, char: f[:l]})
		f = f[l:]
	}
	return out, nil
}

// tmFromChar is TmFromChar: the fields the input set (0: not set).
type tmFromChar struct {
	mode                                     dchDateMode
	hh, pm, mi, ss, ssss, d, dd, ddd, mm, ms int64
	year, bc, ww, w, cc, j, us, yysz, ff     int64
	clock12                                  bool
	tzsign, tzh, tzm                         int64
}

// intField is the TmFromChar field a numeric keyword sets by its own
// width (from_char_parse_int).
func (t *tmFromChar) intField(id string) *int64 {
	switch id {
	case "MI":
		return &t.mi
	case "SS":
		return &t.ss
	case "SSSS":
		return &t.ssss
	case "MM":
		return &t.mm
	case "DDD":
		return &t.ddd
	case "DD":
		return &t.dd
	case "D":
		return &t.d
	case "CC":
		return &t.cc
	case "W":
		return &t.w
	case "J":
		return &t.j
	}
	return nil
}

// fromCharErr is one of DCH_from_char's errors with its detail and hint.
func fromCharErr(code, detail, hint, format string, args ...any) *Error {
	e := errorf(code, format, args...)
	e.Detail, e.Hint = detail, hint
	return e
}

// fromCharState walks the input as DCH_from_char does.
type fromCharState struct {
	reg   *Registry // its major: messages that differ by major
	nodes []dchNode
	in    string // the whole input
	pos   int    // where the walk is in it
	out   tmFromChar
}

func (st *fromCharState) rest() string { return st.in[st.pos:] }

// setInt is from_char_set_int.
func (st *fromCharState) setInt(dest *int64, v int64, n *dchNode) error {
	if *dest != 0 && *dest != v {
		return fromCharErr(CodeInvalidDatetime, "This value contradicts a previous setting for the same field type.", "",
			"conflicting values for \"%s\" field in formatting string", n.key.name)
	}
	*dest = v
	return nil
}

// isNextSeparator is is_next_separator for node i.
func (st *fromCharState) isNextSeparator(i int) bool {
	if st.nodes[i].kind == dchAction && st.nodes[i].th {
		return true
	}
	if i+1 >= len(st.nodes) {
		return true
	}
	nx := st.nodes[i+1]
	if nx.kind == dchAction {
		return !nx.key.digit
	}
	return !(len(nx.char) == 1 && nx.char[0] >= '0' && nx.char[0] <= '9')
}

// strtol is C's strtol(s, &end, 10) with a 64-bit long: the value, the
// bytes read (0: no conversion) and whether it overflowed (ERANGE).
func strtol(s string) (v int64, n int, erange bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var u uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			erange = true
		} else {
			u = u*10 + d
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if erange || u > limit {
		return 0, i, true
	}
	if neg {
		return -int64(u), i, false
	}
	return int64(u), i, false
}

// parseIntLen is from_char_parse_int_len: the characters consumed
// (leading spaces included). dest nil: the value is discarded (Q).
func (st *fromCharState) parseIntLen(dest *int64, width, i int) (int, error) {
	n := &st.nodes[i]
	init := st.pos
	for st.pos < len(st.in) && cIsSpace(st.in[st.pos]) {
		st.pos++
	}
	src := st.rest()
	cp := src
	if len(cp) > width {
		cp = cp[:width]
	}
	var result int64
	var erange bool
	if n.fm || st.isNextSeparator(i) {
		v, used, er := strtol(st.in[init:])
		result, erange = v, er
		st.pos = init + used
	} else {
		if len(src) < width {
			return -1, fromCharErr(CodeInvalidDatetime, "Field requires "+itoa(width)+" characters, but only "+itoa(len(src))+" remain.",
				"If your source string is not fixed-width, try using the \"FM\" modifier.",
				"source string too short for \"%s\" formatting field", n.key.name)
		}
		v, used, er := strtol(cp)
		if used > 0 && used < width {
			return -1, fromCharErr(CodeInvalidDatetime, "Field requires "+itoa(width)+" characters, but only "+itoa(used)+" could be parsed.",
				"If your source string is not fixed-width, try using the \"FM\" modifier.",
				"invalid value \"%s\" for \"%s\"", cp, n.key.name)
		}
		result, erange = v, er
		st.pos += used
	}
	if st.pos == init {
		return -1, fromCharErr(CodeInvalidDatetime, "Value must be an integer.", "", "invalid value \"%s\" for \"%s\"", cp, n.key.name)
	}
	if erange || result < math.MinInt32 || result > math.MaxInt32 {
		return -1, fromCharErr(CodeDatetimeOverflow, "Value must be in the range -2147483648 to 2147483647.", "",
			"value for \"%s\" in source string is out of range", n.key.name)
	}
	if dest != nil {
		if err := st.setInt(dest, result, n); err != nil {
			return -1, err
		}
	}
	return st.pos - init, nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

var (
	monthsAbbrev   = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	daysAbbrev     = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	ampmShort      = []string{"am", "pm", "AM", "PM"}
	ampmLong       = []string{"a.m.", "p.m.", "A.M.", "P.M."}
	adbcShort      = []string{"ad", "bc", "AD", "BC"}
	adbcLong       = []string{"a.d.", "b.c.", "A.D.", "B.C."}
	romanMonthsRev = []string{"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"}
)

// seqSearch is from_char_seq_search over ASCII names (seq_search_ascii:
// the first entry the input starts with, ASCII case ignored).
func (st *fromCharState) seqSearch(names []string, i int) (int64, error) {
	s := st.rest()
	for idx, name := range names {
		if len(s) >= len(name) && asciiEqualFold(s[:len(name)], name) {
			st.pos += len(name)
			return int64(idx), nil
		}
	}
	cp := s
	if k := strings.IndexAny(cp, " \t\n\r\f"); k >= 0 { // scanner_isspace
		cp = cp[:k]
	}
	return 0, fromCharErr(CodeInvalidDatetime, "The given value did not match any of the allowed values for this field.", "",
		"invalid value \"%s\" for \"%s\"", cp, st.nodes[i].key.name)
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// skipTH is SKIP_THth: two characters, as far as there are.
func (st *fromCharState) skipTH(n *dchNode) {
	if !n.th {
		return
	}
	for range 2 {
		if st.pos < len(st.in) {
			st.pos += charLen(st.rest())
		}
	}
}

// adjustPartialYear is adjust_partial_year_to_2020.
func adjustPartialYear(y int64) int64 {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}

// fromCharRun is DCH_from_char.
func (st *fromCharState) run() error {
	fx := false
	extraSkip := 0
	out := &st.out
	for i := 0; i < len(st.nodes) && st.pos < len(st.in); i++ {
		n := &st.nodes[i]
		if !fx && (n.kind != dchAction || n.key.id != "FX") && (n.kind == dchAction || i == 0) {
			for st.pos < len(st.in) && cIsSpace(st.in[st.pos]) {
				st.pos++
				extraSkip++
			}
		}
		switch n.kind {
		case dchSpace, dchSeparator:
			if !fx {
				extraSkip--
				if st.pos < len(st.in) && (cIsSpace(st.in[st.pos]) || isSeparatorChar(st.rest())) {
					st.pos++
					extraSkip++
				}
			} else if st.pos < len(st.in) {
				st.pos += charLen(st.rest())
			}
			continue
		case dchChar:
			if !fx && extraSkip > 0 {
				extraSkip--
			} else if st.pos < len(st.in) {
				st.pos += charLen(st.rest())
			}
			continue
		}
		if n.key.mode != dchModeNone {
			if out.mode == dchModeNone {
				out.mode = n.key.mode
			} else if out.mode != n.key.mode {
				return fromCharErr(CodeInvalidDatetime, "", "Do not mix Gregorian and ISO week date conventions in a formatting template.",
					"invalid combination of date conventions")
			}
		}
		var err error
		var v int64
		l := 0
		switch n.key.id {
		case "FX":
			fx = true
		case "A.M.", "AM":
			names := ampmShort
			if n.key.id == "A.M." {
				names = ampmLong
			}
			if v, err = st.seqSearch(names, i); err == nil {
				err = st.setInt(&out.pm, v%2, n)
			}
			out.clock12 = true
		case "HH", "HH24":
			_, err = st.parseIntLen(&out.hh, 2, i)
			if n.key.id == "HH" {
				out.clock12 = true
			}
			st.skipTH(n)
		case "MI", "SS", "SSSS", "MM", "DDD", "DD", "D", "CC", "W", "J":
			_, err = st.parseIntLen(out.intField(n.key.id), len(n.key.name), i)
			st.skipTH(n)
		case "Q":
			_, err = st.parseIntLen(nil, 1, i)
			st.skipTH(n)
		case "WW":
			_, err = st.parseIntLen(&out.ww, 2, i)
			st.skipTH(n)
		case "MS":
			if l, err = st.parseIntLen(&out.ms, 3, i); err == nil {
				out.ms *= usScale(l + 3) // 1 digit: hundreds of ms, 2: tens
			}
			st.skipTH(n)
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "US":
			width := 6
			if n.key.id != "US" {
				out.ff = int64(n.key.id[2] - '0')
				width = int(out.ff)
			}
			if l, err = st.parseIntLen(&out.us, width, i); err == nil {
				out.us *= usScale(l)
			}
			st.skipTH(n)
		case "TZ", "OF":
			return unsupported("to_date/to_timestamp with the %s field (read from PostgreSQL 17, an error before)", n.key.name)
		case "TZH":
			st.tzSign(extraSkip)
			_, err = st.parseIntLen(&out.tzh, 2, i)
		case "TZM":
			if out.tzsign == 0 {
				out.tzsign = 1
			}
			_, err = st.parseIntLen(&out.tzm, 2, i)
		case "A.D.", "AD":
			names := adbcShort
			if n.key.id == "A.D." {
				names = adbcLong
			}
			if v, err = st.seqSearch(names, i); err == nil {
				err = st.setInt(&out.bc, v%2, n)
			}
		case "MONTH", "MON":
			names := monthsFull
			if n.key.id == "MON" {
				names = monthsAbbrev
			}
			if v, err = st.seqSearch(names, i); err == nil {
				err = st.setInt(&out.mm, v+1, n)
			}
		case "DAY", "DY":
			names := daysFull
			if n.key.id == "DY" {
				names = daysAbbrev
			}
			if v, err = st.seqSearch(names, i); err == nil {
				err = st.setInt(&out.d, v, n)
				out.d++
			}
		case "IDDD":
			_, err = st.parseIntLen(&out.ddd, 3, i)
			st.skipTH(n)
		case "ID":
			if _, err = st.parseIntLen(&out.d, 1, i); err == nil {
				if out.d++; out.d > 7 {
					out.d = 1
				}
			}
			st.skipTH(n)
		case "Y,YYY":
			err = st.yearComma(i)
		case "YYYY":
			_, err = st.parseIntLen(&out.year, len(n.key.name), i)
			out.yysz = 4
			st.skipTH(n)
		case "YYY", "YY", "Y":
			if l, err = st.parseIntLen(&out.year, len(n.key.name), i); err == nil && l < 4 {
				out.year = adjustPartialYear(out.year)
			}
			out.yysz = int64(len(n.key.name))
			st.skipTH(n)
		case "RM":
			if v, err = st.seqSearch(romanMonthsRev, i); err == nil {
				err = st.setInt(&out.mm, 12-v, n)
			}
		}
		if err != nil {
			return err
		}
		if !fx {
			extraSkip = 0
			for st.pos < len(st.in) && cIsSpace(st.in[st.pos]) {
				st.pos++
				extraSkip++
			}
		}
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// usScale is the US/FFn multiplier for l digits read.
func usScale(l int) int64 {
	switch l {
	case 1:
		return 100000
	case 2:
		return 10000
	case 3:
		return 1000
	case 4:
		return 100
	case 5:
		return 10
	}
	return 1
}

// tzSign reads TZH's sign: an explicit +, - or space, else a minus the
// loose mode skipped as a separator.
func (st *fromCharState) tzSign(extraSkip int) {
	out := &st.out
	if st.pos < len(st.in) && (st.in[st.pos] == '+' || st.in[st.pos] == '-' || st.in[st.pos] == ' ') {
		out.tzsign = 1
		if st.in[st.pos] == '-' {
			out.tzsign = -1
		}
		st.pos++
		return
	}
	out.tzsign = 1
	if extraSkip > 0 && st.pos > 0 && st.in[st.pos-1] == '-' {
		out.tzsign = -1
	}
}

// scanInt is sscanf's %d (width 0: unlimited): spaces, a sign, digits.
func scanInt(s string, width int) (v int64, n int, ok bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	start := i
	limit := len(s)
	if width > 0 && start+width < limit {
		limit = start + width
	}
	neg := false
	if i < limit && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	ds := i
	for i < limit && s[i] >= '0' && s[i] <= '9' {
		if v > math.MaxInt32*10 {
			return 0, 0, false // beyond what the refusal bound below admits
		}
		v = v*10 + int64(s[i]-'0')
		i++
	}
	if i == ds {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// yearComma is DCH_Y_YYY: sscanf("%d,%03d%n").
func (st *fromCharState) yearComma(i int) error {
	n := &st.nodes[i]
	s := st.rest()
	mill, l1, ok := scanInt(s, 0)
	matched := 0
	var years int64
	var l2 int
	if ok {
		matched = 1
		if l1 < len(s) && s[l1] == ',' {
			if years, l2, ok = scanInt(s[l1+1:], 3); ok {
				matched = 2
			}
		}
	}
	if matched < 2 {
		yes, known := st.reg.atLeast(180000)
		switch {
		case !known:
			return unsupported("to_date/to_timestamp of input Y,YYY does not read when the server's major is unknown (its message differs by major)")
		case !yes:
			return errorf(CodeInvalidDatetime, "invalid input string for \"Y,YYY\"")
		}
		return errorf(CodeInvalidDatetime, "invalid value \"%s\" for \"%s\"", s, "Y,YYY")
	}
	if mill < math.MinInt32 || mill > math.MaxInt32 {
		return unsupported("to_date/to_timestamp of a Y,YYY value this large (sscanf's overflow)")
	}
	y := mill*1000 + years
	if y < math.MinInt32 || y > math.MaxInt32 {
		return unsupported("to_date/to_timestamp of a Y,YYY value this large (its overflow check differs by major)")
	}
	if err := st.setInt(&st.out.year, y, n); err != nil {
		return err
	}
	st.out.yysz = 4
	st.pos += l1 + 1 + l2
	st.skipTH(n)
	return nil
}

// fromCharTm is do_to_timestamp's result: the broken-down date and time,
// fractional seconds, the TZH/TZM offset (seconds west, as PostgreSQL
// keeps it) and the FFn precision.
type fromCharTm struct {
	year, mon, mday, hour, min, sec, fsec int64
	hasTZ                                 bool
	gmtoff                                int64
	fprec                                 int64
}

// doToTimestamp is do_to_timestamp for date text s and format f.
func (r *Registry) doToTimestamp(s, f string) (fromCharTm, error) {
	tm := fromCharTm{mon: 1, mday: 1}
	fieldErr := func() error {
		return errorf(CodeDatetimeOverflow, "date/time field value out of range: \"%s\"", s)
	}
	tooLarge := func() error {
		return unsupported("to_date/to_timestamp of field values this large (PostgreSQL's 32-bit overflow checks differ by major)")
	}
	var st fromCharState
	if f != "" {
		nodes, err := parseDCHFormat(f)
		if err != nil {
			return tm, err
		}
		st = fromCharState{reg: r, nodes: nodes, in: s}
		if err := st.run(); err != nil {
			return tm, err
		}
	}
	t := &st.out
	if t.ssss != 0 {
		tm.hour, tm.min, tm.sec = t.ssss/3600, t.ssss%3600/60, t.ssss%60
	}
	if t.ss != 0 {
		tm.sec = t.ss
	}
	if t.mi != 0 {
		tm.min = t.mi
	}
	if t.hh != 0 {
		tm.hour = t.hh
	}
	if t.clock12 {
		if tm.hour < 1 || tm.hour > 12 {
			return tm, fromCharErr(CodeInvalidDatetime, "", "Use the 24-hour clock, or give an hour between 1 and 12.",
				"hour \"%d\" is invalid for the 12-hour clock", tm.hour)
		}
		if t.pm != 0 && tm.hour < 12 {
			tm.hour += 12
		} else if t.pm == 0 && tm.hour == 12 {
			tm.hour = 0
		}
	}
	var maskYear, maskMonth, maskDay bool
	if t.cc > 10000000 || t.cc < -10000000 {
		return tm, tooLarge() // PostgreSQL's century arithmetic overflows (checked from 16)
	}
	switch {
	case t.year != 0:
		if t.cc != 0 && t.yysz <= 2 {
			if t.bc != 0 {
				t.cc = -t.cc
			}
			tm.year = t.year % 100
			if tm.year != 0 {
				if t.cc >= 0 {
					tm.year += (t.cc - 1) * 100
				} else {
					tm.year = (t.cc+1)*100 - tm.year + 1
				}
			} else {
				tm.year = t.cc*100 + b2i(t.cc < 0)
			}
		} else {
			tm.year = t.year
			if t.bc != 0 {
				tm.year = -tm.year
			}
			if tm.year < 0 {
				tm.year++
			}
		}
		maskYear = true
	case t.cc != 0:
		if t.bc != 0 {
			t.cc = -t.cc
		}
		if t.cc >= 0 {
			tm.year = (t.cc-1)*100 + 1
		} else {
			tm.year = t.cc*100 + 1
		}
		maskYear = true
	}
	// Beyond here PostgreSQL's date arithmetic is 32-bit: refuse years
	// it could overflow on (every answer there is an error anyway).
	if tm.year > 6000000 || tm.year < -6000000 {
		return tm, tooLarge()
	}
	if t.j != 0 {
		if t.j < 0 {
			return tm, tooLarge()
		}
		tm.year, tm.mon, tm.mday = types.J2Date(t.j)
		maskYear, maskMonth, maskDay = true, true, true
	}
	if t.ww != 0 {
		if !fitsInt32((t.ww-1)*7 + 1) {
			return tm, tooLarge()
		}
		if t.mode == dchModeISO {
			jd := isoWeek1Monday(tm.year) + (t.ww-1)*7
			if t.d != 0 {
				if t.d > 1 {
					jd += t.d - 2
				} else {
					jd += 6
				}
			}
			if jd < 0 || !fitsInt32(jd) {
				return tm, tooLarge()
			}
			tm.year, tm.mon, tm.mday = types.J2Date(jd)
			maskYear, maskMonth, maskDay = true, true, true
		} else {
			t.ddd = (t.ww-1)*7 + 1
		}
	}
	if t.w != 0 {
		if !fitsInt32((t.w-1)*7 + 1) {
			return tm, tooLarge()
		}
		t.dd = (t.w-1)*7 + 1
	}
	if t.dd != 0 {
		tm.mday = t.dd
		maskDay = true
	}
	if t.mm != 0 {
		tm.mon = t.mm
		maskMonth = true
	}
	if t.ddd != 0 && (tm.mon <= 1 || tm.mday <= 1) {
		if tm.year == 0 && t.bc == 0 {
			return tm, errorf(CodeInvalidDatetime, "cannot calculate day of year without year information")
		}
		if t.mode == dchModeISO {
			jd := isoWeek1Monday(tm.year) - 1 + t.ddd
			if jd < 0 || !fitsInt32(jd) {
				return tm, tooLarge()
			}
			tm.year, tm.mon, tm.mday = types.J2Date(jd)
			maskYear, maskMonth, maskDay = true, true, true
		} else {
			ysum := [13]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
			if isLeapYear(tm.year) {
				ysum = [13]int64{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
			}
			i := int64(1)
			for ; i <= 12; i++ {
				if t.ddd <= ysum[i] {
					break
				}
			}
			if tm.mon <= 1 {
				tm.mon = i
			}
			if tm.mday <= 1 {
				tm.mday = t.ddd - ysum[i-1]
			}
			maskMonth, maskDay = true, true
		}
	}
	if t.ms != 0 {
		if !fitsInt32(t.ms * 1000) {
			return tm, tooLarge()
		}
		tm.fsec += t.ms * 1000
	}
	if t.us != 0 {
		if !fitsInt32(tm.fsec + t.us) {
			return tm, tooLarge()
		}
		tm.fsec += t.us
	}
	tm.fprec = t.ff
	// ValidateDate(fmask, isjulian=true, …)
	if maskMonth && (tm.mon < 1 || tm.mon > 12) || maskDay && (tm.mday < 1 || tm.mday > 31) {
		return tm, fieldErr()
	}
	if maskYear && maskMonth && maskDay && tm.mday > daysIn(tm.year, tm.mon) {
		return tm, fieldErr()
	}
	if tm.hour < 0 || tm.hour >= 24 || tm.min < 0 || tm.min >= 60 || tm.sec < 0 || tm.sec >= 60 || tm.fsec < 0 || tm.fsec >= 1000000 {
		return tm, fieldErr()
	}
	if t.tzsign != 0 {
		if t.tzh < 0 || t.tzh > 15 || t.tzm < 0 || t.tzm >= 60 {
			return tm, errorf("22009", "time zone displacement out of range: \"%s\"", s)
		}
		tm.hasTZ = true
		tm.gmtoff = (t.tzh*60 + t.tzm) * 60
		if t.tzsign > 0 {
			tm.gmtoff = -tm.gmtoff
		}
	}
	return tm, nil
}

func isLeapYear(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// validJulian is IS_VALID_JULIAN.
func validJulian(y, m int64) bool {
	return (y > -4713 || y == -4713 && m >= 11) && (y < 5874898 || y == 5874898 && m < 6)
}

const (
	dateEndJulian   = 2147483494          // DATE_END_JULIAN
	minTimestampUs  = -211813488000000000 // MIN_TIMESTAMP
	endTimestampUs  = 9223371331200000000 // END_TIMESTAMP
	usecsPerDayFrom = 86400000000
)

func (r *Registry) addFromChar() {
	tx := types.Text
	r.def("to_date", types.Date, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s := str(a[0])
		tm, err := r.doToTimestamp(s, str(a[1]))
		if err != nil {
			return nil, err
		}
		if !validJulian(tm.year, tm.mon) {
			return nil, errorf(CodeDatetimeOverflow, "date out of range: \"%s\"", s)
		}
		d := types.Date2J(tm.year, tm.mon, tm.mday) - postgresEpochJ
		if d < -postgresEpochJ || d >= dateEndJulian-postgresEpochJ {
			return nil, errorf(CodeDatetimeOverflow, "date out of range: \"%s\"", s)
		}
		return types.DateVal(d), nil
	}, tx, tx).stable()
	r.def("to_timestamp", types.Timestamptz, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		tm, err := r.doToTimestamp(str(a[0]), str(a[1]))
		if err != nil {
			return nil, err
		}
		outOfRange := errorf(CodeDatetimeOverflow, "timestamp out of range")
		if !validJulian(tm.year, tm.mon) {
			return nil, outOfRange
		}
		d := types.Date2J(tm.year, tm.mon, tm.mday) - postgresEpochJ
		if d > math.MaxInt64/usecsPerDayFrom-1 || d < math.MinInt64/usecsPerDayFrom+1 {
			return nil, outOfRange
		}
		local := d*usecsPerDayFrom + ((tm.hour*60+tm.min)*60+tm.sec)*1000000 + tm.fsec
		var ts types.Value
		if tm.hasTZ {
			us := local + tm.gmtoff*1000000
			if us < minTimestampUs || us >= endTimestampUs {
				return nil, outOfRange
			}
			ts = types.TimestampVal(us)
		} else if ts, err = zoneOf(c).LocalToUTC(types.TimestampVal(local)); err != nil {
			return nil, err
		}
		if tm.fprec != 0 {
			return types.ApplyMod(types.Timestamptz, int32(tm.fprec), ts, false)
		}
		return ts, nil
	}, tx, tx).stable()
}
