package sqlfront

import (
	"fmt"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// Explicit COLLATE on sql/exec (issue 21, session 17). sql/plan binds
// `x COLLATE name` (name not the database default) as a marker
// (sql/plan/collate.go) and lists the names bound. Here each name is
// resolved to a collation sidecar knows — "C", "POSIX" and "ucs_basic"
// (byte order), a collation of a followed column, the database
// default's libc locale by its name — or the statement is refused with
// 0A000 naming it. The collation deriver (collate_derive.go) lets an
// explicit collation win over a column's and the default, as
// parse_collate.c does, and the statement's orderings are then checked
// as any others (vexec_facts.go): answered when they all use byte order
// (C = byte order: the answer is exact) or all one proven libc locale,
// refused otherwise. The case mapping (lower/upper/initcap/ILIKE) counts
// the explicit collations among those a value can carry
// (vexec_casemap.go).

// byteOrderNames are the collations whose order is byte order in every
// major sidecar follows.
var byteOrderNames = map[string]bool{"C": true, "POSIX": true, "ucs_basic": true}

// explicitCollation resolves the collation name of an explicit COLLATE
// (ok false: not one sidecar knows).
func (pl *planner) explicitCollation(name string, def wal.Collation, tables map[*lplan.TableDef]*Table) (wal.Collation, bool) {
	if byteOrderNames[name] {
		locale := "libc C"
		if name == "POSIX" {
			locale = "libc POSIX"
		}
		return wal.Collation{Name: name, Locale: locale, Order: wal.CollBytes}, true
	}
	for _, t := range tables {
		if c, ok := columnCollation(t, name); ok {
			return c, true
		}
	}
	for _, t := range pl.src.Tables() {
		if c, ok := columnCollation(&t, name); ok {
			return c, true
		}
	}
	if strings.HasPrefix(def.Locale, "libc ") && sameLocaleName(strings.TrimPrefix(def.Locale, "libc "), name) {
		c := def
		c.Name = name
		return c, true
	}
	return wal.Collation{}, false
}

// columnCollation is the collation named name of one of t's text
// columns.
func columnCollation(t *Table, name string) (wal.Collation, bool) {
	for _, c := range t.Columns {
		if c.Collation.Name == name {
			return c.Collation, true
		}
	}
	return wal.Collation{}, false
}

// sameLocaleName says whether two libc locale names name one locale
// (glibc reads the codeset case- and dash-insensitively: en_US.UTF-8 is
// en_US.utf8, the name initdb's collations are created under).
func sameLocaleName(a, b string) bool {
	norm := func(s string) string {
		lang, codeset, ok := strings.Cut(s, ".")
		if !ok {
			return s
		}
		return lang + "." + strings.ReplaceAll(strings.ToLower(codeset), "-", "")
	}
	return norm(a) == norm(b)
}

// explicitCollations resolves the statement's explicit COLLATE names,
// or refuses it (0A000) naming one sidecar does not know.
func (pl *planner) explicitCollations(md *lplan.Metadata, def wal.Collation, tables map[*lplan.TableDef]*Table) (map[string]wal.Collation, error) {
	names := md.Collations()
	if len(names) == 0 {
		return nil, nil
	}
	out := map[string]wal.Collation{}
	for _, n := range names {
		c, ok := pl.explicitCollation(n, def, tables)
		if !ok {
			return nil, unsupported(-1, fmt.Sprintf("COLLATE %q (a collation sidecar does not know the order of)", n)).
				hint(`sidecar orders text under COLLATE "C", "POSIX", the database default and its followed columns' proven libc collations`)
		}
		out[n] = c
	}
	return out, nil
}
