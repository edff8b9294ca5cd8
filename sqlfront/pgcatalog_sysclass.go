package sqlfront

import (
	"slices"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// PostgreSQL's bootstrap catalogs in pg_class. Clients join
// pg_description's classoid to pg_class by name to tell a function's
// comment from another object's (pgjdbc's getProcedures:
// `LEFT JOIN pg_class c ON d.classoid = c.oid AND c.relname =
// 'pg_proc'`), which named a system relation pg_class did not list:
// refused. pg_class lists the four bootstrap catalogs (pg_type,
// pg_attribute, pg_proc, pg_class: their OIDs and row types are fixed
// in PostgreSQL's headers, the same on 14 to 18) with what is the same
// on every server — schema pg_catalog, owner the bootstrap superuser
// (10), heap, permanent, not shared, indexed —, relnatts as the
// followed major has it (18 dropped attcacheoff and added relallfrozen;
// unknown when the major was not read), and every other value
// (relfilenode: mapped catalogs move on VACUUM FULL; statistics; ACL)
// unknown. A pg_class scan is proven for them
// only by relname = or IN their names (every other proof restricts the
// rows to user objects, which excludes them).

// systemClass is a bootstrap catalog's fixed OIDs.
type systemClass struct {
	name     string
	oid, typ uint32
	// natts and natts18 are relnatts on 14–17 and from 18 (read from
	// 14.23, 16.14, 17.10 and 18.4's initdb, 15.18's).
	natts, natts18 int64
}

var systemClasses = []systemClass{{"pg_type", 1247, 71, 32, 32}, {"pg_attribute", 1249, 75, 26, 25}, {"pg_proc", 1255, 81, 30, 30}, {"pg_class", 1259, 83, 33, 34}}

// systemClassRows are the bootstrap catalogs' pg_class rows (in
// pg_class's base layout, pgcatalog.go).
func systemClassRows(version int) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, c := range systemClasses {
		natts := u
		switch {
		case version >= 180000 || version != 0 && c.natts == c.natts18:
			natts = iv(c.natts18)
		case version != 0 || c.natts == c.natts18:
			natts = iv(c.natts)
		}
		out = append(out, []*string{u32(c.oid), sv(c.name), sv("11"), u32(c.typ), sv("0"), sv("10"), sv("2"), u, sv("0"), u, u, u, u, sv("t"), sv("f"),
			sv("p"), sv("r"), natts, sv("0"), sv("f"), sv("f"), sv("f"), sv("f"), sv("f"), sv("t"), u, sv("f"), sv("0"), u, u, u, nil, nil})
	}
	return out
}

// systemClassVisible is pg_table_is_visible of the bootstrap catalog
// name under path: pg_catalog is searched first unless the path names it
// elsewhere, and a schema before it holding a relation of that name
// (has) hides it.
func systemClassVisible(path []string, name string, has func(schema string) bool) bool {
	if !slices.Contains(path, "pg_catalog") {
		return true
	}
	for _, p := range path {
		if p == "pg_catalog" {
			return true
		}
		if has(p) {
			return false
		}
	}
	return true
}

// systemClassNames says whether a pg_class scan's condition (relname =
// or IN constants) names only bootstrap catalogs.
func systemClassNames(op string, other []lplan.Scalar) bool {
	if op != "=" && op != "in" || len(other) == 0 {
		return false
	}
	for _, o := range other {
		k, ok := constText([]lplan.Scalar{o})
		found := false
		for _, c := range systemClasses {
			found = found || ok && k == c.name
		}
		if !found {
			return false
		}
	}
	return true
}
