package sqlfront

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// This file is the session's TimeZone (docs/DESIGN.md, "Time zones"):
// the startup parameter and SET/RESET/SHOW TimeZone, the text output of
// timestamptz in the session's zone, and the routing of statements that
// read or compute local times to sql/exec, which evaluates them in the
// zone (the flat evaluator holds date/time values as UTC text and is
// used only while the zone is UTC, or for statements that touch no
// date/time value). Binary output stays UTC microseconds, as
// PostgreSQL's.

// setTimeZone applies SET TimeZone (val nil: RESET, to the startup
// packet's zone or UTC).
func (s *session) setTimeZone(ctx context.Context, val *string) error {
	if val == nil {
		s.zone, s.zoneUnknown = s.zoneDefault, s.zoneDefaultUnknown
		s.settings["timezone"] = s.sessionZone().Name
		if s.zoneUnknown != "" {
			s.settings["timezone"] = s.zoneUnknown // serverdefaults.go
		}
		return nil
	}
	v := strings.TrimSpace(*val)
	if strings.EqualFold(v, "default") || strings.EqualFold(v, "local") {
		return s.setTimeZone(ctx, nil)
	}
	z, err := types.ParseZone(*val)
	if err != nil {
		return s.unknownZone(ctx, *val, err) // timezone_posix.go
	}
	if err := s.srv.verifyZone(ctx, z); err != nil { // timezone_verify.go
		return err
	}
	s.zone, s.zoneUnknown = z, ""
	s.settings["timezone"] = z.Name
	return nil
}

// startupTimeZone applies a TimeZone parameter of the startup packet
// (pgjdbc sends the JVM's zone in every one).
func (s *session) startupTimeZone(ctx context.Context) error {
	for k, v := range s.startup {
		if strings.EqualFold(k, "timezone") {
			if err := s.setTimeZone(ctx, &v); err != nil {
				return err
			}
		}
	}
	return nil
}

// sessionZone is the session's zone (UTC when unset).
func (s *session) sessionZone() *types.Zone {
	if s == nil || s.zone == nil {
		return types.UTCZone()
	}
	return s.zone
}

// zoneText is the text of a timestamptz column value (UTC text as the
// flat evaluator and the stored rows hold it) in the session's zone.
func (s *session) zoneText(t uint32, txt string) (string, error) {
	z := s.sessionZone()
	if z.IsUTC() || t != oidTimestamptz && t != types.Tstzrange {
		return txt, nil
	}
	v, err := types.In(t, -1, txt)
	if err != nil {
		return "", typesErr(err)
	}
	return types.OutIn(t, v, z), nil
}

// zoneRoutesToVec says whether a SELECT the flat planner accepted must
// run on sql/exec instead: outside UTC, any statement with a cast, a
// function, a parameter, a typed literal or a date/time column may read
// or print a local time, which the flat evaluator would do at UTC.
//
// A DateStyle other than ISO or an IntervalStyle other than postgres
// (the server's default, serverdefaults.go, or SET) routes them too:
// sql/exec prints under them or refuses (before, the flat evaluator
// answered `SELECT interval '1 day 2 hours'` as 1 day 02:00:00 under a
// server IntervalStyle iso_8601, where PostgreSQL prints P1DT2H).
func (pl *planner) zoneRoutesToVec(text string) bool {
	if pl.sess == nil || pl.sess.sessionZone().IsUTC() && pl.sess.printsISODates() && pl.sess.printsPostgresIntervals() && pl.sess.zoneUnknown == "" {
		return false
	}
	if len(pl.params) > 0 {
		return true
	}
	for _, it := range pl.p.from {
		if it.table == nil {
			continue
		}
		for _, c := range it.table.Columns {
			if isDateTime(c.TypeOID) || c.TypeOID == types.Tstzrange || isDateTime(c.Base) || c.Base == types.Tstzrange { // domaincols.go: a domain over one too
				return true
			}
		}
	}
	low := strings.ToLower(text)
	for _, w := range []string{"::", "cast", "(", "time", "date", "interval", "zone", "now", "current_", "localtime"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// timeZoneSetValue reads SET TIME ZONE INTERVAL '…' [HOUR TO MINUTE]:
// the fixed zone's name (ok false: not an interval value).
func timeZoneSetValue(a *pg.Node) (string, bool, error) {
	tc := a.GetTypeCast()
	if tc == nil || tc.Arg.GetAConst() == nil || tc.Arg.GetAConst().GetSval() == nil {
		return "", false, nil
	}
	names := tc.TypeName.GetNames()
	if len(names) == 0 || names[len(names)-1].GetString_().GetSval() != "interval" {
		return "", false, nil
	}
	v, err := types.In(types.Interval, -1, tc.Arg.GetAConst().GetSval().Sval)
	if err != nil {
		return "", true, typesErr(err)
	}
	iv := v.(types.IntervalVal)
	if iv.Months != 0 {
		return "", true, errf("22023", -1, "invalid interval value for time zone: month not allowed")
	}
	if iv.Days != 0 {
		return "", true, errf("22023", -1, "invalid interval value for time zone: day not allowed")
	}
	return types.ZoneFromSeconds(iv.Micros / 1000000).Name, true, nil
}
