package sqlfront

import (
	"github.com/sidecar-dev/sidecar/internal/pgast"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A target, HAVING or ORDER BY expression that is one of the GROUP BY
// expressions (SELECT date_trunc('hour', ts), count(*) ... GROUP BY 1) is
// the group's value, as in PostgreSQL, which matches whole expressions
// before it checks the columns inside them. The grouped evaluator runs
// after-grouping expressions over the group's first row, so such an
// expression, evaluated there, is the group's key value: the columns
// inside it are allowed. Before, every column inside it was refused with
// 42803 as ungrouped (issue 21).

// groupNodeMatches reports whether n is, up to token locations, the parse
// tree of a GROUP BY expression that is not a plain column (columns are
// matched by inGroup) and calls no volatile function (random() in GROUP
// BY is one value per group; evaluated again it would be another).
func (pl *planner) groupNodeMatches(n *pg.Node) bool {
	if !pl.aggMode || pl.inAgg || n.GetColumnRef() != nil || n.GetAConst() != nil {
		return false
	}
	m := nodeMsg(n)
	if m == nil {
		return false
	}
	for _, g := range pl.groupNodes {
		if gm := nodeMsg(g); gm != nil && sameTree(m, gm) && !callsVolatile(g) {
			return true
		}
	}
	return false
}

// sameTree compares two parse trees field by field, ignoring location
// fields.
func sameTree(a, b protoreflect.Message) bool {
	if a.Descriptor().FullName() != b.Descriptor().FullName() {
		return false
	}
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Name() == "location" {
			continue
		}
		if a.Has(fd) != b.Has(fd) {
			return false
		}
		if !a.Has(fd) {
			continue
		}
		av, bv := a.Get(fd), b.Get(fd)
		switch {
		case fd.IsList():
			al, bl := av.List(), bv.List()
			if al.Len() != bl.Len() {
				return false
			}
			for j := 0; j < al.Len(); j++ {
				if !sameValue(fd, al.Get(j), bl.Get(j)) {
					return false
				}
			}
		case fd.IsMap():
			return false // no parse node has maps
		default:
			if !sameValue(fd, av, bv) {
				return false
			}
		}
	}
	return true
}

func sameValue(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return sameTree(a.Message(), b.Message())
	}
	return a.Equal(b)
}

// volatileFuncs are the functions whose value changes between calls in
// one statement.
var volatileFuncs = map[string]bool{"random": true, "clock_timestamp": true, "timeofday": true, "gen_random_uuid": true, "nextval": true, "setseed": true,
	"pg_sleep": true, "pg_sleep_for": true, "pg_sleep_until": true}

func callsVolatile(n *pg.Node) bool {
	found := false
	pgast.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if fc, ok := m.Interface().(*pg.FuncCall); ok {
			name := strings.TrimPrefix(qualName(fc.Funcname), "pg_catalog.")
			found = found || volatileFuncs[name]
		}
		return !found
	})
	return found
}
