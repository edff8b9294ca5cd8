package builtin

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// dchKeywords are formatting.c's DCH_keywords in its order: the first
// keyword (among those with the same first character) that prefixes the
// format at a position is taken.
var dchKeywords = strings.Fields(`A.D. A.M. AD AM B.C. BC CC DAY DDD DD DY Day Dy D FF1 FF2 FF3 FF4 FF5 FF6 FX
HH24 HH12 HH IDDD ID IW IYYY IYY IY I J MI MM MONTH MON MS Month Mon OF P.M. PM Q RM SSSSS SSSS SS TZH TZM TZ US WW W
Y,YYY YYYY YYY YY Y a.d. a.m. ad am b.c. bc cc day ddd dd dy d ff1 ff2 ff3 ff4 ff5 ff6 fx hh24 hh12 hh iddd id iw iyyy iyy iy i j
mi mm month mon ms of p.m. pm q rm sssss ssss ss tzh tzm tz us ww w y,yyy yyyy yyy yy y`)

var (
	monthsFull = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	daysFull   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMonth = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

func dchKeyword(f string) string {
	for _, k := range dchKeywords {
		if k[0] == f[0] && strings.HasPrefix(f, k) {
			return k
		}
	}
	return ""
}

// numTH is str_numth's suffix for the digits in s.
func numTH(s string, upper bool) (string, error) {
	if s == "" || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return "", errorf("22P02", "\"%s\" is not a number", s)
	}
	last := s[len(s)-1]
	if len(s) > 1 && s[len(s)-2] == '1' {
		last = 0
	}
	suf := "th"
	switch last {
	case '1':
		suf = "st"
	case '2':
		suf = "nd"
	case '3':
		suf = "rd"
	}
	if upper {
		suf = strings.ToUpper(suf)
	}
	return suf, nil
}

func adjustYear(y int64) int64 {
	if y <= 0 {
		return -(y - 1)
	}
	return y
}

// toChar is to_char(timestamp[tz], text) (formatting.c's DCH_to_char);
// timestamptz is shown at UTC.
func toChar(t types.TimestampVal, f string, tz bool) (types.Value, error) {
	if f == "" || isInfTs(t) {
		return nil, nil
	}
	x := toTm(t)
	return dchToChar(x, f, tz, false)
}

// dchToChar is DCH_to_char over x: a timestamp's fields, or an
// interval's (interval: intervalToChar's, tochar_interval.go).
func dchToChar(x tm, f string, tz, interval bool) (types.Value, error) {
	var wday, yday int64
	if interval {
		yday = (x.year*12+x.mon)*30 + x.mday // interval_to_char's approximation
	} else {
		wday = j2day(x.jd)
		yday = x.jd - types.Date2J(x.year, 1, 1) + 1
	}
	var b strings.Builder
	for len(f) > 0 {
		fm, th, thUpper := false, false, false
		switch {
		case strings.HasPrefix(f, "FM"), strings.HasPrefix(f, "fm"):
			fm = true
			f = f[2:]
		case strings.HasPrefix(f, "TM"), strings.HasPrefix(f, "tm"):
			return nil, unsupported("to_char's TM (translation) prefix")
		}
		if f == "" {
			break
		}
		k := dchKeyword(f)
		if k == "" {
			if f[0] == '"' {
				var lit []string
				lit, f = quotedLiteral(f[1:])
				b.WriteString(strings.Join(lit, ""))
				continue
			}
			if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
				f = f[1:]
			}
			_, n := utf8.DecodeRuneInString(f)
			b.WriteString(f[:n])
			f = f[n:]
			continue
		}
		f = f[len(k):]
		switch {
		case strings.HasPrefix(f, "TH"):
			th, thUpper = true, true
			f = f[2:]
		case strings.HasPrefix(f, "th"):
			th = true
			f = f[2:]
		case strings.HasPrefix(f, "SP"):
			return nil, unsupported("to_char's SP suffix")
		}
		num := func(width int, v int64) string {
			if fm {
				width = 0
			}
			return fmt.Sprintf("%0*d", width, v)
		}
		w := func(w, neg int, v int64) int {
			if v >= 0 {
				return w
			}
			return neg
		}
		var s string
		numeric := true
		up := strings.ToUpper(k)
		if interval {
			if err := intervalKeyword(up); err != nil {
				return nil, err
			}
		}
		switch up {
		case "A.M.", "P.M.", "AM", "PM":
			numeric = false
			pm := x.hour%24 >= 12
			s = map[bool]string{false: "AM", true: "PM"}[pm]
			if strings.Contains(k, ".") {
				s = s[:1] + "." + s[1:] + "."
			}
			if k[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "A.D.", "B.C.", "AD", "BC":
			numeric = false
			s = "AD"
			if x.year <= 0 {
				s = "BC"
			}
			if strings.Contains(k, ".") {
				s = s[:1] + "." + s[1:] + "."
			}
			if k[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "HH", "HH12":
			h := x.hour % 12
			if h == 0 {
				h = 12
			}
			s = num(w(2, 3, x.hour), h)
		case "HH24":
			s = num(w(2, 3, x.hour), x.hour)
		case "MI":
			s = num(w(2, 3, x.min), x.min)
		case "SS":
			s = num(w(2, 3, x.sec), x.sec)
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "MS", "US":
			n := map[string]int{"MS": 3, "US": 6}[up]
			if n == 0 {
				n = int(up[2] - '0')
			}
			div := int64(1)
			for i := n; i < 6; i++ {
				div *= 10
			}
			s = fmt.Sprintf("%0*d", n, x.fsec/div)
		case "SSSS", "SSSSS":
			secs := x.hour*3600 + x.min*60 + x.sec
			if interval && (secs > math.MaxInt32 || secs < math.MinInt32) {
				return nil, unsupported("to_char(interval) SSSS past 2147483647 seconds (PostgreSQL 14 overflows an int, 15 on do not)")
			}
			s = fmt.Sprint(secs)
		case "TZ":
			numeric = false
			if tz {
				s = "UTC"
				if k == "tz" {
					s = "utc"
				}
			}
		case "TZH":
			numeric = false
			s = "+00"
		case "TZM":
			s = "00"
		case "OF":
			numeric = false
			s = "+" + num(2, 0)
		case "MONTH":
			numeric = false
			s = caseLike(k, monthsFull[x.mon-1])
			if !fm {
				s = fmt.Sprintf("%-9s", s)
			}
		case "MON":
			numeric = false
			s = caseLike(k, monthsFull[x.mon-1][:3])
		case "MM":
			s = num(w(2, 3, x.mon), x.mon)
		case "DAY":
			numeric = false
			s = caseLike(k, daysFull[wday])
			if !fm {
				s = fmt.Sprintf("%-9s", s)
			}
		case "DY":
			numeric = false
			s = caseLike(k, daysFull[wday][:3])
		case "DDD":
			s = num(3, yday)
		case "IDDD":
			iy := isoYear(x.year, x.mon, x.mday)
			s = num(3, x.jd-isoWeek1Monday(iy)+1)
		case "DD":
			s = num(2, x.mday)
		case "D":
			s = fmt.Sprint(wday + 1)
		case "ID":
			d := wday
			if d == 0 {
				d = 7
			}
			s = fmt.Sprint(d)
		case "WW":
			s = num(2, (yday-1)/7+1)
		case "IW":
			s = num(2, isoWeek(x.year, x.mon, x.mday))
		case "Q":
			if x.mon == 0 { // an interval's: nothing, no TH
				continue
			}
			s = fmt.Sprint((x.mon-1)/3 + 1)
		case "CC":
			var i int64
			if interval {
				i = x.year / 100
			} else if x.year > 0 {
				i = (x.year-1)/100 + 1
			} else {
				i = x.year/100 - 1
			}
			if i <= 99 && i >= -99 {
				s = num(w(2, 3, i), i)
			} else {
				s = fmt.Sprint(i)
			}
		case "Y,YYY":
			y := adjustYear(x.year)
			if interval {
				y = x.year
			}
			s = fmt.Sprintf("%d,%03d", y/1000, y-(y/1000)*1000)
		case "YYYY", "IYYY":
			y := adjustYear(x.year)
			if interval {
				y = x.year
			}
			if up[0] == 'I' {
				y = adjustYear(isoYear(x.year, x.mon, x.mday))
			}
			s = num(w(4, 5, y), y)
		case "YYY", "IYY", "YY", "IY", "Y", "I":
			y := adjustYear(x.year)
			if interval {
				y = x.year
			}
			if up[0] == 'I' {
				y = adjustYear(isoYear(x.year, x.mon, x.mday))
			}
			digits := strings.Count(up, "Y") + strings.Count(up, "I")
			if up[0] == 'I' {
				digits = len(up)
			}
			mod := int64(1)
			for i := 0; i < digits; i++ {
				mod *= 10
			}
			s = num(w(digits, digits+1, y), y%mod)
		case "RM":
			numeric = false
			m, ok := romanIndex(x)
			if !ok {
				continue
			}
			s = romanMonth[m]
			if k == "rm" {
				s = strings.ToLower(s)
			}
			if !fm {
				s = fmt.Sprintf("%-4s", s)
			}
		case "W":
			s = fmt.Sprint((x.mday-1)/7 + 1)
		case "J":
			s = fmt.Sprint(x.jd)
		case "FX":
			numeric = false
		}
		b.WriteString(s)
		if th && numeric {
			suf, err := numTH(s, thUpper)
			if err != nil {
				return nil, err
			}
			b.WriteString(suf)
		}
	}
	return b.String(), nil
}

// caseLike writes name in the case of keyword k: MONTH upper, Month as
// is, month lower.
func caseLike(k, name string) string {
	switch {
	case k[0] >= 'a':
		return strings.ToLower(name)
	case len(k) > 1 && k[1] >= 'a':
		return name
	}
	return strings.ToUpper(name)
}

// isoWeek1Monday is the Julian day of the Monday of ISO year y's week 1
// (isoweek2j(y, 1)).
func isoWeek1Monday(y int64) int64 {
	day4 := types.Date2J(y, 1, 4)
	day0 := j2day(day4 - 1)
	return day4 - day0
}

// quotedLiteral reads a format's double-quoted text after its opening
// quote (parse_format: a backslash quotes the next character): its
// characters and the format after the closing quote.
func quotedLiteral(f string) ([]string, string) {
	var out []string
	for len(f) > 0 {
		if f[0] == '"' {
			return out, f[1:]
		}
		if f[0] == '\\' && len(f) > 1 {
			f = f[1:]
		}
		_, n := utf8.DecodeRuneInString(f)
		out = append(out, f[:n])
		f = f[n:]
	}
	return out, f
}
