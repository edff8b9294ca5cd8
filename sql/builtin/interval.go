package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// Interval arithmetic and the functions over intervals a time-series
// query uses, as PostgreSQL's timestamp.c computes them (finite values;
// infinite intervals exist from PostgreSQL 17 on, so an answer that
// would be one is refused when the major is not known):
// interval ± interval, interval × / ÷ float8, -interval, timestamp −
// timestamp, justify_days/hours/interval, age, date_bin, isfinite,
// make_interval, OVERLAPS.

const (
	daysPerMonth = 30
	usecsPerSec  = 1000000
)

func errInterval() error { return errorf(CodeDatetimeOverflow, "interval out of range") }

func fitsInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// IntervalAdd is interval_pl (sign 1) and interval_mi (sign -1).
func IntervalAdd(a, b types.IntervalVal, sign int64) (types.IntervalVal, error) {
	m := int64(a.Months) + sign*int64(b.Months)
	d := int64(a.Days) + sign*int64(b.Days)
	var t int64
	var ok bool
	if sign > 0 {
		t, ok = addI64(a.Micros, b.Micros)
	} else {
		t, ok = subI64(a.Micros, b.Micros)
	}
	if !fitsInt32(m) || !fitsInt32(d) || !ok {
		return types.IntervalVal{}, errInterval()
	}
	return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: t}, nil
}

func mulI64(a, b int64) (int64, bool) {
	hi, lo := bits64Mul(a, b)
	return lo, hi == 0
}

func addI64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

func subI64(a, b int64) (int64, bool) {
	s := a - b
	return s, (s < a) == (b > 0)
}

// IntervalNeg is interval_um.
func IntervalNeg(a types.IntervalVal) (types.IntervalVal, error) {
	if a.Months == math.MinInt32 || a.Days == math.MinInt32 || a.Micros == math.MinInt64 {
		return types.IntervalVal{}, errInterval()
	}
	return types.IntervalVal{Months: -a.Months, Days: -a.Days, Micros: -a.Micros}, nil
}

// tsRound is TSROUND: rounded to microsecond precision.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// IntervalMul is interval_mul (div: interval_div, 22012 for a zero
// factor): months and days multiplied, their fractions cascaded down to
// days and seconds.
func IntervalMul(span types.IntervalVal, factor float64, div bool) (types.IntervalVal, error) {
	if div && factor == 0 {
		return types.IntervalVal{}, errorf(CodeDivisionByZero, "division by zero")
	}
	if math.IsNaN(factor) {
		return types.IntervalVal{}, errInterval()
	}
	if math.IsInf(factor, 0) {
		return types.IntervalVal{}, unsupported("an interval multiplied or divided by infinity (PostgreSQL 17 answers an infinite interval)")
	}
	op := func(x float64) float64 {
		if div {
			return x / factor
		}
		return x * factor
	}
	var res types.IntervalVal
	md := op(float64(span.Months))
	if math.IsNaN(md) || md > math.MaxInt32 || md < math.MinInt32 {
		return res, errInterval()
	}
	res.Months = int32(md)
	dd := op(float64(span.Days))
	if math.IsNaN(dd) || dd > math.MaxInt32 || dd < math.MinInt32 {
		return res, errInterval()
	}
	res.Days = int32(dd)
	monthRemDays := tsRound((md - float64(res.Months)) * daysPerMonth)
	secRem := tsRound((dd - float64(res.Days) + monthRemDays - float64(int32(monthRemDays))) * 86400)
	if math.Abs(secRem) >= 86400 {
		nd := int64(res.Days) + int64(int32(secRem/86400))
		if !fitsInt32(nd) {
			return res, errInterval()
		}
		res.Days = int32(nd)
		secRem -= float64(int32(secRem/86400)) * 86400
	}
	nd := int64(res.Days) + int64(int32(monthRemDays))
	if !fitsInt32(nd) {
		return res, errInterval()
	}
	res.Days = int32(nd)
	t := math.RoundToEven(op(float64(span.Micros)) + secRem*usecsPerSec)
	if math.IsNaN(t) || t < -9.223372036854775808e18 || t >= 9.223372036854775808e18 {
		return res, errInterval()
	}
	res.Micros = int64(t)
	return res, nil
}

// JustifyHours is interval_justify_hours.
func JustifyHours(v types.IntervalVal) (types.IntervalVal, error) {
	whole := v.Micros / usecsPerDay
	t := v.Micros - whole*usecsPerDay
	d := int64(v.Days) + whole
	if !fitsInt32(d) {
		return v, errInterval()
	}
	d, t = borrow(d, t, usecsPerDay)
	return types.IntervalVal{Months: v.Months, Days: int32(d), Micros: t}, nil
}

// borrow makes lo's sign hi's: one unit of hi moved into lo where their
// signs differ (the last step of the justify functions).
func borrow(hi, lo, unit int64) (int64, int64) {
	switch {
	case hi > 0 && lo < 0:
		return hi - 1, lo + unit
	case hi < 0 && lo > 0:
		return hi + 1, lo - unit
	}
	return hi, lo
}

// JustifyDays is interval_justify_days.
func JustifyDays(v types.IntervalVal) (types.IntervalVal, error) {
	whole := int64(v.Days) / daysPerMonth
	d := int64(v.Days) - whole*daysPerMonth
	m := int64(v.Months) + whole
	if !fitsInt32(m) {
		return v, errInterval()
	}
	m, d = borrow(m, d, daysPerMonth)
	return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: v.Micros}, nil
}

// JustifyInterval is interval_justify_interval (PostgreSQL 15+'s, with
// the pre-justification of days).
func JustifyInterval(v types.IntervalVal) (types.IntervalVal, error) {
	m, d, t := int64(v.Months), int64(v.Days), v.Micros
	if d > 0 && t > 0 || d < 0 && t < 0 {
		whole := d / daysPerMonth
		d -= whole * daysPerMonth
		m += whole
	}
	wholeDay := t / usecsPerDay
	t -= wholeDay * usecsPerDay
	d += wholeDay
	whole := d / daysPerMonth
	d -= whole * daysPerMonth
	m += whole
	if !fitsInt32(m) || !fitsInt32(d) {
		return v, errInterval()
	}
	switch {
	case m > 0 && (d < 0 || d == 0 && t < 0):
		d += daysPerMonth
		m--
	case m < 0 && (d > 0 || d == 0 && t > 0):
		d -= daysPerMonth
		m++
	}
	d, t = borrow(d, t, usecsPerDay)
	return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: t}, nil
}

// TimestampDiff is timestamp_mi (also timestamptz_mi): the difference
// in microseconds, whole days carried by justify_hours. Infinite
// operands are refused (22008 before PostgreSQL 17, an infinite
// interval from 17 on).
func TimestampDiff(a, b types.TimestampVal) (types.IntervalVal, error) {
	if isInfTs(a) || isInfTs(b) {
		return types.IntervalVal{}, unsupported("subtracting infinite timestamps (PostgreSQL 17 answers an infinite interval, earlier majors fail)")
	}
	d, ok := subI64(int64(a), int64(b))
	if !ok {
		return types.IntervalVal{}, errInterval()
	}
	return JustifyHours(types.IntervalVal{Micros: d})
}

// age is timestamp_age over two local times (timestamptz: read in the
// session's zone): the symbolic difference field by field, negative
// fields borrowed from the next larger one (a day borrows the length of
// the earlier operand's month).
func age(t1, t2 types.TimestampVal) (types.Value, error) {
	if isInfTs(t1) || isInfTs(t2) {
		return nil, unsupported("age() of an infinite timestamp (PostgreSQL 17 answers an infinite interval, earlier majors fail)")
	}
	a, b := toTm(t1), toTm(t2)
	fsec, sec, min, hour := a.fsec-b.fsec, a.sec-b.sec, a.min-b.min, a.hour-b.hour
	mday, mon, year := a.mday-b.mday, a.mon-b.mon, a.year-b.year
	neg := t1 < t2
	flip := func() {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	if neg {
		flip()
	}
	for fsec < 0 {
		fsec += usecsPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		// the earlier operand's month (tm_year astronomical, as
		// PostgreSQL's timestamp2tm gives it).
		y, m := b.year, b.mon
		if neg {
			y, m = a.year, a.mon
		}
		leap := 0
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			leap = 1
		}
		mday += int64([2][12]int64{
			{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
			{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
		}[leap][m-1])
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		flip()
	}
	months := year*12 + mon
	if !fitsInt32(months) || !fitsInt32(mday) {
		return nil, errInterval()
	}
	return types.IntervalVal{Months: int32(months), Days: int32(mday), Micros: ((hour*60+min)*60+sec)*usecsPerSec + fsec}, nil
}

// tsPlusInterval is timestamp_pl_interval, or for a timestamptz in zone
// z timestamptz_pl_interval (months, then days, in local time).
func tsPlusInterval(t types.TimestampVal, v types.IntervalVal, zoned bool, z *types.Zone) (types.TimestampVal, error) {
	if isInfTs(t) {
		return t, nil
	}
	step := func(t types.TimestampVal, months, days int64) (types.TimestampVal, error) {
		var err error
		if zoned {
			if t, err = z.UTCToLocal(t); err != nil {
				return 0, err
			}
		}
		x := toTm(t)
		if months != 0 {
			mon := x.year*12 + x.mon - 1 + months
			x.year, x.mon = floorQuot(mon, 12), mon-floorQuot(mon, 12)*12+1
			if n := daysIn(x.year, x.mon); x.mday > n {
				x.mday = n
			}
		}
		if t, err = fromTm(x); err != nil {
			return 0, err
		}
		if days != 0 {
			u := int64(t) + days*usecsPerDay
			if u < minTimestamp || u >= endTimestamp {
				return 0, errorf(CodeDatetimeOverflow, "timestamp out of range")
			}
			t = types.TimestampVal(u)
		}
		if zoned {
			return z.LocalToUTC(t)
		}
		return t, nil
	}
	var err error
	if v.Months != 0 {
		if t, err = step(t, int64(v.Months), 0); err != nil {
			return 0, err
		}
	}
	if v.Days != 0 {
		if t, err = step(t, 0, int64(v.Days)); err != nil {
			return 0, err
		}
	}
	u, ok := addI64(int64(t), v.Micros)
	if !ok || u < minTimestamp || u >= endTimestamp {
		return 0, errorf(CodeDatetimeOverflow, "timestamp out of range")
	}
	return types.TimestampVal(u), nil
}

func floorQuot(a, b int64) int64 {
	q, _ := floorDivMod(a, b)
	return q
}

// dateBin is date_bin: the start of the stride-wide bin from origin
// that holds t.
func dateBin(stride types.IntervalVal, t, origin types.TimestampVal) (types.Value, error) {
	if isInfTs(t) {
		return t, nil
	}
	if isInfTs(origin) {
		return nil, errorf(CodeDatetimeOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return nil, errorf(CodeFeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	hi, lo := bits64Mul(int64(stride.Days), usecsPerDay)
	if hi != 0 {
		return nil, errInterval()
	}
	s, ok := addI64(lo, stride.Micros)
	if !ok {
		return nil, errInterval()
	}
	if s <= 0 {
		return nil, errorf(CodeDatetimeOverflow, "stride must be greater than zero")
	}
	diff, ok := subI64(int64(t), int64(origin))
	if !ok {
		return nil, errInterval()
	}
	res := int64(origin) + (diff - diff%s)
	if diff < 0 && diff%s != 0 {
		if res, ok = subI64(res, s); !ok {
			return nil, errorf(CodeDatetimeOverflow, "timestamp out of range")
		}
	}
	if res < minTimestamp || res >= endTimestamp {
		return nil, errorf(CodeDatetimeOverflow, "timestamp out of range")
	}
	return types.TimestampVal(res), nil
}

// overlaps is overlaps_timestamp: NULL ends handled as the standard
// says (a NULL start takes the end, and an answer that needs a NULL end
// is NULL).
func overlaps(ts1, te1, ts2, te2 types.Value) types.Value {
	lt := func(a, b types.Value) bool { return a.(types.TimestampVal) < b.(types.TimestampVal) }
	norm := func(s, e types.Value) (types.Value, types.Value, bool) {
		if s == nil {
			if e == nil {
				return nil, nil, false
			}
			return e, nil, true
		}
		if e != nil && lt(e, s) {
			return e, s, true
		}
		return s, e, true
	}
	var ok bool
	if ts1, te1, ok = norm(ts1, te1); !ok {
		return nil
	}
	if ts2, te2, ok = norm(ts2, te2); !ok {
		return nil
	}
	switch {
	case lt(ts2, ts1):
		if te2 == nil {
			return nil
		}
		if lt(ts1, te2) {
			return true
		}
		if te1 == nil {
			return nil
		}
		return false
	case lt(ts1, ts2):
		if te1 == nil {
			return nil
		}
		if lt(ts2, te1) {
			return true
		}
		if te2 == nil {
			return nil
		}
		return false
	}
	if te1 == nil || te2 == nil {
		return nil
	}
	return true
}

func (r *Registry) addInterval() {
	ivArg := func(a types.Value) types.IntervalVal { return a.(types.IntervalVal) }
	for name, f := range map[string]func(types.IntervalVal) (types.IntervalVal, error){
		"justify_hours": JustifyHours, "justify_days": JustifyDays, "justify_interval": JustifyInterval,
	} {
		f := f
		r.def(name, iv, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return f(ivArg(a[0])) }, iv)
	}
	r.def("isfinite", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		d := a[0].(types.DateVal)
		return d != types.DatePosInf && d != types.DateNegInf, nil
	}, dt)
	for _, t := range []OID{ts, tsz} {
		r.def("isfinite", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return !isInfTs(tsArg(a[0])), nil }, t)
	}
	r.def("isfinite", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ivArg(a[0])
		if v.Months == math.MaxInt32 || v.Months == math.MinInt32 {
			return nil, unsupported("isfinite of an infinite interval (PostgreSQL 17's)")
		}
		return true, nil
	}, iv)

	// age: timestamptz's operands are read in the session's zone; the
	// one-argument form is age(current_date at midnight, t).
	local := func(c *Context, t types.TimestampVal, zoned bool) (types.TimestampVal, error) {
		if !zoned || isInfTs(t) {
			return t, nil
		}
		return zoneOf(c).UTCToLocal(t)
	}
	for _, t := range []OID{ts, tsz} {
		zoned := t == tsz
		r.def("age", iv, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
			x, err := local(c, tsArg(a[0]), zoned)
			if err != nil {
				return nil, err
			}
			y, err := local(c, tsArg(a[1]), zoned)
			if err != nil {
				return nil, err
			}
			return age(x, y)
		}, t, t) // immutable in pg_proc, timestamptz's too

		r.def("age", iv, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
			if c == nil || c.TxnStart.IsZero() {
				return nil, unsupported("the current time here")
			}
			today, err := local(c, TimestampOf(c.TxnStart), true)
			if err != nil {
				return nil, err
			}
			today = types.TimestampVal(floorQuot(int64(today), usecsPerDay) * usecsPerDay)
			y, err := local(c, tsArg(a[0]), zoned)
			if err != nil {
				return nil, err
			}
			return age(today, y)
		}, t).stable()
	}
	for _, t := range []OID{ts, tsz} {
		r.def("date_bin", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return dateBin(ivArg(a[0]), tsArg(a[1]), tsArg(a[2]))
		}, iv, t, t)
	}
	// make_interval(years, months, weeks, days, hours, mins, secs), the
	// trailing arguments defaulting to 0.
	mk := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		var f [7]types.Value
		copy(f[:], a)
		n := func(i int) int64 {
			if f[i] == nil {
				return 0
			}
			return i64(f[i])
		}
		secs := 0.0
		if f[6] != nil {
			secs = f8Of(f[6])
		}
		if math.IsInf(secs, 0) || math.IsNaN(secs) {
			return nil, errInterval()
		}
		m := n(0)*12 + n(1)
		d := n(2)*7 + n(3)
		if !fitsInt32(m) || !fitsInt32(d) {
			// PostgreSQL before 17 wraps around silently, 17 fails.
			return nil, unsupported("make_interval past the interval range (PostgreSQL's answer differs between majors)")
		}
		us := math.RoundToEven(secs * 1e6)
		if us < -9.223372036854775808e18 || us >= 9.223372036854775808e18 {
			// PostgreSQL before 17 converts out of range (the x86 result is
			// the minimum), 17 fails.
			return nil, unsupported("make_interval past the interval range (PostgreSQL's answer differs between majors)")
		}
		h, hok := mulI64(n(4), 3600*usecsPerSec)
		mi, mok := mulI64(n(5), 60*usecsPerSec)
		t, aok := addI64(h, mi)
		t, bok := addI64(t, int64(us))
		if !hok || !mok || !aok || !bok {
			return nil, unsupported("make_interval past the interval range (PostgreSQL's answer differs between majors)")
		}
		return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: t}, nil
	}
	args := []OID{i4, i4, i4, i4, i4, i4, f8}
	for k := 0; k <= 7; k++ {
		r.def("make_interval", iv, mk, args[:k]...)
	}
	r.def("make_timestamptz", tsz, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, err := makeTimestamp(i64(a[0]), i64(a[1]), i64(a[2]), i64(a[3]), i64(a[4]), f8Of(a[5]))
		if err != nil {
			return nil, err
		}
		return zoneOf(c).LocalToUTC(v.(types.TimestampVal))
	}, i4, i4, i4, i4, i4, f8).stable()
	r.def("make_timestamptz", tsz, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		z, err := r.makeTimestamptzZone(c, str(a[6])) // maketstz.go
		if err != nil {
			return nil, err
		}
		v, err := makeTimestamp(i64(a[0]), i64(a[1]), i64(a[2]), i64(a[3]), i64(a[4]), f8Of(a[5]))
		if err != nil {
			return nil, err
		}
		return z.LocalToUTC(v.(types.TimestampVal))
	}, i4, i4, i4, i4, i4, f8, tx).stable()

	// OVERLAPS: (start, end) or (start, interval) pairs of timestamps or
	// timestamptz (timestamptz + interval in the session's zone).
	for _, t := range []OID{ts, tsz} {
		zoned := t == tsz
		end := func(c *Context, s, e types.Value, p OID) (types.Value, error) {
			if p != iv {
				return e, nil
			}
			if s == nil || e == nil {
				return nil, nil
			}
			return tsPlusInterval(tsArg(s), ivArg(e), zoned, zoneOf(c))
		}
		for _, second := range []OID{t, iv} {
			for _, fourth := range []OID{t, iv} {
				f := r.def("overlaps", bo, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
					e1, err := end(c, a[0], a[1], p[1])
					if err != nil {
						return nil, err
					}
					e2, err := end(c, a[2], a[3], p[3])
					if err != nil {
						return nil, err
					}
					return overlaps(a[0], e1, a[2], e2), nil
				}, t, second, t, fourth).nonStrict()
				if zoned && (second == iv || fourth == iv) {
					f.stable() // timestamptz + interval reads the zone; four timestamptz are immutable
				}
			}
		}
	}
}
