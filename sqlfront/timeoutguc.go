package sqlfront

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// statement_timeout as PostgreSQL reads and shows it (a GUC in
// milliseconds, guc.c's parse_int and _ShowOption): a number, integer or
// not, with an optional unit among us, ms, s, min, h and d (none: ms),
// rounded to whole milliseconds, 0 to 2147483647; shown in the largest
// of those units that divides it ("6ms", "90s", "1min", "0"). Before, SHOW
// printed the value as it was written ("6", "1.5s", "10 s", "0s") and
// units like d or us failed.

// timeoutUnits are the units of a millisecond GUC, largest first.
var timeoutUnits = []struct {
	name string
	ms   float64
}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}, {"us", 0.001}}

// parseTimeout reads a statement_timeout value.
func parseTimeout(v string) (time.Duration, error) {
	raw := v
	v = strings.TrimSpace(v)
	invalid := func(hint bool) error {
		e := errf(codeInvalidParam, -1, "invalid value for parameter \"statement_timeout\": \"%s\"", raw)
		if hint {
			return e.hint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
		}
		return e
	}
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-' || v[i] == '+' || v[i] == 'e' || v[i] == 'E') {
		i++
	}
	num, unit := v[:i], strings.TrimSpace(v[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, invalid(false)
	}
	mult := 1.0
	if unit != "" {
		found := false
		for _, u := range timeoutUnits {
			if unit == u.name {
				mult, found = u.ms, true
			}
		}
		if !found {
			return 0, invalid(true)
		}
	}
	ms := math.RoundToEven(f * mult) // rint
	if ms < 0 || ms > math.MaxInt32 {
		return 0, errf(codeInvalidParam, -1, "%s ms is outside the valid range for parameter \"statement_timeout\" (0 .. 2147483647)", strconv.FormatFloat(ms, 'f', -1, 64))
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// formatTimeout is SHOW's text of a statement_timeout.
func formatTimeout(d time.Duration) string {
	ms := d.Milliseconds()
	if ms == 0 {
		return "0"
	}
	for _, u := range timeoutUnits[:5] {
		if n := int64(u.ms); ms%n == 0 {
			return fmt.Sprintf("%d%s", ms/n, u.name)
		}
	}
	return fmt.Sprintf("%dms", ms)
}
