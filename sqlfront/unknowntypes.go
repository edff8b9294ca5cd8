package sqlfront

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// Columns of a type the type catalog does not know (a user-defined range,
// composite, enum or base type, a domain, an extension's type, xml,
// point, tsvector, pg_lsn, …) are carried as their output text. Text
// semantics are PostgreSQL's only for passing the value through (its
// output text), IS [NOT] NULL on a type that is not composite, count,
// and a cast to text or varchar where pg_cast has no cast of its own
// (the cast is then the type's output function). Every other use —
// comparing, ordering, grouping, hashing, another cast, a function —
// would compare or compute on the text ('[1.0,2)' and '[1,2)' are one
// float8 range), so it is refused with 0A000 naming the type. The type's
// facts (wal.ColumnType: typtype under its domains, whether a cast to a
// string type exists) are read at copy and by the catalog poll; a record
// written before lacks them, and what needs them is refused until a poll
// or a resync reads them.

// unknownType is what the followed tables' facts say of a column type
// the type catalog does not know.
type unknownType struct {
	facts wal.ColumnType
	read  bool // the facts were read (false: a record written before)
}

// unknownTypes maps the OIDs of the followed columns' types the type
// catalog does not know to their facts, built once per statement.
func (pl *planner) unknownTypes() map[uint32]unknownType {
	if pl.unknown != nil {
		return pl.unknown
	}
	m := map[uint32]unknownType{}
	for _, t := range pl.src.Tables() {
		var cts []wal.ColumnType
		if t.Facts != nil && len(t.Facts.ColumnTypes) == len(t.Columns) {
			cts = t.Facts.ColumnTypes
		}
		for i, c := range t.Columns {
			if types.Known(c.TypeOID) || c.TypeOID == oidUnknown {
				continue
			}
			u := unknownType{facts: wal.ColumnType{Name: unknownTypeName(c)}}
			if cts != nil {
				u.facts, u.read = cts[i], true
			}
			if prev, ok := m[c.TypeOID]; !ok || !prev.read {
				m[c.TypeOID] = u
			}
			// A domain column is planned by its base type (domaincols.go):
			// a base type the catalog does not know (an enum, a range) is
			// carried as text too, and sql/exec's errors name it.
			if b, ok := domainBase(&t, i); ok && !types.Known(b.OID) {
				if _, ok := m[b.OID]; !ok {
					m[b.OID] = u
				}
			}
		}
	}
	pl.unknown = m
	return m
}

// unknownTypeName names a column's type for a message when its facts
// were not read: its pgoutput type name (a domain's base type's), or its
// OID.
func unknownTypeName(c Column) string {
	if c.TypeName != "" {
		return c.TypeName
	}
	return "type " + strconv.FormatUint(uint64(c.TypeOID), 10)
}

// opaqueType reports whether t is a followed column's type the type
// catalog does not know, and its facts. Other types outside the catalog
// (void: pg_sleep(0)::text) are not columns' and keep the planners'
// answers.
func (pl *planner) opaqueType(t uint32) (unknownType, bool) {
	if types.Known(t) || t == oidUnknown || t == 0 {
		return unknownType{}, false
	}
	u, ok := pl.unknownTypes()[t]
	return u, ok
}

// opaqueRefusal is the 0A000 refusing what (a comparison, a function, …)
// on a value of such a type.
func opaqueRefusal(pos int, u unknownType, what string) *Error {
	return unsupported(pos, what+" on a value of type "+u.facts.Name+" (a type sidecar's SQL engine does not know)").
		hint("sidecar carries such a column as its output text: it answers the column itself, IS [NOT] NULL (not on a composite type), count and a cast to text; cast it to text for anything else")
}

// nullTestRefusal refuses IS [NOT] NULL on a value of a composite type
// (PostgreSQL's is true when every field is NULL: '(,)'::pair IS NULL)
// or of a type whose facts were not read.
func (pl *planner) nullTestRefusal(e expr, pos int) error {
	u, ok := pl.opaqueType(pl.typeOf(e))
	if !ok {
		return nil
	}
	switch {
	case !u.read:
		return opaqueRefusal(pos, u, "IS NULL (the type's facts are not read yet: a composite type's IS NULL tests its fields)")
	case u.facts.Kind == 'c':
		return opaqueRefusal(pos, u, "IS NULL (on a composite type it tests each field)")
	}
	return nil
}

// opaqueCastRefusal refuses a cast from such a type unless to is text
// or varchar and pg_cast has no cast of the type to them other than its
// output function (the text sidecar holds).
func (pl *planner) opaqueCastRefusal(from, to uint32, pos int) error {
	u, ok := pl.opaqueType(from)
	if !ok || from == to {
		return nil
	}
	switch {
	case to != oidText && to != oidVarchar:
		return opaqueRefusal(pos, u, "a cast to "+typeName(to))
	case !u.read:
		return opaqueRefusal(pos, u, "a cast to "+typeName(to)+" (the type's casts are not read yet)")
	case u.facts.StringCast:
		return opaqueRefusal(pos, u, "a cast to "+typeName(to)+" (the type has a cast of its own, which need not print its output text)")
	case u.facts.Kind == 'e' || u.facts.Array && pl.enumArray(from):
		// sql/exec casts it, checking the stored label against the
		// version's labels (a renamed label's old text: enum_stale.go).
		return opaqueRefusal(pos, u, "a cast to "+typeName(to)+" (an enum's label is checked on the engine)")
	}
	return nil
}

// sameColumnTypes says whether a and b (one table at two moments) have
// the same column type facts, so that a cached plan, which refused or
// cast a column by them, is planned again when the poll changes them.
func sameColumnTypes(a, b *Table) bool {
	var ca, cb []wal.ColumnType
	if a.Facts != nil {
		ca = a.Facts.ColumnTypes
	}
	if b.Facts != nil {
		cb = b.Facts.ColumnTypes
	}
	return (ca == nil) == (cb == nil) && slices.Equal(ca, cb)
}

// opaqueNames finds "type N" (types.NameOf) and "oidN" (sql/plan's
// Type.String) in a message.
var opaqueNames = regexp.MustCompile(`\btype (\d+)\b|\boid(\d+)\b`)

// opaqueError rewrites an error the planners gave about a value of a
// followed column's type the type catalog does not know — a function or
// operator not found (42883), a value not usable as another type
// (42804), a cast (42846), a construct not supported (0A000) — into a
// 0A000 naming the type: whether PostgreSQL has the function, operator
// or cast for it, sidecar cannot know.
func (pl *planner) opaqueError(err error) error {
	var e *Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case codeUndefinedFunc, codeDatatype, codeCannotCoerce, codeUnsupported:
	default:
		return err
	}
	var named *unknownType
	msg := opaqueNames.ReplaceAllStringFunc(e.Msg, func(s string) string {
		m := opaqueNames.FindStringSubmatch(s)
		n, perr := strconv.ParseUint(m[1]+m[2], 10, 32)
		if perr != nil {
			return s
		}
		u, ok := pl.unknownTypes()[uint32(n)]
		if !ok {
			return s
		}
		named = &u
		return u.facts.Name
	})
	if named == nil {
		return err
	}
	out := *e
	out.Msg = msg
	if enumOperatorMissing(*named, e.Code, msg) {
		return &out // enum.go: PostgreSQL has no such operator either
	}
	if e.Code != codeUnsupported {
		out.Code = codeUnsupported
		out.Msg = strings.TrimSuffix(msg, ".") + " (" + named.facts.Name + " is a type sidecar's SQL engine does not know)"
	}
	out.Hint = opaqueRefusal(-1, *named, "").Hint
	return &out
}
