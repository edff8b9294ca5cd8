package sqlfront

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// multirangeRefusal refuses a statement that reads a table with a
// multirange column (int4multirange, …, or a user range's multirange,
// known by its type name): the type catalog keeps the built-in range
// types (types/rangetype.go) but no multirange, whose values carried as
// their text would compare as text (nummultirange's {[1.5,2)} and
// {[1.50,2)} are equal). A refusal, never a different answer.
func (pl *planner) multirangeRefusal(stmt *pg.Node) error {
	return eachRangeVar(stmt, func(rv *pg.RangeVar) error { // partroot_vec.go
		t, err := pl.table(rv, pl.asOf[int(rv.Location)])
		if err != nil || t == nil {
			return nil // a CTE's name, or a table the planners report
		}
		for i, c := range t.Columns {
			name, ok := types.IsMultirange(planColumnType(t, i).OID) // domaincols.go: a domain over one too
			if !ok && strings.Contains(strings.ToLower(c.TypeName), "multirange") {
				name, ok = c.TypeName, true
			}
			if ok {
				return unsupported(int(rv.Location), "the multirange column "+c.Name+" of "+t.Name+" (type "+name+")").
					hint("sidecar serves the range types (int4range, tstzrange, …) but no multirange yet")
			}
		}
		return nil
	})
}

// zoneParamText is a text-format parameter of type timestamptz or
// tstzrange read in the session's zone (a time without an offset is a
// local time, as PostgreSQL's timestamptz_in under TimeZone) and given
// as its UTC text, which the evaluator and sql/exec read again alike;
// other types' text unchanged. Before, such a parameter was read as UTC
// whatever the session's TimeZone.
func (s *session) zoneParamText(t uint32, txt string) (string, error) {
	z := s.sessionZone()
	if z.IsUTC() || t != oidTimestamptz && t != types.Tstzrange {
		return txt, nil
	}
	v, err := types.InIn(t, -1, txt, z)
	if err != nil {
		return "", typesErr(err)
	}
	return types.Out(t, v), nil
}
