package builtin

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// to_date(text, text) and to_timestamp(text, text) for the input that
// spells the format exactly: the numeric fields YYYY, MM, DD (and for
// to_timestamp HH24, MI, SS) in either case with all their digits (with
// FM: 1 to that many), the month names MONTH/Month/month and
// MON/Mon/mon in any case, the TH/th suffix (two characters skipped),
// and the same punctuation or spaces between them. There formatting.c's
// DCH_from_char reads every field at its full width whatever its mode,
// so the value is the fields' (after PostgreSQL's range checks, which
// are refused rather than imitated). Any other format or input — other
// patterns, FX, quoted text, shorter fields, other separators, extra
// spaces — is refused 0A000, never read differently.

// monthName reads a month name where format f starts with MONTH,
// Month or month (the full English name) or MON, Mon or mon (its first
// three letters): the input and format after it, the month (0: the
// input names none — refused), ok false when f starts with no such
// keyword. The input's case does not matter (seq_search_ascii).
func monthName(s, f string) (rest struct{ s, f string }, month int, ok bool) {
	for _, k := range []string{"MONTH", "Month", "month", "MON", "Mon", "mon"} {
		if !strings.HasPrefix(f, k) {
			continue
		}
		for i, name := range monthsFull {
			if len(k) == 3 {
				name = name[:3]
			}
			if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
				rest.s, rest.f = s[len(name):], f[len(k):]
				return rest, i + 1, true
			}
		}
		return rest, 0, true
	}
	return rest, 0, false
}

// fromCharFields are the supported patterns and their widths.
var fromCharFields = []struct {
	pat   string
	width int
	date  bool
}{{"YYYY", 4, true}, {"HH24", 2, false}, {"MM", 2, true}, {"DD", 2, true}, {"MI", 2, false}, {"SS", 2, false}}

// fromCharExact reads s by format f: the fields by pattern (-1: absent).
func fromCharExact(s, f string, timeOK bool) (map[string]int64, error) {
	refuse := func() (map[string]int64, error) {
		return nil, unsupported("to_date/to_timestamp with this format or input (sidecar reads only input spelling the format's numeric fields YYYY, MM, DD, HH24, MI, SS at full width with the same separators)")
	}
	out := map[string]int64{}
	for len(f) > 0 {
		fm := false
		if strings.HasPrefix(f, "FM") || strings.HasPrefix(f, "fm") {
			fm, f = true, f[2:]
		}
		if rest, n, ok := monthName(s, f); ok {
			if n == 0 {
				return refuse()
			}
			if _, dup := out["MM"]; dup {
				return refuse()
			}
			out["MM"] = int64(n)
			s, f = rest.s, rest.f
			continue
		}
		matched := false
		for _, fc := range fromCharFields {
			if len(f) < len(fc.pat) || !strings.EqualFold(f[:len(fc.pat)], fc.pat) {
				continue
			}
			if f[:len(fc.pat)] != fc.pat && f[:len(fc.pat)] != strings.ToLower(fc.pat) {
				return refuse() // mixed case (Mm) is another keyword or none
			}
			if !fc.date && !timeOK || !fm && len(s) < fc.width {
				return refuse()
			}
			if _, dup := out[fc.pat]; dup {
				return refuse()
			}
			width := fc.width
			if fm { // FM: as many digits as there are (strtol), here 1 to the width
				width = 0
				for width < len(s) && s[width] >= '0' && s[width] <= '9' {
					width++
				}
				if width == 0 || width > fc.width {
					return refuse()
				}
			}
			var v int64
			for _, c := range []byte(s[:width]) {
				if c < '0' || c > '9' {
					return refuse()
				}
				v = v*10 + int64(c-'0')
			}
			out[fc.pat] = v
			s, f = s[width:], f[len(fc.pat):]
			if strings.HasPrefix(f, "TH") || strings.HasPrefix(f, "th") {
				// SKIP_THth: the next two characters, whatever they are
				for range 2 {
					_, n := utf8.DecodeRuneInString(s)
					if n == 0 {
						return refuse()
					}
					s = s[n:]
				}
				f = f[2:]
			}
			matched = true
			break
		}
		if matched {
			continue
		}
		if fm {
			return refuse() // FM before text or an unsupported field
		}
		c := f[0]
		if !strings.ContainsRune("-/.:, ", rune(c)) || len(s) == 0 || s[0] != c {
			return refuse()
		}
		if len(f) > 1 && strings.ContainsRune("-/.:, ", rune(f[1])) {
			return refuse() // consecutive separators: PostgreSQL skips them loosely
		}
		s, f = s[1:], f[1:]
	}
	if s != "" || out["YYYY"] == 0 {
		return refuse()
	}
	return out, nil
}

// fromChar reads text a[0] by format a[1]: the fields and the day
// (since 2000-01-01) they name.
func fromChar(a []types.Value, timeOK bool) (map[string]int64, int64, error) {
	fs, err := fromCharExact(str(a[0]), str(a[1]), timeOK)
	if err != nil {
		return nil, 0, err
	}
	d, err := fromCharDate(fs)
	return fs, d, err
}

// fromCharDate is the date the fields name (refused out of range).
func fromCharDate(fs map[string]int64) (int64, error) {
	y, m, d := fs["YYYY"], int64(1), int64(1)
	if v, ok := fs["MM"]; ok {
		m = v
	}
	if v, ok := fs["DD"]; ok {
		d = v
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, unsupported("to_date/to_timestamp of a field out of range (PostgreSQL's message differs by major)")
	}
	return types.Date2J(y, m, d) - postgresEpochJ, nil
}

func (r *Registry) addFromChar() {
	tx := types.Text
	r.def("to_date", types.Date, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		_, d, err := fromChar(a, false)
		if err != nil {
			return nil, err
		}
		return types.DateVal(d), nil
	}, tx, tx).stable()
	r.def("to_timestamp", types.Timestamptz, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		fs, d, err := fromChar(a, true)
		if err != nil {
			return nil, err
		}
		h, mi, sec := fs["HH24"], fs["MI"], fs["SS"]
		if h > 23 || mi > 59 || sec > 59 {
			return nil, unsupported("to_timestamp of a time field out of range (PostgreSQL's message differs by major)")
		}
		local := types.TimestampVal((d*86400 + h*3600 + mi*60 + sec) * 1000000)
		return zoneOf(c).LocalToUTC(local)
	}, tx, tx).stable()
}
