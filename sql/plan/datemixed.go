package plan

// mixedDateTime rewrites +/- between date/time types PostgreSQL resolves
// through an implicit cast rather than an operator of its own (the
// operand pairs dateArith does not list): timestamp - date, date -
// timestamptz and the like cast the lower of the two to the other's type
// (date < timestamp < timestamptz; timestamp_mi, timestamptz_mi: the
// date becomes midnight, in the session's zone for timestamptz); a time
// beside a date or timestamp is the interval since midnight (date +
// time is date_pl_time, whose value is date::timestamp + time::interval;
// timestamp ± time is timestamp ± interval; time + date puts the date
// first, + commuting exactly). interval + date and int + date are
// commuted before (commutedDateArith). ok is false when the pair is not
// one of these.
func mixedDateTime(op string, l, r Scalar) (Scalar, Scalar, bool) {
	if op != "+" && op != "-" {
		return l, r, false
	}
	lt, rt := l.Type().OID, r.Type().OID
	rank := func(o OID) int {
		switch o {
		case Date:
			return 1
		case Timestamp:
			return 2
		case Timestamptz:
			return 3
		}
		return 0
	}
	castTo := func(e Scalar, o OID) Scalar {
		if e.Type().OID == o {
			return e
		}
		return &Cast{Arg: e, T: T(o)}
	}
	switch {
	case op == "-" && rank(lt) > 0 && rank(rt) > 0 && lt != rt:
		to := lt
		if rank(rt) > rank(lt) {
			to = rt
		}
		return castTo(l, to), castTo(r, to), true
	case rank(lt) > 0 && rt == Time:
		if lt == Date {
			l = castTo(l, Timestamp)
		}
		return l, castTo(r, Interval), true
	case op == "+" && lt == Time && rank(rt) > 0:
		if rt == Date {
			r = castTo(r, Timestamp)
		}
		return r, castTo(l, Interval), true
	}
	return l, r, false
}
