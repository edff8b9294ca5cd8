package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// CollateFunc names the marker an explicit `x COLLATE name` (other than
// the database default) is bound as: Func{Name: CollateFunc, Args: {x,
// the collation's name as a text constant}}, of x's type. sql/exec
// evaluates it as x; the SQL front end derives from it which collation
// each ordering of text uses (an explicit collation wins over a
// column's, as parse_collate.c) and answers where that is an order it
// has — "C" and "POSIX" (byte order), the proven libc locales — or
// refuses with 0A000.
const CollateFunc = "pg_catalog.collate"

// collate binds an explicit COLLATE clause (not the database default).
func (b *binder) collate(cc *pg.CollateClause, sc *scope, ctx *exprCtx) (Scalar, error) {
	e, err := b.expr(cc.Arg, sc, ctx)
	if err != nil {
		return nil, err
	}
	if o := e.Type().OID; o != Text && o != Varchar && o != Bpchar && o != Name && o != Unknown {
		if IsArray(e.Type()) {
			return nil, unsupported("COLLATE on an array", cc.Location)
		}
		return nil, errorf(CodeDatatypeMismatch, "collations are not supported by type %s", typeNameOf(e.Type())).at(cc.Location)
	}
	if e.Type().OID == Unknown {
		e = coerce(e, T(Text)) // 'abc' COLLATE "C" is text
	}
	name := CollationName(cc)
	b.md.collations = append(b.md.collations, name)
	return &Func{Name: CollateFunc, Args: []Scalar{e, &Const{T: T(Text), Text: name}}, T: e.Type()}, nil
}

// Collations are the names of the explicit COLLATE clauses the
// statement was bound with (the database default's excepted), in the
// order bound, repeated as written.
func (m *Metadata) Collations() []string { return m.collations }

// CollationName is the collation cc names, its schema dropped
// (pg_catalog."C" is "C").
func CollationName(cc *pg.CollateClause) string {
	var names []string
	for _, n := range cc.Collname {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) == 2 && names[0] == "pg_catalog" {
		return names[1]
	}
	return strings.Join(names, ".")
}

// ExplicitCollation is the collation name an explicit COLLATE bound s
// with ("", false when s is not such a marker).
func ExplicitCollation(s Scalar) (string, bool) {
	f, ok := s.(*Func)
	if !ok || f.Name != CollateFunc || len(f.Args) != 2 {
		return "", false
	}
	c, _ := f.Args[1].(*Const)
	if c == nil {
		return "", false
	}
	return c.Text, true
}
