package builtin

import (
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// TestSessionZoneAbbrevByMajor: from PostgreSQL 18 AT TIME ZONE reads a
// name that is an abbreviation of the session's zone as that zone means
// it (TestGrafanaZones on 18, zone UTC+3: AT TIME ZONE 'UTC' three hours
// west); before 18, and for names the session zone does not use, the
// Default set and the tz database answer.
func TestSessionZoneAbbrevByMajor(t *testing.T) {
	zone := func(s string) *types.Zone {
		z, err := types.ParseZone(s)
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	at := func(t *testing.T, version int, session, name string, when types.TimestampVal) (int64, error) {
		r := NewFor(types.Dialect{Version: version})
		z, err := r.atTimeZone(&Context{Zone: zone(session)}, name)
		if err != nil {
			return 0, err
		}
		return z.OffsetAt(when), nil
	}
	for _, c := range []struct {
		version       int
		session, name string
		east          int64
		err           string
	}{
		{180000, "UTC+3", "UTC", -3 * 3600, ""},
		{180000, "utc+3", "utc", -3 * 3600, ""},
		{170000, "UTC+3", "UTC", 0, ""},
		{180000, "UTC+3", "Europe/Berlin", 3600, ""},
		{180000, "<+05>-05", "+05", 0, "0A000"}, // a numeric abbreviation: refused
		{180000, "Europe/Berlin", "LMT", 3208, ""},
		{170000, "Europe/Berlin", "LMT", 0, "22023"},
		{180000, "Europe/Berlin", "CET", 3600, ""},
		{180000, "America/New_York", "EST", -5 * 3600, ""},
		{180000, "America/New_York", "UTC", 0, ""},
	} {
		east, err := at(t, c.version, c.session, c.name, 0) // 2000-01-01, winter
		code := ""
		if err != nil {
			code = err.(*Error).Code
		}
		if code != c.err || err == nil && east != c.east {
			t.Errorf("%d under %s: AT TIME ZONE '%s': offset %d, error %v; want %d, %q", c.version, c.session, c.name, east, err, c.east, c.err)
		}
	}
}

// TestZoneAbbrevsOfTZif reads a zone's abbreviations from its file:
// Berlin's LMT, CET, CEST, CEMT, each of one offset.
func TestZoneAbbrevsOfTZif(t *testing.T) {
	z, err := types.ParseZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	abbrevs, err := z.Abbrevs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"LMT": 3208, "CET": 3600, "CEST": 7200, "CEMT": 10800}
	for _, a := range abbrevs {
		if w, ok := want[a.Name]; !ok || w != a.East || !a.Fixed {
			t.Errorf("abbreviation %+v, want one of %v, fixed", a, want)
		}
		delete(want, a.Name)
	}
	if len(want) != 0 {
		t.Errorf("abbreviations %v not read (read %+v)", want, abbrevs)
	}
}
