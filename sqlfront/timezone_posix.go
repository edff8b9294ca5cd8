package sqlfront

import (
	"context"
	"errors"
	"regexp"

	"github.com/jackc/pgx/v5/pgconn"
)

// POSIX time zones with daylight-saving rules ('CST7CDT,M4.1.0,M10.5.0',
// 'EST5EDT4,M3.2.0/2,M11.1.0/2', '<-03>3<-02>'): PostgreSQL's pg_tzset
// parses them (tzparse) when no tz database file has the name, and a
// session computes local times under their rules. Sidecar reads only the
// tz database and fixed offsets (types.ParseZone), so such a value is
// refused with 0A000 naming it rather than PostgreSQL's 22023 for a zone
// it does not know: the followed server is asked whether it takes the
// value (Options.ZoneOffsets) and, where it refuses it too, the 22023
// stands; where it cannot be asked, a value of that shape is refused
// 0A000. A value of any other shape keeps the 22023 without asking.

// posixDSTZone matches the start of a POSIX TZ value with a DST part:
// a standard name (3+ letters or <quoted>), its offset, a DST name.
var posixDSTZone = regexp.MustCompile(`^(<[^>]*>|[A-Za-z]{3,})[+-]?[0-9]{1,3}(:[0-9]{1,2}){0,2}(<[^>]*>|[A-Za-z]{3,})`)

// unknownZone answers SET TimeZone of a value types.ParseZone did not
// take (parseErr: its 22023).
func (s *session) unknownZone(ctx context.Context, val string, parseErr error) error {
	if !posixDSTZone.MatchString(val) {
		return typesErr(parseErr)
	}
	if s.srv != nil && s.srv.opts.ZoneOffsets != nil {
		_, err := s.srv.opts.ZoneOffsets(ctx, val, []int64{0})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "22023" {
			return typesErr(parseErr) // the server does not take it either
		}
	}
	return errf(codeUnsupported, -1, "TimeZone %q is not supported by sidecar's SQL front end: a POSIX time zone with daylight-saving rules is not computed (only the tz database's zones and fixed offsets are)", val).
		hint("a tz database zone such as 'America/Chicago', or a fixed offset such as 'UTC+6', is supported")
}
