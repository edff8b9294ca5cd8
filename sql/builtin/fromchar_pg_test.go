package builtin_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// fromCharToken is one piece of a random to_date/to_timestamp format
// and a generator of the input text it might meet.
type fromCharToken struct {
	format string
	input  func(r *rand.Rand) string
}

func digits(r *rand.Rand, lo, hi, width int) string {
	v := lo + r.IntN(hi-lo+1)
	s := strconv.Itoa(v)
	if width > 0 && r.IntN(4) != 0 {
		for len(s) < width {
			s = "0" + s
		}
	}
	return s
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// fromCharTokens are the fields of formatting.c's DCH_from_char (all but
// the refused TZ/OF and TM) with plausible and implausible values.
var fromCharTokens = []fromCharToken{
	{"YYYY", func(r *rand.Rand) string { return digits(r, 0, 3000, 4) }},
	{"yyyy", func(r *rand.Rand) string { return digits(r, 1, 9999, 4) }},
	{"YYY", func(r *rand.Rand) string { return digits(r, 0, 999, 3) }},
	{"YY", func(r *rand.Rand) string { return digits(r, 0, 99, 2) }},
	{"Y", func(r *rand.Rand) string { return digits(r, 0, 9, 1) }},
	{"Y,YYY", func(r *rand.Rand) string { return digits(r, 0, 9, 1) + "," + digits(r, 0, 999, 3) }},
	{"IYYY", func(r *rand.Rand) string { return digits(r, 1990, 2030, 4) }},
	{"IY", func(r *rand.Rand) string { return digits(r, 0, 99, 2) }},
	{"MM", func(r *rand.Rand) string { return digits(r, 0, 13, 2) }},
	{"mm", func(r *rand.Rand) string { return digits(r, 1, 12, 2) }},
	{"DD", func(r *rand.Rand) string { return digits(r, 0, 32, 2) }},
	{"dd", func(r *rand.Rand) string { return digits(r, 1, 28, 2) }},
	{"DDD", func(r *rand.Rand) string { return digits(r, 1, 367, 3) }},
	{"IDDD", func(r *rand.Rand) string { return digits(r, 1, 371, 3) }},
	{"D", func(r *rand.Rand) string { return digits(r, 1, 7, 1) }},
	{"ID", func(r *rand.Rand) string { return digits(r, 1, 7, 1) }},
	{"W", func(r *rand.Rand) string { return digits(r, 1, 5, 1) }},
	{"WW", func(r *rand.Rand) string { return digits(r, 1, 53, 2) }},
	{"IW", func(r *rand.Rand) string { return digits(r, 1, 53, 2) }},
	{"J", func(r *rand.Rand) string { return digits(r, 1000000, 2600000, 0) }},
	{"Q", func(r *rand.Rand) string { return digits(r, 1, 4, 1) }},
	{"CC", func(r *rand.Rand) string { return pick(r, "-", "") + digits(r, 1, 30, 2) }},
	{"HH24", func(r *rand.Rand) string { return digits(r, 0, 24, 2) }},
	{"HH12", func(r *rand.Rand) string { return digits(r, 0, 13, 2) }},
	{"HH", func(r *rand.Rand) string { return digits(r, 1, 12, 2) }},
	{"MI", func(r *rand.Rand) string { return digits(r, 0, 60, 2) }},
	{"SS", func(r *rand.Rand) string { return digits(r, 0, 60, 2) }},
	{"SSSS", func(r *rand.Rand) string { return digits(r, 0, 86400, 0) }},
	{"SSSSS", func(r *rand.Rand) string { return digits(r, 0, 86399, 5) }},
	{"MS", func(r *rand.Rand) string { return digits(r, 0, 999, 3) }},
	{"US", func(r *rand.Rand) string { return digits(r, 0, 999999, 6) }},
	{"FF1", func(r *rand.Rand) string { return digits(r, 0, 9, 1) }},
	{"FF3", func(r *rand.Rand) string { return digits(r, 0, 999, 3) }},
	{"FF6", func(r *rand.Rand) string { return digits(r, 0, 999999, 6) }},
	{"AM", func(r *rand.Rand) string { return pick(r, "AM", "PM", "am", "pm", "A.M.", "xM") }},
	{"P.M.", func(r *rand.Rand) string { return pick(r, "A.M.", "P.M.", "p.m.", "PM") }},
	{"pm", func(r *rand.Rand) string { return pick(r, "am", "PM") }},
	{"AD", func(r *rand.Rand) string { return pick(r, "AD", "BC", "bc", "B.C.") }},
	{"B.C.", func(r *rand.Rand) string { return pick(r, "A.D.", "B.C.", "BC") }},
	{"MONTH", func(r *rand.Rand) string {
		return pick(r, "JANUARY  ", "February", "march", "MAY", "Septem", "DECEMBER", "Sept")
	}},
	{"Month", func(r *rand.Rand) string { return pick(r, "October  ", "June", "July", "Foo") }},
	{"Mon", func(r *rand.Rand) string { return pick(r, "Jan", "FEB", "mar", "Dec", "Sep", "xyz") }},
	{"mon", func(r *rand.Rand) string { return pick(r, "apr", "Aug", "NOV") }},
	{"Day", func(r *rand.Rand) string { return pick(r, "Monday", "TUESDAY   ", "sunday", "Fri") }},
	{"DY", func(r *rand.Rand) string { return pick(r, "MON", "tue", "Sat", "Sun") }},
	{"RM", func(r *rand.Rand) string { return pick(r, "XII", "iv", "IX", "V", "viii", "I") }},
	{"TZH", func(r *rand.Rand) string { return pick(r, "+", "-", "", " ") + digits(r, 0, 16, 2) }},
	{"TZM", func(r *rand.Rand) string { return digits(r, 0, 60, 2) }},
	{"FX", func(*rand.Rand) string { return "" }},
}

// fromCharSeps are the format's text between fields.
var fromCharSeps = []string{"", "", "-", "/", " ", "  ", ":", ".", ",", "T", "\"at\"", "\" \"", "x", "\\\"", "9"}

// fromCharCase is a random format and an input close to what it reads:
// each field's value or a mutation (another separator, missing or
// extra spaces, a shorter number, a sign, junk).
func fromCharCase(r *rand.Rand) (in, format string) {
	var f, s strings.Builder
	for range 1 + r.IntN(6) {
		tok := fromCharTokens[r.IntN(len(fromCharTokens))]
		prefix := ""
		if r.IntN(5) == 0 {
			prefix = "FM"
		}
		suffix := ""
		if r.IntN(12) == 0 {
			suffix = pick(r, "TH", "th")
		}
		f.WriteString(prefix + tok.format + suffix)
		v := tok.input(r)
		switch r.IntN(14) {
		case 0:
			v = " " + v
		case 1:
			if len(v) > 1 {
				v = v[1:]
			}
		case 2:
			v = "-" + v
		case 3:
			v += "x"
		}
		s.WriteString(v)
		if suffix != "" && r.IntN(3) != 0 {
			s.WriteString(pick(r, "th", "ST", "nd"))
		}
		sep := fromCharSeps[r.IntN(len(fromCharSeps))]
		f.WriteString(sep)
		switch {
		case r.IntN(6) == 0:
			s.WriteString(pick(r, "", " ", "-", "//", "  ", "x", ":"))
		case strings.HasPrefix(sep, "\""):
			s.WriteString(strings.Trim(sep, "\""))
		case sep == "\\\"":
			s.WriteString("\"")
		default:
			s.WriteString(sep)
		}
	}
	in = s.String()
	if r.IntN(10) == 0 {
		in = "  " + in
	}
	return in, f.String()
}

// compareFromChar runs to_date and to_timestamp over each (input,
// format) on PostgreSQL and the library and fails on any difference:
// the value, or the error's SQLSTATE and message. A refusal (0A000)
// is counted, not failed, and must be rare.
func compareFromChar(t *testing.T, pairs [][2]string) (same, refused int) {
	t.Helper()
	conn := pgConn(t)
	reg := builtin.NewFor(types.Dialect{Version: pg.ServerVersion()})
	lib := &builtin.Context{}
	bad := 0
	for _, p := range pairs {
		for _, fn := range []string{"to_date", "to_timestamp"} {
			c := call{fn: fn, args: []arg{{typ: "text", val: p[0]}, {typ: "text", val: p[1]}}}
			want := pgOutcome(t.Context(), t, conn, c)
			got := libOutcome(reg, lib, c)
			switch {
			case got.code == "0A000":
				refused++
				if os.Getenv("SIDECAR_SHOW_REFUSED") != "" {
					t.Logf("refused: %s: %v (PostgreSQL %v)", c.sql(), got, want)
				}
			case got.code != want.code || got.msg != want.msg || got.text != want.text || got.null != want.null:
				bad++
				if bad <= 40 {
					t.Errorf("%s: PostgreSQL %v, sidecar %v", c.sql(), want, got)
				}
			default:
				same++
			}
		}
	}
	if bad > 40 {
		t.Errorf("… %d differences in all", bad)
	}
	t.Logf("%d calls: %d identical (value or error and message), %d refused, %d differ", 2*len(pairs), same, refused, bad)
	return same, refused
}

// TestFromCharFormatsMatchPostgres is a seeded random differential test
// of formatting.c's to_date/to_timestamp port: random formats of every
// field (FM, TH, FX, separators, spaces, quoted text) over inputs that
// mostly fit and sometimes do not. Before the port every format beyond
// YYYY/MM/DD/HH24/MI/SS/month names was refused.
func TestFromCharFormatsMatchPostgres(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	var pairs [][2]string
	for range 300 {
		in, f := fromCharCase(r)
		pairs = append(pairs, [2]string{in, f})
	}
	same, refused := compareFromChar(t, pairs)
	if refused*10 > same {
		t.Errorf("%d refused against %d identical: the port refuses more than the TZ/TM/overflow cases", refused, same)
	}
}

// TestFromCharHorologyMatchesPostgres: the to_date/to_timestamp calls of
// PostgreSQL's horology.sql (the corpus' 86 refusals of session 26)
// and the errors it checks.
func TestFromCharHorologyMatchesPostgres(t *testing.T) {
	pairs := [][2]string{
		{"0097/Feb/16 --> 08:14:30", "YYYY/Mon/DD --> HH:MI:SS"},
		{"97/2/16 8:14:30", "FMYYYY/FMMM/FMDD FMHH:FMMI:FMSS"},
		{"2011$03!18 23_38_15", "YYYY-MM-DD HH24:MI:SS"},
		{"1985 January 12", "YYYY FMMonth DD"},
		{"1985 FMMonth 12", "YYYY \"FMMonth\" DD"},
		{"1985 \\ 12", "YYYY \\\\ DD"},
		{"My birthday-> Year: 1976, Month: May, Day: 16", "\"My birthday-> Year:\" YYYY, \"Month:\" FMMonth, \"Day:\" DD"},
		{"1,582nd VIII 21", "Y,YYYth FMRM DD"},
		{"15 \"text between quote marks\" 98 54 45", "HH24 \"\\\"text between quote marks\\\"\" YY MI SS"},
		{"05121445482000", "MMDDHH24MISSYYYY"},
		{"2000January09Sunday", "YYYYFMMonthDDFMDay"},
		{"97/Feb/16", "YYMonDD"},
		{"97/Feb/16", "YY:Mon:DD"},
		{"97/Feb/16", "FXYY:Mon:DD"},
		{"97/Feb/16", "FXYY/Mon/DD"},
		{"19971116", "YYYYMMDD"},
		{"20000-1116", "YYYY-MMDD"},
		{"1997 AD 11 16", "YYYY BC MM DD"},
		{"1997 BC 11 16", "YYYY BC MM DD"},
		{"1997 A.D. 11 16", "YYYY B.C. MM DD"},
		{"1997 B.C. 11 16", "YYYY B.C. MM DD"},
		{"9-1116", "Y-MMDD"},
		{"95-1116", "YY-MMDD"},
		{"995-1116", "YYY-MMDD"},
		{"2005426", "YYYYWWD"},
		{"2005300", "YYYYDDD"},
		{"2005527", "IYYYIWID"},
		{"005527", "IYYIWID"},
		{"05527", "IYIWID"},
		{"5527", "IIWID"},
		{"2005364", "IYYYIDDD"},
		{"20050302", "YYYYMMDD"},
		{"2005 03 02", "YYYYMMDD"},
		{" 2005 03 02", "YYYYMMDD"},
		{"  20050302", "YYYYMMDD"},
		{"2011-12-18 11:38 AM", "YYYY-MM-DD HH12:MI PM"},
		{"2011-12-18 11:38 PM", "YYYY-MM-DD HH12:MI PM"},
		{"2011-12-18 11:38 A.M.", "YYYY-MM-DD HH12:MI P.M."},
		{"2011-12-18 11:38 P.M.", "YYYY-MM-DD HH12:MI P.M."},
		{"2011-12-18 11:38 +05", "YYYY-MM-DD HH12:MI TZH"},
		{"2011-12-18 11:38 -05", "YYYY-MM-DD HH12:MI TZH"},
		{"2011-12-18 11:38 +05:20", "YYYY-MM-DD HH12:MI TZH:TZM"},
		{"2011-12-18 11:38 -05:20", "YYYY-MM-DD HH12:MI TZH:TZM"},
		{"2011-12-18 11:38 20", "YYYY-MM-DD HH12:MI TZM"},
		{"2011-12-18 11:38 EST", "YYYY-MM-DD HH12:MI TZ"},
		{"2018-11-02 12:34:56.025", "YYYY-MM-DD HH24:MI:SS.MS"},
		{"2018-11-02 12:34:56", "YYYY-MM-DD HH24:MI:SS.FF1"},
		{"2018-11-02 12:34:56.1", "YYYY-MM-DD HH24:MI:SS.FF1"},
		{"2018-11-02 12:34:56.12", "YYYY-MM-DD HH24:MI:SS.FF2"},
		{"2018-11-02 12:34:56.123", "YYYY-MM-DD HH24:MI:SS.FF3"},
		{"2018-11-02 12:34:56.1234", "YYYY-MM-DD HH24:MI:SS.FF4"},
		{"2018-11-02 12:34:56.12345", "YYYY-MM-DD HH24:MI:SS.FF5"},
		{"2018-11-02 12:34:56.123456", "YYYY-MM-DD HH24:MI:SS.FF6"},
		{"2018-11-02 12:34:56.123456789", "YYYY-MM-DD HH24:MI:SS.FF6"},
		{"2018-11-02 12:34:56.123456", "YYYY-MM-DD HH24:MI:SS.US"},
		{"2018-11-02 12:34:56.1234567", "YYYY-MM-DD HH24:MI:SS.US"},
		{"44-02-01 11:12:13 BC", "YYYY-MM-DD HH24:MI:SS BC"},
		{"-44-02-01 11:12:13", "YYYY-MM-DD HH24:MI:SS"},
		{"-44-02-01 11:12:13 BC", "YYYY-MM-DD HH24:MI:SS BC"},
		{"2011-12-18 23:38:15", "YYYY-MM-DD  HH24:MI:SS"},
		{"2011-12-18  23:38:15", "YYYY-MM-DD  HH24:MI:SS"},
		{"2011-12-18   23:38:15", "YYYY-MM-DD  HH24:MI:SS"},
		{"2011-12-18  23:38:15", "YYYY-MM-DD HH24:MI:SS"},
		{"2000+   JUN", "YYYY/MON"},
		{"  2000 +JUN", "YYYY/MON"},
		{" 2000 +JUN", "YYYY//MON"},
		{"2000  +JUN", "YYYY//MON"},
		{"2000 + + JUN", "YYYY  MON"},
		{"2000 -10", "YYYY TZH"},
		{"2000 -10", "YYYY  TZH"},
		{"2011-12-18 11:38 PST", "YYYY-MM-DD HH12:MI TZ"},
		{"2018-11-02 12:34:56.025", "YYYY-MM-DD HH24:MI:SS.MS"},
		{"1,582nd VIII 21", "Y,YYYth FMRM DD"},
		{"1997-02-07", "YYYY-MM-DD"},
		{"3 4 21 01", "W MM CC YY"},
		{"2458872", "J"},
		{"44-02-01 BC", "YYYY-MM-DD BC"},
		{"-44-02-01", "YYYY-MM-DD"},
		{"-44-02-01 BC", "YYYY-MM-DD BC"},
		{"2016-06-13 25:00:00", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-06-13 15:60:00", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-06-13 15:50:60", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-06-13 15:50:55", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-06-13 15:50:55", "YYYY-MM-DD HH:MI:SS"},
		{"2016-13-01 15:50:55", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-02-30 15:50:55", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-02-29 15:50:55", "YYYY-MM-DD HH24:MI:SS"},
		{"2015-02-29 15:50:55", "YYYY-MM-DD HH24:MI:SS"},
		{"2015-02-11 86000", "YYYY-MM-DD SSSS"},
		{"2015-02-11 86400", "YYYY-MM-DD SSSS"},
		{"2015-02-11 86000", "YYYY-MM-DD SSSSS"},
		{"2015-02-11 86400", "YYYY-MM-DD SSSSS"},
		{"2016-13-10", "YYYY-MM-DD"},
		{"2016-02-30", "YYYY-MM-DD"},
		{"2016-02-29", "YYYY-MM-DD"},
		{"2015-02-29", "YYYY-MM-DD"},
		{"2015 365", "YYYY DDD"},
		{"2015 366", "YYYY DDD"},
		{"2016 365", "YYYY DDD"},
		{"2016 366", "YYYY DDD"},
		{"2016 367", "YYYY DDD"},
		{"0000-02-01", "YYYY-MM-DD"},
		{"100000000", "CC"},
		{"-100000000", "CC"},
		{"-2147483648 01", "CC YY"},
		{"2147483647 01", "CC YY"},
		{"1000000000,999", "Y,YYY"},
		{"0.-2147483648", "SS.MS"},
		{"613566758", "W"},
		{"2024 613566758 1", "YYYY WW D"},
		{"2024-01-01 12:00", "YYYY-MM-DD HH12:MI"},
		{"1 2 3", "Q MM DD"},
		{"Jan 16 1997", "Mon DD YYYY"},
		{"MONDAY 16 1997", "DAY DD YYYY"},
		{"1997 2", "YYYY Mon"},
		{"", ""},
		{"2019", ""},
		{"", "YYYY"},
		{"19", "YYYY"},
		{"1999x", "YYYY"},
		{"1999-12-31T23:59:59", "YYYY-MM-DD\"T\"HH24:MI:SS"},
		{"2147483648", "YYYY"},
		{"99999999999999999999", "FMYYYY"},
		{"12 345", "DD DDD"},
		{"2020 10 2020 11", "YYYY MM YYYY MM"},
		{"2020 10 2020 10", "YYYY MM YYYY MM"},
		{"2020 10 5", "YYYY IW MM"},
	}
	same, refused := compareFromChar(t, pairs)
	// Refused: the TZ fields (read from 17 on) and the values PostgreSQL's
	// 32-bit arithmetic overflows on.
	if refused > 20 {
		t.Errorf("%d refused (%d identical)", refused, same)
	}
}
