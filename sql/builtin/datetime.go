package builtin

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

const (
	dt  = types.Date
	ts  = types.Timestamp
	tsz = types.Timestamptz
	iv  = types.Interval

	usecsPerDay    = 86400 * 1000000
	postgresEpochJ = 2451545 // date2j(2000, 1, 1)
	unixEpochJ     = 2440588 // date2j(1970, 1, 1)
	// minTimestamp and endTimestamp are PostgreSQL's timestamp range
	// (4714-11-24 00:00 BC .. 294277-01-01 00:00 exclusive).
	minTimestamp = -211813488000000000
	endTimestamp = 9223371331200000000
)

// tm is a timestamp broken into fields (astronomical year: 1 BC is 0).
type tm struct {
	year, mon, mday, hour, min, sec, fsec int64
	jd                                    int64
}

func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

func toTm(t types.TimestampVal) tm {
	days, us := floorDivMod(int64(t), usecsPerDay)
	var x tm
	x.jd = days + postgresEpochJ
	x.year, x.mon, x.mday = types.J2Date(x.jd)
	x.hour = us / 3600000000
	us -= x.hour * 3600000000
	x.min = us / 60000000
	us -= x.min * 60000000
	x.sec = us / 1000000
	x.fsec = us - x.sec*1000000
	return x
}

// fromTm is tm2timestamp: 22008 outside the timestamp range.
func fromTm(x tm) (types.TimestampVal, error) {
	jd := types.Date2J(x.year, x.mon, x.mday)
	us := (jd-postgresEpochJ)*usecsPerDay + ((x.hour*60+x.min)*60+x.sec)*1000000 + x.fsec
	if us < minTimestamp || us >= endTimestamp {
		return 0, errorf(CodeDatetimeOverflow, "timestamp out of range")
	}
	return types.TimestampVal(us), nil
}

func isInfTs(t types.TimestampVal) bool {
	return t == types.TimestampPosInf || t == types.TimestampNegInf
}

// j2day is PostgreSQL's j2day: 0 Sunday … 6 Saturday.
func j2day(jd int64) int64 {
	_, d := floorDivMod(jd+1, 7)
	return d
}

// isoYearStart is date2isoyear's year for the date y-m-d and the Julian
// day of that ISO year's first Monday (isoweek2j(year, 1)).
func isoYearStart(y, m, d int64) (year, start int64) {
	dayn := types.Date2J(y, m, d)
	start = isoWeek1Monday(y)
	if dayn < start {
		y--
		start = isoWeek1Monday(y)
	} else if next := isoWeek1Monday(y + 1); dayn >= next {
		y++
		start = next
	}
	return y, start
}

// isoWeek is date2isoweek.
func isoWeek(y, m, d int64) int64 {
	_, start := isoYearStart(y, m, d)
	return (types.Date2J(y, m, d)-start)/7 + 1
}

// isoYear is date2isoyear.
func isoYear(y, m, d int64) int64 {
	iy, _ := isoYearStart(y, m, d)
	return iy
}

// Units of date_trunc / date_part (PostgreSQL's DTK_* it accepts).
type unit int

const (
	uNone unit = iota
	uMicro
	uMilli
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uQuarter
	uYear
	uDecade
	uCentury
	uMillennium
	uTZ
	uTZHour
	uTZMinute
	// datetktbl's units and reserved words (date_part only)
	uDow
	uIsoDow
	uDoy
	uIsoYear
	uJulian
	uEpoch
	uReserved // another reserved word: "not supported"
)

// deltaUnits is datetime.c's deltatktbl (DecodeUnits), keyed by the
// first 10 characters as PostgreSQL compares them.
var deltaUnits = map[string]unit{
	"c": uCentury, "cent": uCentury, "centuries": uCentury, "century": uCentury,
	"d": uDay, "day": uDay, "days": uDay,
	"dec": uDecade, "decade": uDecade, "decades": uDecade, "decs": uDecade,
	"h": uHour, "hour": uHour, "hours": uHour, "hr": uHour, "hrs": uHour,
	"m": uMinute, "min": uMinute, "mins": uMinute, "minute": uMinute, "minutes": uMinute,
	"microsecon": uMicro, "us": uMicro, "usec": uMicro, "usecond": uMicro, "useconds": uMicro, "usecs": uMicro,
	"mil": uMillennium, "millennia": uMillennium, "millennium": uMillennium, "mils": uMillennium,
	"millisecon": uMilli, "ms": uMilli, "msec": uMilli, "msecond": uMilli, "mseconds": uMilli, "msecs": uMilli,
	"mon": uMonth, "mons": uMonth, "month": uMonth, "months": uMonth,
	"qtr": uQuarter, "quarter": uQuarter,
	"s": uSecond, "sec": uSecond, "second": uSecond, "seconds": uSecond, "secs": uSecond,
	"timezone": uTZ, "timezone_h": uTZHour, "timezone_m": uTZMinute,
	"w": uWeek, "week": uWeek, "weeks": uWeek,
	"y": uYear, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
}

// specialUnits are datetktbl's words date_part reads (DecodeSpecial).
var specialUnits = map[string]unit{
	"dow": uDow, "isodow": uIsoDow, "doy": uDoy, "isoyear": uIsoYear, "j": uJulian, "jd": uJulian, "julian": uJulian,
	"mm": uMinute, "epoch": uEpoch,
	"-infinity": uReserved, "infinity": uReserved, "now": uReserved, "today": uReserved, "tomorrow": uReserved,
	"yesterday": uReserved, "allballs": uReserved,
}

// lowerUnits is downcase_truncate_identifier (ASCII; 63 bytes).
func lowerUnits(s string) string {
	s = asciiLower(s)
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}

func tok10(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func unitErr(code, low string, t OID, what string) error {
	return errorf(code, "unit \"%s\" %s for type %s", low, what, types.NameOf(t))
}

// truncTm truncates x to unit u (date_trunc's fields).
func truncTm(x tm, u unit) tm {
	switch u {
	case uWeek:
		x.jd -= (j2day(x.jd) + 6) % 7
		x.year, x.mon, x.mday = types.J2Date(x.jd)
		x.hour, x.min, x.sec, x.fsec = 0, 0, 0, 0
		return x
	case uMillennium:
		if x.year > 0 {
			x.year = ((x.year+999)/1000)*1000 - 999
		} else {
			x.year = -((999-(x.year-1))/1000)*1000 + 1
		}
	case uCentury:
		if x.year > 0 {
			x.year = ((x.year+99)/100)*100 - 99
		} else {
			x.year = -((99-(x.year-1))/100)*100 + 1
		}
	case uDecade:
		if x.year > 0 {
			x.year = (x.year / 10) * 10
		} else {
			x.year = -((8 - (x.year - 1)) / 10) * 10
		}
	}
	switch u {
	case uMillennium, uCentury, uDecade, uYear:
		x.mon = 1
		fallthrough
	case uQuarter:
		if u == uQuarter {
			x.mon = 3*((x.mon-1)/3) + 1
		}
		fallthrough
	case uMonth:
		x.mday = 1
		fallthrough
	case uDay:
		x.hour = 0
		fallthrough
	case uHour:
		x.min = 0
		fallthrough
	case uMinute:
		x.sec = 0
		fallthrough
	case uSecond:
		x.fsec = 0
	case uMilli:
		x.fsec = (x.fsec / 1000) * 1000
	}
	return x
}

func dateTrunc(low string, t types.TimestampVal, typ OID) (types.Value, error) {
	if isInfTs(t) {
		return t, nil
	}
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		return nil, unitErr(CodeInvalidParameter, low, typ, "not recognized")
	}
	switch u {
	case uMicro, uMilli, uSecond, uMinute, uHour, uDay, uWeek, uMonth, uQuarter, uYear, uDecade, uCentury, uMillennium:
	default:
		return nil, unitErr(CodeFeatureNotSupported, low, typ, "not supported")
	}
	return fromTm(truncTm(toTm(t), u))
}

// part is a date_part/extract result before its type: an integer, or
// micro-units with a scale (n / 10^scale), or an infinity.
type part struct {
	n     int64
	scale int32
	f     float64 // the float8 value date_part computes
	inf   int8
	null  bool
	// julian: extract(julian) of a timestamp, whose numeric is the day
	// n plus dayUs/86400000000 in numeric division (its scale).
	julian bool
	dayUs  int64
	// noNumeric: extract's numeric is not computed (epoch of an interval
	// past int64 microseconds).
	noNumeric bool
	// dec: the numeric when n cannot hold it (the epoch of a timestamp
	// past 2^63 microseconds after 1970).
	dec *types.Decimal
}

func intPart(n int64) part { return part{n: n, f: float64(n)} }

// secondsPart is the microseconds, milliseconds or second unit u of a
// value whose seconds field is sec and its microseconds fsec (the
// numeric exact, the float8 as PostgreSQL computes it); ok is false for
// other units.
func secondsPart(u unit, sec, fsec int64) (p part, ok bool) {
	switch u {
	case uMicro:
		return intPart(sec*1000000 + fsec), true
	case uMilli:
		return part{n: sec*1000000 + fsec, scale: 3, f: float64(sec)*1000.0 + float64(fsec)/1000.0}, true
	case uSecond:
		return part{n: sec*1000000 + fsec, scale: 6, f: float64(sec) + float64(fsec)/1000000.0}, true
	}
	return part{}, false
}

// tsPart is timestamp_part_common (PostgreSQL 14+) for timestamp and
// timestamptz (at UTC).
func tsPart(low string, t types.TimestampVal, typ OID) (part, error) {
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		u, ok = specialUnits[tok10(low)]
	}
	if !ok {
		return part{}, unitErr(CodeInvalidParameter, low, typ, "not recognized")
	}
	if isInfTs(t) {
		switch u {
		case uMicro, uMilli, uSecond, uMinute, uHour, uDay, uMonth, uQuarter, uWeek, uDow, uIsoDow, uDoy, uTZ, uTZHour, uTZMinute:
			return part{null: true}, nil
		case uYear, uDecade, uCentury, uMillennium, uJulian, uIsoYear, uEpoch:
			if t == types.TimestampNegInf {
				return part{inf: -1, f: math.Inf(-1)}, nil
			}
			return part{inf: 1, f: math.Inf(1)}, nil
		}
		return part{}, unitErr(CodeFeatureNotSupported, low, typ, "not supported")
	}
	x := toTm(t)
	if p, ok := secondsPart(u, x.sec, x.fsec); ok {
		return p, nil
	}
	switch u {
	case uMinute:
		return intPart(x.min), nil
	case uHour:
		return intPart(x.hour), nil
	case uDay:
		return intPart(x.mday), nil
	case uMonth:
		return intPart(x.mon), nil
	case uQuarter:
		return intPart((x.mon-1)/3 + 1), nil
	case uWeek:
		return intPart(isoWeek(x.year, x.mon, x.mday)), nil
	case uYear, uDecade, uCentury, uMillennium:
		return intPart(yearPart(x.year, u)), nil
	case uJulian:
		secs := ((x.hour*60+x.min)*60 + x.sec)
		return part{julian: true, n: x.jd, dayUs: secs*1000000 + x.fsec, f: float64(x.jd) + (float64(secs)+float64(x.fsec)/1000000.0)/86400.0}, nil
	case uIsoYear:
		y := isoYear(x.year, x.mon, x.mday)
		if y <= 0 {
			y--
		}
		return intPart(y), nil
	case uDow, uIsoDow:
		d := j2day(x.jd)
		if u == uIsoDow && d == 0 {
			d = 7
		}
		return intPart(d), nil
	case uDoy:
		return intPart(x.jd - types.Date2J(x.year, 1, 1) + 1), nil
	case uEpoch:
		return tsEpoch(int64(t)), nil
	case uTZ, uTZHour, uTZMinute:
		if typ == tsz {
			return intPart(0), nil
		}
	}
	return part{}, unitErr(CodeFeatureNotSupported, low, typ, "not supported")
}

// tsEpoch is extract(epoch) of a timestamp of t microseconds after
// 2000-01-01: t plus 946684800 seconds. Past 2^63 microseconds
// PostgreSQL computes the numeric as (t + off) / 1000000 in numeric
// division (its result scale, ~16 significant digits) rounded to scale
// 6, and the float8 from the float t, as here.
func tsEpoch(t int64) part {
	const off = (postgresEpochJ - unixEpochJ) * usecsPerDay
	if t <= math.MaxInt64-off {
		us := t + off
		return part{n: us, scale: 6, f: float64(us) / 1000000.0}
	}
	us := types.DecimalFromInt(t)
	us.V.Add(&us.V, big.NewInt(off))
	d, err := types.DivDecimal(us, types.DecimalFromInt(1000000))
	if err != nil {
		return part{noNumeric: true, f: (float64(t) + off) / 1000000.0}
	}
	return part{dec: decRound(d, 6, false), f: (float64(t) + off) / 1000000.0}
}

func yearPart(y int64, u unit) int64 {
	switch u {
	case uYear:
		if y > 0 {
			return y
		}
		return y - 1
	case uDecade:
		if y >= 0 {
			return y / 10
		}
		return -((8 - (y - 1)) / 10)
	case uCentury:
		if y > 0 {
			return (y + 99) / 100
		}
		return -((99 - (y - 1)) / 100)
	}
	if y > 0 {
		return (y + 999) / 1000
	}
	return -((999 - (y - 1)) / 1000)
}

// datePart is extract(… from date) (PostgreSQL 14+'s extract_date).
func datePart(low string, d types.DateVal) (part, error) {
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		u, ok = specialUnits[tok10(low)]
	}
	if !ok {
		return part{}, unitErr(CodeInvalidParameter, low, dt, "not recognized")
	}
	if d == types.DatePosInf || d == types.DateNegInf {
		switch u {
		case uDay, uMonth, uQuarter, uWeek, uDow, uIsoDow, uDoy:
			return part{null: true}, nil
		case uYear, uDecade, uCentury, uMillennium, uJulian, uIsoYear, uEpoch:
			if d == types.DateNegInf {
				return part{inf: -1}, nil
			}
			return part{inf: 1}, nil
		}
		return part{}, unitErr(CodeFeatureNotSupported, low, dt, "not supported")
	}
	jd := int64(d) + postgresEpochJ
	y, m, md := types.J2Date(jd)
	switch u {
	case uDay:
		return intPart(md), nil
	case uMonth:
		return intPart(m), nil
	case uQuarter:
		return intPart((m-1)/3 + 1), nil
	case uWeek:
		return intPart(isoWeek(y, m, md)), nil
	case uYear, uDecade, uCentury, uMillennium:
		return intPart(yearPart(y, u)), nil
	case uJulian:
		return intPart(jd), nil
	case uIsoYear:
		iy := isoYear(y, m, md)
		if iy <= 0 {
			iy--
		}
		return intPart(iy), nil
	case uDow, uIsoDow:
		w := j2day(jd)
		if u == uIsoDow && w == 0 {
			w = 7
		}
		return intPart(w), nil
	case uDoy:
		return intPart(jd - types.Date2J(y, 1, 1) + 1), nil
	case uEpoch:
		return intPart((jd - unixEpochJ) * 86400), nil
	}
	return part{}, unitErr(CodeFeatureNotSupported, low, dt, "not supported")
}

func (p part) numeric() (types.Value, error) {
	switch {
	case p.null:
		return nil, nil
	case p.inf != 0:
		return &types.Decimal{Inf: p.inf}, nil
	case p.noNumeric:
		return nil, unsupported("extract(epoch from an interval) past 2^63 microseconds")
	case p.dec != nil:
		return p.dec, nil
	case p.julian:
		q, err := types.DivDecimal(types.DecimalFromInt(p.dayUs), types.DecimalFromInt(usecsPerDay))
		if err != nil {
			return nil, err
		}
		return types.AddDecimal(types.DecimalFromInt(p.n), q), nil
	}
	d := &types.Decimal{Scale: p.scale}
	d.V.SetInt64(p.n)
	return d, nil
}

func (p part) float() types.Value {
	if p.null {
		return nil
	}
	return p.f
}

func tsArg(a types.Value) types.TimestampVal { return a.(types.TimestampVal) }

func (r *Registry) addDateTime() {
	now := func(field func(c *Context) (types.TimestampVal, error)) Impl {
		return func(c *Context, _ []types.Value, _ []OID) (types.Value, error) { return field(c) }
	}
	txn := func(c *Context) (types.TimestampVal, error) {
		if c == nil || c.TxnStart.IsZero() {
			return 0, unsupported("the current time here")
		}
		return TimestampOf(c.TxnStart), nil
	}
	stmt := func(c *Context) (types.TimestampVal, error) {
		if c == nil || c.StmtStart.IsZero() {
			return 0, unsupported("the current time here")
		}
		return TimestampOf(c.StmtStart), nil
	}
	for _, n := range []string{"now", "transaction_timestamp"} {
		r.def(n, tsz, now(txn)).stable()
	}
	r.def("statement_timestamp", tsz, now(stmt)).stable()
	r.def("clock_timestamp", tsz, now(func(c *Context) (types.TimestampVal, error) {
		if c == nil || c.Clock == nil {
			return 0, unsupported("clock_timestamp() here")
		}
		return TimestampOf(c.Clock()), nil
	})).volatile()

	// partFns registers date_part (float8) and extract (numeric) over
	// type t, split by fn.
	partFns := func(t OID, fn func(low string, v types.Value) (part, error)) {
		r.def("date_part", f8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			p, err := fn(lowerUnits(str(a[0])), a[1])
			if err != nil {
				return nil, err
			}
			return p.float(), nil
		}, tx, t)
		r.def("extract", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			p, err := fn(lowerUnits(str(a[0])), a[1])
			if err != nil {
				return nil, err
			}
			return p.numeric()
		}, tx, t)
	}
	for _, t := range []OID{ts, tsz} {
		t := t
		r.def("date_trunc", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return r.dateTruncFor(lowerUnits(str(a[0])), tsArg(a[1]), t)
		}, tx, t)
		partFns(t, func(low string, v types.Value) (part, error) { return tsPart(low, tsArg(v), t) })
	}
	for _, f := range r.funcs["date_trunc"] {
		if f.Args[1] == tsz {
			f.Volatility = Stable
		}
	}
	partFns(iv, func(low string, v types.Value) (part, error) { return r.intervalPartFor(low, v.(types.IntervalVal)) })
	// date_part(text, date) is date_part($1, $2::timestamp); extract over
	// a date has its own rules (extract_date).
	r.def("date_part", f8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, err := types.Convert(a[1], dt, ts, -1)
		if err != nil {
			return nil, err
		}
		p, err := tsPart(lowerUnits(str(a[0])), tsArg(v), ts)
		if err != nil {
			return nil, err
		}
		return p.float(), nil
	}, tx, dt)
	r.def("extract", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		p, err := datePart(lowerUnits(str(a[0])), a[1].(types.DateVal))
		if err != nil {
			return nil, err
		}
		return p.numeric()
	}, tx, dt)
	r.def("date_trunc", iv, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return intervalTrunc(lowerUnits(str(a[0])), a[1].(types.IntervalVal)) // intervaltrunc.go
	}, tx, iv)
	r.def("date_trunc", tsz, refuse("date_trunc(text, timestamptz, zone)"), tx, tsz, tx)
	r.addTimeParts(partFns) // timepart.go

	r.def("make_date", dt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return makeDate(i64(a[0]), i64(a[1]), i64(a[2]))
	}, i4, i4, i4)
	r.def("make_timestamp", ts, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return makeTimestamp(i64(a[0]), i64(a[1]), i64(a[2]), i64(a[3]), i64(a[4]), f8Of(a[5]))
	}, i4, i4, i4, i4, i4, f8)

	r.def("to_timestamp", tsz, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return floatTimestamp(f8Of(a[0]))
	}, f8)
	r.addFromChar() // fromchar.go: to_date, to_timestamp(text, text)
	for _, t := range []OID{ts, tsz} {
		t := t
		r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return toChar(tsArg(a[0]), str(a[1]), t == tsz)
		}, t, tx).stable() // stable in pg_proc (lc_time, lc_numeric)
	}
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return intervalToChar(a[0].(types.IntervalVal), str(a[1])) // tochar_interval.go
	}, iv, tx).stable()
	r.addToCharNumber() // tonumchar.go
	r.addToNumber()     // tonumber.go
	// AT TIME ZONE: atZone shifts a[1] by the zone a[0] names, sign = -1 from local
	// time to UTC (timestamp → timestamptz), +1 back.
	atZone := func(sign int64) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			off, err := zoneOffset(str(a[0]))
			if err != nil {
				return nil, err
			}
			t := tsArg(a[1])
			if isInfTs(t) {
				return t, nil
			}
			return shiftTs(t, sign*off)
		}
	}
	r.def("timezone", tsz, atZone(-1), tx, ts)
	r.def("timezone", ts, atZone(+1), tx, tsz) // immutable: the zone is the argument
	r.def("timezone", tsz, refuse("AT TIME ZONE with an interval"), iv, ts)
	r.def("timezone", ts, refuse("AT TIME ZONE with an interval"), iv, tsz)
}

// shiftTs adds off seconds, 22008 out of range.
func shiftTs(t types.TimestampVal, off int64) (types.Value, error) {
	us := int64(t) + off*1000000
	if us < minTimestamp || us >= endTimestamp {
		return nil, errorf(CodeDatetimeOverflow, "timestamp out of range")
	}
	return types.TimestampVal(us), nil
}

// zoneOffset is the UTC offset (seconds east) of a zone named in AT
// TIME ZONE: UTC and its synonyms only; every other zone is refused
// rather than read from a tz database that may differ from the server's.
func zoneOffset(z string) (int64, error) {
	switch strings.ToLower(z) {
	case "utc", "gmt", "z", "zulu", "etc/utc", "etc/gmt", "uct", "etc/uct", "universal", "etc/universal", "zulu ", "gmt0", "etc/gmt0", "greenwich", "etc/greenwich":
		return 0, nil
	}
	return 0, unsupported("the time zone \"%s\" (sidecar knows UTC only)", z)
}

// dateFields checks make_date's / make_timestamp's year, month and day
// (negative years are BC) and gives the astronomical year.
func dateFields(y, m, d int64) (int64, error) {
	ay := y
	if y < 0 {
		ay = y + 1
	}
	if y == 0 || m < 1 || m > 12 || d < 1 || d > daysIn(ay, m) {
		return 0, errorf(CodeDatetimeOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	return ay, nil
}

// makeDate is make_date.
func makeDate(y, m, d int64) (types.Value, error) {
	ay, err := dateFields(y, m, d)
	if err != nil {
		return nil, err
	}
	jd := types.Date2J(ay, m, d)
	// IS_VALID_JULIAN and the date range
	if jd < 0 || jd >= 2147483494 || ay > 5874898 {
		return nil, errorf(CodeDatetimeOverflow, "date out of range: %d-%02d-%02d", y, m, d)
	}
	return types.DateVal(jd - postgresEpochJ), nil
}

func daysIn(y, m int64) int64 {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// makeTimestamp is make_timestamp.
func makeTimestamp(y, mo, d, h, mi int64, sec float64) (types.Value, error) {
	ay, err := dateFields(y, mo, d)
	if err != nil {
		return nil, err
	}
	us := math.RoundToEven(sec * 1000000)
	if h < 0 || h > 24 || mi < 0 || mi > 59 || math.IsNaN(sec) || us < 0 || us > 60*1000000 ||
		((h*60+mi)*60)*1000000+int64(us) > usecsPerDay {
		return nil, errorf(CodeDatetimeOverflow, "time field value out of range: %d:%02d:%s", h, mi, pgFloatG02(sec))
	}
	x := tm{year: ay, mon: mo, mday: d, hour: h, min: mi}
	t, err := fromTm(x)
	if err != nil {
		return nil, err
	}
	r := int64(t) + int64(us)
	if r < minTimestamp || r >= endTimestamp {
		return nil, errorf(CodeDatetimeOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", y, mo, d, h, mi, string(types.AppendFloat(nil, sec, 64)))
	}
	return types.TimestampVal(r), nil
}

// floatTimestamp is float8_timestamptz (to_timestamp(double precision)):
// Unix seconds to a timestamptz, rounded to microseconds.
func floatTimestamp(sec float64) (types.Value, error) {
	switch {
	case math.IsNaN(sec):
		return nil, errorf(CodeDatetimeOverflow, "timestamp cannot be NaN")
	case math.IsInf(sec, 1):
		return types.TimestampPosInf, nil
	case math.IsInf(sec, -1):
		return types.TimestampNegInf, nil
	}
	outOfRange := func() error {
		return errorf(CodeDatetimeOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(sec, 'g', 6, 64))
	}
	if sec < 86400*float64(0-unixEpochJ) || sec >= 86400*float64(109203528-unixEpochJ) {
		return nil, outOfRange()
	}
	us := math.RoundToEven((sec - float64((postgresEpochJ-unixEpochJ)*86400)) * 1000000)
	if us < minTimestamp || us >= endTimestamp {
		return nil, outOfRange()
	}
	return types.TimestampVal(int64(us)), nil
}

// intervalPart is interval_part_common (PostgreSQL 14+): fields of the
// interval as interval2itm splits it (C's truncating division, so a
// negative interval has negative fields).
// intervalFields is interval2itm: the interval's fields, split with C's
// truncating division so each keeps the interval's signs.
func intervalFields(v types.IntervalVal) (year, mon, day, hour, min, sec, usec int64) {
	year, mon = int64(v.Months)/12, int64(v.Months)%12
	t := v.Micros
	hour = t / 3600000000
	t -= hour * 3600000000
	min = t / 60000000
	t -= min * 60000000
	sec = t / 1000000
	return year, mon, int64(v.Days), hour, min, sec, t - sec*1000000
}

func intervalPart(low string, v types.IntervalVal) (part, error) {
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		u, ok = specialUnits[tok10(low)]
	}
	if !ok || u == uReserved {
		return part{}, unitErr(CodeInvalidParameter, low, iv, "not recognized")
	}
	year, mon, _, hour, min, sec, usec := intervalFields(v)
	if p, ok := secondsPart(u, sec, usec); ok {
		return p, nil
	}
	switch u {
	case uMinute:
		return intPart(min), nil
	case uHour:
		return intPart(hour), nil
	case uDay:
		return intPart(int64(v.Days)), nil
	case uMonth:
		return intPart(mon), nil
	case uQuarter:
		return intPart(mon/3 + 1), nil
	case uYear:
		return intPart(year), nil
	case uDecade:
		return intPart(year / 10), nil
	case uCentury:
		return intPart(year / 100), nil
	case uMillennium:
		return intPart(year / 1000), nil
	case uEpoch:
		f := float64(v.Micros) / 1000000.0
		f += (365.25 * 86400) * float64(year)
		f += (30.0 * 86400) * float64(mon)
		f += 86400.0 * float64(v.Days)
		secs := (1461*year + 120*mon + 4*int64(v.Days)) * (86400 / 4)
		p := part{f: f, scale: 6}
		if hi, lo := bits64Mul(secs, 1000000); hi == 0 && lo+v.Micros >= lo == (v.Micros >= 0) {
			p.n = lo + v.Micros
		} else {
			p.noNumeric = true
		}
		return p, nil
	}
	return part{}, unitErr(CodeFeatureNotSupported, low, iv, "not supported")
}

// bits64Mul is a × b when it fits an int64 (hi 0), else hi 1.
func bits64Mul(a, b int64) (hi int64, lo int64) {
	r := a * b
	if a != 0 && (r/a != b || a == -1 && b == math.MinInt64) {
		return 1, 0
	}
	return 0, r
}
