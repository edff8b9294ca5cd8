package pgparams

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SQLSTATEs of the errors below.
const (
	CodeInvalidValue = "22023" // ERRCODE_INVALID_PARAMETER_VALUE
	CodeCantChange   = "55P02" // ERRCODE_CANT_CHANGE_RUNTIME_PARAM
	CodeNoPrivilege  = "42501" // ERRCODE_INSUFFICIENT_PRIVILEGE
	CodeUndefined    = "42704" // ERRCODE_UNDEFINED_OBJECT
	CodeNotSupported = "0A000" // a value sidecar cannot check as PostgreSQL does
	memoryUnitsHint  = `Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`
	timeUnitsHint    = `Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`
	intRangeHint     = "Value exceeds integer range."
	maxUnitLen       = 3 // MAX_UNIT_LEN: longer unit text is garbage
	bytesPerKB       = 1024
	microsPerMilli   = 1000
	microsPerSecond  = 1000 * microsPerMilli
	microsPerMinute  = 60 * microsPerSecond
	microsPerHour    = 60 * microsPerMinute
	microsPerDay     = 24 * microsPerHour
	intMax, intMin   = math.MaxInt32, math.MinInt32
)

// Error is PostgreSQL's error for a SET: its SQLSTATE, message and hint.
type Error struct {
	Code, Message, Hint string
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CheckSet is PostgreSQL's refusal of SET (or RESET) of p named name by a
// session that is not a superuser's, nil when the parameter may be set
// (set_config_option's context checks, which come before the value is
// read). starting says the value comes from the startup packet, where
// backend parameters may still be set.
func (p *Param) CheckSet(name string, starting bool) *Error {
	switch p.Context {
	case "internal":
		return errorf(CodeCantChange, "parameter \"%s\" cannot be changed", name)
	case "postmaster":
		return errorf(CodeCantChange, "parameter \"%s\" cannot be changed without restarting the server", name)
	case "sighup":
		return errorf(CodeCantChange, "parameter \"%s\" cannot be changed now", name)
	case "superuser":
		return errorf(CodeNoPrivilege, "permission denied to set parameter \"%s\"", name)
	case "superuser-backend", "backend":
		if starting && p.Context == "superuser-backend" {
			return errorf(CodeNoPrivilege, "permission denied to set parameter \"%s\"", name)
		}
		if !starting {
			return errorf(CodeCantChange, "parameter \"%s\" cannot be set after connection start", name)
		}
	}
	return nil
}

// unitConv is one row of PostgreSQL's unit conversion tables, its size
// in the smallest unit of its kind (bytes, microseconds).
type unitConv struct {
	unit string
	size float64
}

var memoryUnits = []unitConv{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
var timeUnits = []unitConv{{"d", microsPerDay}, {"h", microsPerHour}, {"min", microsPerMinute}, {"s", microsPerSecond}, {"ms", microsPerMilli}, {"us", 1}}

// baseUnit is the table and the size of one base unit of p's values in
// the table's smallest unit (pg_settings.unit "8kB": 8192 bytes), nil
// for a parameter without a unit.
func (p *Param) baseUnit() ([]unitConv, float64) {
	u := p.Unit
	n := 1.0
	if i := strings.IndexFunc(u, func(r rune) bool { return r < '0' || r > '9' }); i > 0 {
		k, _ := strconv.Atoi(u[:i])
		n, u = float64(k), u[i:]
	}
	for _, c := range memoryUnits {
		if c.unit == u {
			return memoryUnits, n * c.size
		}
	}
	for _, c := range timeUnits {
		if c.unit == u {
			return timeUnits, n * c.size
		}
	}
	return nil, 0
}

// convertToBase is convert_to_base_unit: value in unit text rest
// (whitespace around it allowed) in p's base unit; a fractional value is
// rounded to the next smaller unit.
func (p *Param) convertToBase(value float64, rest string) (float64, bool) {
	table, base := p.baseUnit()
	rest = strings.TrimRight(rest, cSpace)
	if len(rest) > maxUnitLen || strings.ContainsAny(rest, cSpace) {
		return 0, false
	}
	for i, c := range table {
		if c.unit != rest {
			continue
		}
		v := value * (c.size / base)
		if i+1 < len(table) {
			next := table[i+1].size / base
			v = math.RoundToEven(v/next) * next
		}
		return v, true
	}
	return 0, false
}

// cSpace are C's isspace characters.
const cSpace = " \t\n\v\f\r"

// strtod is C's strtod over the longest prefix of s that is a number:
// the value, the rest, and whether a number was read (false too for a
// value out of double's range, as ERANGE).
func strtod(s string) (float64, string, bool) {
	t := strings.TrimLeft(s, cSpace)
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	low := strings.ToLower(t[i:])
	for _, w := range []string{"infinity", "inf", "nan"} {
		if strings.HasPrefix(low, w) {
			v, _ := strconv.ParseFloat(t[:i+len(w)], 64)
			return v, t[i+len(w):], true
		}
	}
	digits := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, s, false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || math.Abs(v) < 0x1p-1022 && !allZeroMantissa(t[:i]) {
		return 0, s, false // ERANGE: overflow, or underflow to zero or a denormal
	}
	return v, t[i:], true
}

// allZeroMantissa says whether the mantissa of number text n is zero.
func allZeroMantissa(n string) bool {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	return strings.Trim(n, "+-.0") == ""
}

// strtol is C's strtol(s, &end, 0) over long: decimal, 0x hex, 0 octal;
// overflow reports false (ERANGE).
func strtol(s string) (int64, string, bool, bool) {
	t := strings.TrimLeft(s, cSpace)
	i := 0
	neg := false
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		neg = t[i] == '-'
		i++
	}
	base := 10
	switch {
	case len(t) > i+2 && t[i] == '0' && (t[i+1] == 'x' || t[i+1] == 'X') && isDigit(t[i+2], 16):
		base, i = 16, i+2
	case len(t) > i && t[i] == '0':
		base = 8
	}
	j := i
	for j < len(t) && isDigit(t[j], base) {
		j++
	}
	if j == i {
		return 0, s, false, false
	}
	u, err := strconv.ParseUint(t[i:j], base, 64)
	if err != nil || !neg && u > math.MaxInt64 || neg && u > 1<<63 {
		return 0, t[j:], true, true
	}
	v := int64(u)
	if neg {
		v = -v
	}
	return v, t[j:], true, false
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		return true
	}
	return false
}

// unitHint is parse_int's and parse_real's hint for a bad unit.
func (p *Param) unitHint() string {
	if t, _ := p.baseUnit(); len(t) > 0 && t[0].unit == "TB" {
		return memoryUnitsHint
	}
	return timeUnitsHint
}

// invalidValue is parse_and_validate_value's error for a value that
// does not read.
func invalidValue(name, value, hint string) *Error {
	e := errorf(CodeInvalidValue, "invalid value for parameter \"%s\": \"%s\"", name, value)
	e.Hint = hint
	return e
}

// withUnit is val read with the unit text after it (rest: whitespace
// and a unit, or nothing) in p's base unit; false and the hint for a
// unit p does not take or garbage.
func (p *Param) withUnit(val float64, rest string) (float64, string, bool) {
	rest = strings.TrimLeft(rest, cSpace)
	if rest == "" {
		return val, "", true
	}
	if p.Unit == "" {
		return 0, "", false
	}
	v, ok := p.convertToBase(val, rest)
	if !ok {
		return 0, p.unitHint(), false
	}
	return v, "", true
}

// ParseInt is parse_int: the value in p's base unit, or PostgreSQL's
// error (without the range check).
func (p *Param) ParseInt(name, value string) (int64, *Error) {
	bad := func(hint string) *Error { return invalidValue(name, value, hint) }
	var val float64
	iv, rest, ok, rangeErr := strtol(value)
	if !ok {
		rest = value // strtol's end pointer: where it started
	}
	switch {
	case rangeErr || len(rest) > 0 && (rest[0] == '.' || rest[0] == 'e' || rest[0] == 'E'):
		var okf bool
		if val, rest, okf = strtod(value); !okf {
			return 0, bad("")
		}
	case !ok:
		return 0, bad("")
	default:
		val = float64(iv)
	}
	if math.IsNaN(val) {
		return 0, bad("")
	}
	val, hint, ok := p.withUnit(val, rest)
	if !ok {
		return 0, bad(hint)
	}
	val = math.RoundToEven(val)
	if val > intMax || val < intMin {
		return 0, bad(intRangeHint)
	}
	return int64(val), nil
}

// ParseReal is parse_real: the value in p's base unit, or PostgreSQL's
// error (without the range check).
func (p *Param) ParseReal(name, value string) (float64, *Error) {
	bad := func(hint string) *Error { return invalidValue(name, value, hint) }
	if strings.Contains(strings.ToLower(value), "0x") {
		return 0, &Error{Code: CodeNotSupported, Message: fmt.Sprintf("a hexadecimal value for parameter \"%s\" is not supported by sidecar", name)}
	}
	val, rest, okd := strtod(value)
	if !okd || math.IsNaN(val) {
		return 0, bad("")
	}
	val, hint, ok := p.withUnit(val, rest)
	if !ok {
		return 0, bad(hint)
	}
	return val, nil
}

// ParseBool is parse_bool: true, false, yes, no, on, off, 1, 0 and their
// unambiguous prefixes, any case.
func ParseBool(value string) (bool, bool) {
	v := strings.ToLower(value)
	switch {
	case v == "":
		return false, false
	case strings.HasPrefix("true", v), strings.HasPrefix("yes", v):
		return true, true
	case strings.HasPrefix("false", v), strings.HasPrefix("no", v):
		return false, true
	case v == "on":
		return true, true
	case len(v) >= 2 && strings.HasPrefix("off", v):
		return false, true
	case v == "1":
		return true, true
	case v == "0":
		return false, true
	}
	return false, false
}

// unitName is get_config_unit_name: pg_settings.unit.
func (p *Param) unitSuffix() string {
	if p.Unit == "" {
		return ""
	}
	return " " + p.Unit
}

// socketParams are the parameters whose values are the client socket's
// (show hooks read them back from it; the OS may ignore or cap a SET):
// a SET on sidecar's socket says nothing of what PostgreSQL's would.
var socketParams = map[string]bool{"tcp_keepalives_idle": true, "tcp_keepalives_interval": true, "tcp_keepalives_count": true, "tcp_user_timeout": true}

// boundUnit is the unit after the bounds of a range error: none before
// 17.
func boundUnit(major int, p *Param) string {
	if major > 0 && major < 17 {
		return ""
	}
	return p.unitSuffix()
}

// formatReal is "%g" of PostgreSQL's snprintf (Infinity, NaN spelled
// out).
func formatReal(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// ShowInt is SHOW's text of an integer in p's base unit: the largest
// unit dividing it evenly (positive values only).
func (p *Param) ShowInt(v int64) string {
	table, base := p.baseUnit()
	if v <= 0 || table == nil {
		return strconv.FormatInt(v, 10)
	}
	for _, c := range table {
		m := c.size / base
		if m <= 1 || v%int64(m) == 0 {
			return strconv.FormatInt(int64(float64(v)/m), 10) + c.unit
		}
	}
	return strconv.FormatInt(v, 10)
}

// ShowReal is SHOW's text of a real in p's base unit: the largest unit
// giving (within 1e-8) an integer, else the smallest.
func (p *Param) ShowReal(v float64) string {
	table, base := p.baseUnit()
	if v <= 0 || table == nil {
		return formatReal(v)
	}
	var out float64
	var unit string
	for _, c := range table {
		out, unit = v/(c.size/base), c.unit
		if out > 0 && math.Abs(math.RoundToEven(out)/out-1) <= 1e-8 {
			break
		}
	}
	return formatReal(out) + unit
}

// Value is a parameter's value as SHOW prints it and as pg_settings'
// setting column holds it (in the base unit, without one).
type Value struct {
	Show, Setting string
}

// Normalize reads value for p as SET does (after CheckSet) and returns
// it as SHOW and pg_settings print it, or PostgreSQL's error (major's
// wording: from 17 the range's bounds carry the unit too). A string
// parameter's value is checked by PostgreSQL against its catalogs or
// locales and printed in a form of its own: refused (0A000) unless it is
// current, the session's present value.
func (p *Param) Normalize(major int, name, value, current string) (Value, *Error) {
	if socketParams[strings.ToLower(p.Name)] {
		return Value{}, &Error{Code: CodeNotSupported, Message: fmt.Sprintf("SET %s (a value of the client's socket) is not supported by sidecar", p.Name)}
	}
	switch p.VarType {
	case "bool":
		b, ok := ParseBool(value)
		if !ok {
			return Value{}, errorf(CodeInvalidValue, "parameter \"%s\" requires a Boolean value", name)
		}
		s := map[bool]string{true: "on", false: "off"}[b]
		return Value{s, s}, nil
	case "integer":
		v, err := p.ParseInt(name, value)
		if err != nil {
			return Value{}, err
		}
		lo, _ := strconv.ParseInt(p.Min, 10, 64)
		hi, _ := strconv.ParseInt(p.Max, 10, 64)
		if v < lo || v > hi {
			u, bu := p.unitSuffix(), boundUnit(major, p)
			return Value{}, errorf(CodeInvalidValue, "%d%s is outside the valid range for parameter \"%s\" (%d%s .. %d%s)", v, u, name, lo, bu, hi, bu)
		}
		if err := p.intHook(v); err != nil {
			return Value{}, err
		}
		return Value{p.ShowInt(v), strconv.FormatInt(v, 10)}, nil
	case "real":
		v, err := p.ParseReal(name, value)
		if err != nil {
			return Value{}, err
		}
		lo, _ := strconv.ParseFloat(p.Min, 64)
		hi, _ := strconv.ParseFloat(p.Max, 64)
		if v < lo || v > hi {
			u, bu := p.unitSuffix(), boundUnit(major, p)
			return Value{}, errorf(CodeInvalidValue, "%s%s is outside the valid range for parameter \"%s\" (%s%s .. %s%s)", formatReal(v), u, name, formatReal(lo), bu, formatReal(hi), bu)
		}
		return Value{p.ShowReal(v), formatReal(v)}, nil
	case "enum":
		for _, e := range p.EnumVals {
			if strings.EqualFold(e, value) {
				return Value{e, e}, nil
			}
		}
		for _, a := range p.Aliases {
			k, v, _ := strings.Cut(a, "=")
			if strings.EqualFold(k, value) {
				return Value{v, v}, nil
			}
		}
		e := errorf(CodeInvalidValue, "invalid value for parameter \"%s\": \"%s\"", name, value)
		e.Hint = "Available values: " + strings.Join(p.EnumVals, ", ") + "."
		return Value{}, e
	}
	if value == current {
		return Value{value, value}, nil
	}
	return Value{}, &Error{Code: CodeNotSupported, Message: fmt.Sprintf("SET %s to a value other than its present one is not supported by sidecar", p.Name),
		Hint: "PostgreSQL checks this parameter's values against its catalogs or locales, and sidecar cannot"}
}

// intHook is the check hooks of integer parameters whose valid values
// are not a range (pg_settings cannot say): vacuum_buffer_usage_limit is
// 0 or 128 kB to 16 GB.
func (p *Param) intHook(v int64) *Error {
	if strings.EqualFold(p.Name, "vacuum_buffer_usage_limit") && v > 0 && v < 128 {
		e := errorf(CodeInvalidValue, "invalid value for parameter \"%s\": %d", p.Name, v)
		return e
	}
	return nil
}

// Setting is pg_settings.setting of a value SHOW printed (the server's
// current_setting): the same text but for integers and reals with a
// unit, counted in the base unit.
func (p *Param) Setting(show string) string {
	if len(show) > 1 && show[0] == '0' && p.VarType == "integer" {
		return show // file modes, shown in octal (log_file_mode 0600) in both
	}
	switch p.VarType {
	case "integer":
		if v, err := p.ParseInt(p.Name, show); err == nil {
			return strconv.FormatInt(v, 10)
		}
	case "real":
		if v, err := p.ParseReal(p.Name, show); err == nil {
			return formatReal(v)
		}
	}
	return show
}
