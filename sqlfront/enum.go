package sqlfront

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/sql/exec"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// User enum types on sql/exec (sql/plan enum.go, sql/exec enum.go). The
// labels are the facts' pg_enum rows (wal.UserTypeFacts, read with the
// schemas at the copy and by each catalog poll, carried by one table):
// a table read at a version gets the labels recorded at that version, so
// `AS OF` a version before an ALTER TYPE … ADD VALUE or RENAME VALUE
// reads that version's labels. Each enum column of a table the binder
// reads carries its type's labels (lplan.ColumnDef.Enum), and the binder
// resolves an enum's name in a cast ('ok'::mood) through the catalog
// (EnumType). The flat planner refuses every computation on an enum
// column (unknowntypes.go), so those statements come here.

// enumTypesOf builds the enum types the facts u record (nil: none read),
// named as format_type names them under the session's search path.
func (pl *planner) enumTypesOf(tables []Table, u *wal.UserTypeFacts) map[uint32]*types.Enum {
	if u == nil {
		return nil
	}
	labels := map[uint32][]types.EnumLabel{}
	for _, l := range u.Labels {
		labels[l.TypeOID] = append(labels[l.TypeOID], types.EnumLabel{Sort: l.SortOrder, Label: l.Label})
	}
	var path []string
	if pl.sess != nil {
		path = searchPathOf(pl.sess)
	}
	out := map[uint32]*types.Enum{}
	for _, t := range u.Types {
		if t.Type != 'e' {
			continue
		}
		name := t.Name
		if v, ok, err := formatListedType(tables, path, t.OID, nil); ok && err == nil {
			if s, isStr := v.(string); isStr {
				name = s
			}
		}
		// Stored texts a renamed label had are refused (enum_stale.go).
		out[t.OID] = types.NewEnum(t.OID, name, t.Array, labels[t.OID]).WithAmbiguous(u.AmbiguousLabels(t.OID))
	}
	return out
}

// enumsAt are the enum types at AS OF ref ("": the statement's version):
// the user type facts of the table carrying them, read at that version.
func (c *vecCatalog) enumsAt(ref string) map[uint32]*types.Enum {
	tables := c.pl.src.Tables()
	if ref == "" {
		return c.pl.enumTypesOf(tables, userTypes(tables))
	}
	v, err := c.pl.sess.versionFor(c.pl.ctx, ref)
	if err != nil {
		return nil
	}
	var at []Table
	for _, t := range tables {
		if s := schemaFactsOf(&t); s == nil || s.UserTypes == nil {
			continue
		}
		old, err := c.pl.src.Table(c.pl.ctx, v, t.Name)
		if err != nil {
			continue
		}
		at = append(at, old)
	}
	return c.pl.enumTypesOf(at, userTypes(at))
}

// setColumnEnums gives d's enum columns their type's labels at ref.
func (c *vecCatalog) setColumnEnums(d *lplan.TableDef, ref string) {
	var enums map[uint32]*types.Enum
	for i := range d.Columns {
		oid := d.Columns[i].Type.OID
		if !types.IsUserOID(oid) {
			continue
		}
		if enums == nil {
			if enums = c.enumsAt(ref); enums == nil {
				return // not read: the columns stay refused (sql/exec's scan)
			}
		}
		d.Columns[i].Enum = enums[oid]
	}
}

// EnumType implements lplan.EnumCatalog: the enum type of that name, at
// the statement's version, the first type of the name on the search
// path (nil when that is not an enum, or none is).
func (c *vecCatalog) EnumType(schema, name string) *types.Enum {
	tables := c.pl.src.Tables()
	u := userTypes(tables)
	if u == nil {
		return nil
	}
	ns := map[uint32]string{}
	for _, n := range u.Namespaces {
		ns[n.OID] = n.Name
	}
	path := []string{schema}
	if schema == "" {
		path = []string{"pg_catalog", "public"}
		if c.pl.sess != nil {
			path = searchPathOf(c.pl.sess)
			if !slices.Contains(path, "pg_catalog") {
				path = append([]string{"pg_catalog"}, path...)
			}
		}
	}
	for _, p := range path {
		for _, t := range u.Types {
			if t.Name != name || ns[t.Namespace] != p {
				continue
			}
			if t.Type != 'e' {
				return nil
			}
			return c.pl.enumTypesOf(tables, u)[t.OID]
		}
	}
	return nil
}

// enumDecoder decodes an enum column's stored label (the page's text)
// with the column's labels.
func enumDecoder(def *lplan.ColumnDef, oid, rel uint32) colDecoder {
	return func(pv heap.PageView, col, slot int) (types.Value, error) {
		return exec.DecodeColumn(def, oid, string(appendPageText(nil, pv, heap.KindForOID(rel), col, slot)))
	}
}

// enumParam is bound parameter n of enum type e: its text read as a
// label (22P02 for one e lacks, as enum_in).
func enumParam(e *types.Enum, v Value, n int) (types.Value, error) {
	txt, ok := render(v, types.Text)
	if !ok {
		return nil, unsupported(-1, "parameter $"+strconv.Itoa(n)+" of type "+e.Name+" on this path")
	}
	return e.In(txt)
}

// planEnum says whether t is an enum type the statement's sql/exec plan
// reads.
func planEnum(p *plan, t uint32) bool {
	return p != nil && p.vec != nil && p.vec.query != nil && p.vec.query.MD.Enum(t) != nil
}

// enumComparison matches a missing comparison operator's message.
var enumComparison = regexp.MustCompile(`^operator does not exist: (\S+) (=|<>|<|>|<=|>=) (\S+)$`)

// enumOperatorMissing says whether msg, an undefined-operator error on
// an enum u, is a comparison of the enum with another type: PostgreSQL
// compares an enum only with its own type (enum = text, mood = size are
// 42883 there too), so the error stands rather than a refusal.
func enumOperatorMissing(u unknownType, code, msg string) bool {
	if code != codeUndefinedFunc || !u.read || u.facts.Kind != 'e' || u.facts.Array {
		return false
	}
	m := enumComparison.FindStringSubmatch(msg)
	return m != nil && m[1] != m[3]
}
