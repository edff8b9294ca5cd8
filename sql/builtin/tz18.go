package builtin

import (
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/types"
)

// From PostgreSQL 18 a zone name given to AT TIME ZONE (timezone()),
// date_trunc's and make_timestamptz's zone arguments is first looked up
// among the abbreviations of the session's zone (DecodeTimezoneAbbrev
// checks session_timezone before timezone_abbreviations): under SET
// TimeZone = 'UTC+3', whose one abbreviation is "UTC" at three hours
// west, AT TIME ZONE 'UTC' is three hours west; under Europe/Berlin,
// 'LMT' is Berlin's local mean time. Before 18 the Default set and the
// tz database answer (atTimeZone).

// sessionAbbrev is name's meaning as an abbreviation of the session's
// zone when the registry's major reads it so (ok), or its refusal (an
// abbreviation whose offset follows the zone's history, or when the
// major is not known and the meaning differs from the one before 18).
func (r *Registry) sessionAbbrev(c *Context, name string) (z *types.Zone, ok bool, err error) {
	yes, known := r.atLeast(180000)
	if known && !yes {
		return nil, false, nil
	}
	sess := zoneOf(c)
	if sess == nil {
		return nil, false, nil // UTC: its abbreviation UTC means UTC either way
	}
	abbrevs, err := r.sessAbbrevs.get(sess)
	if err != nil {
		return nil, false, unsupported("AT TIME ZONE under the session zone %s (its abbreviations could not be read: %v)", sess.Name, err)
	}
	for _, a := range abbrevs {
		if !strings.EqualFold(a.Name, name) {
			continue
		}
		if !a.Fixed {
			return nil, false, unsupported("the time zone \"%s\", an abbreviation of the session zone %s whose offset follows the zone's history (PostgreSQL 18 reads it so)", name, sess.Name)
		}
		if !known {
			// Before 18 the name means something else unless the Default
			// set gives it the same offset.
			if d, isDefault := zoneAbbrevs[lowerUnits(name)]; !isDefault || d.dyn != "" || d.east != a.East {
				return nil, false, unsupported("the time zone \"%s\" when the server's major is not known (from PostgreSQL 18 the session zone %s's abbreviation)", name, sess.Name)
			}
		}
		if a.Name == "" || !isLetter(a.Name[0]) {
			// make_timestamptz reads a numeric offset before abbreviations.
			return nil, false, unsupported("the time zone \"%s\", a numeric abbreviation of the session zone %s", name, sess.Name)
		}
		return types.ZoneFromSeconds(a.East), true, nil
	}
	return nil, false, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// abbrevCache holds the abbreviations of the session zones a library's
// calls have read, by zone name (a zone's file is read once, not per
// row); past maxCachedZones it starts over.
type abbrevCache struct {
	mu sync.RWMutex
	m  map[string][]types.ZoneAbbrev
}

func (c *abbrevCache) get(z *types.Zone) ([]types.ZoneAbbrev, error) {
	c.mu.RLock()
	a, ok := c.m[z.Name]
	c.mu.RUnlock()
	if ok {
		return a, nil
	}
	a, err := z.Abbrevs()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedZones {
		c.m = map[string][]types.ZoneAbbrev{}
	}
	c.m[z.Name] = a
	return a, nil
}
