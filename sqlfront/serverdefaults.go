package sqlfront

import (
	"context"
	"strconv"
	"strings"
)

// A client that sets no TimeZone, DateStyle or IntervalStyle (psql, most
// drivers but pgjdbc) gets the server's: its postgresql.conf, ALTER
// SYSTEM, ALTER DATABASE … SET. A session of the SQL front end starts
// from the followed server's values (Options.SessionDefaults), so that
// `SELECT ts FROM t` prints the same local times as PostgreSQL would —
// before, sessions started at UTC whatever the server's zone, and a
// psql user of a server at America/New_York read every timestamptz
// five hours off. The values are the ones a plain connection of the
// follow user to the followed database sees (role and database
// settings included); another role's own settings are not known.
//
// A server zone the sidecar cannot use — not in its tz database (a slim
// container without tzdata), or with offsets the server disagrees on —
// does not fail the connection: SHOW prints it and the statements over
// date/time values are refused (0A000) until a SET TimeZone.
//
// A server DateStyle outside ISO (SQL, Postgres, German) is kept as the
// session's (SHOW prints it) and statements that would print a date or
// time under it are refused (vecPlan.settingsFollowed), as is an
// IntervalStyle other than postgres: sidecar prints ISO dates and
// postgres-style intervals only.

// SessionDefaults are the followed server's defaults for a new session,
// as SHOW prints them ("" where not known: sidecar's own default).
type SessionDefaults struct {
	TimeZone      string
	DateStyle     string
	IntervalStyle string
	LcMonetary    string // money_locale.go
	// Settings are every parameter's value (lower-case name → SHOW's
	// text: SELECT name, current_setting(name) FROM pg_settings), what
	// SHOW prints of one the session never SET (settings_params.go).
	// Never changed once published: the reader replaces the map.
	Settings map[string]string
}

// applyServerDefaults starts the session from the server's defaults:
// they are also what RESET returns to. A server zone the sidecar cannot
// use leaves the session refusing date/time statements (zoneUnknown):
// answering in UTC would print other times.
func (s *session) applyServerDefaults(ctx context.Context) error {
	if s.srv.opts.SessionDefaults == nil {
		return nil
	}
	d := s.srv.opts.SessionDefaults()
	if v := strings.TrimSpace(d.DateStyle); v != "" {
		s.resetTo("datestyle", v)
	}
	if v := strings.TrimSpace(d.IntervalStyle); v != "" {
		s.resetTo("intervalstyle", v)
	}
	if v := strings.TrimSpace(d.LcMonetary); v != "" {
		s.resetTo("lc_monetary", v)
	}
	if v := strings.TrimSpace(d.TimeZone); v != "" {
		if err := s.setTimeZone(ctx, &v); err != nil {
			// A zone the sidecar has no data for (a slim image without
			// tzdata) or whose offsets differ from the server's: the
			// session keeps the server's name and refuses the
			// statements whose values depend on it (settingsFollowed),
			// never answering them at UTC.
			s.zone, s.zoneUnknown = nil, v
			s.settings["timezone"] = v
		}
		s.zoneDefault, s.zoneDefaultUnknown = s.zone, s.zoneUnknown
	}
	return nil
}

// resetTo makes v the session's value of name and RESET's.
func (s *session) resetTo(name, v string) {
	if s.defaults == nil {
		s.defaults = map[string]string{}
	}
	s.defaults[name] = v
	s.settings[name] = v
}

// settingDefault is RESET's value of name: the server's default when
// one was read (applyServerDefaults), else sidecar's.
func (s *session) settingDefault(name string) (string, bool) {
	if v, ok := s.defaults[name]; ok {
		return v, true
	}
	v, ok := sessionDefaults[name]
	return v, ok
}

// printsISODates says whether the session's DateStyle prints dates and
// times as sidecar does (ISO).
func (s *session) printsISODates() bool {
	if s == nil {
		return true
	}
	v, ok := s.settings["datestyle"]
	return !ok || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(v)), "ISO")
}

// printsPostgresIntervals says whether the session's IntervalStyle is
// postgres, the style the flat evaluator prints.
func (s *session) printsPostgresIntervals() bool {
	if s == nil {
		return true
	}
	v, ok := s.settings["intervalstyle"]
	return !ok || strings.EqualFold(strings.TrimSpace(v), "postgres")
}

// unknownZoneRefusal refuses, under a server zone the session cannot use
// (zoneUnknown), a statement whose text may read or print a local time:
// a literal or cast folded while planning ('2024-03-10 02:00'::timestamptz
// read at UTC answered another comparison than PostgreSQL's) leaves no
// date/time column for settingsFollowed to see. Statements reading
// date/time columns are refused there (vexec.go).
func (pl *planner) unknownZoneRefusal(text string) error {
	s := pl.sess
	if s == nil || s.zoneUnknown == "" || pl.afterSet {
		return nil // after a SET of the same query: checked when planned again
	}
	low := strings.ToLower(text)
	for _, w := range []string{"::", "cast", "time", "date", "interval", "zone", "now", "current_", "localtime", "epoch", "infinity", "age", "extract", "date_part", "to_char", "to_timestamp", "make_"} {
		if strings.Contains(low, w) || len(pl.params) > 0 {
			return unsupported(-1, "the followed server's TimeZone "+strconv.Quote(s.zoneUnknown)+" in this statement").
				hint("sidecar's time zone data lacks it or disagrees with the server's; SET TimeZone to a zone it has (install the tzdata package)")
		}
	}
	return nil
}
