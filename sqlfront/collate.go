package sqlfront

import (
	"fmt"
	"sort"

	"github.com/sidecar-dev/sidecar/wal"
)

// Collations (issue 21 item 12). sidecar compares text by its UTF-8 bytes.
// That is PostgreSQL's order only under a byte-order collation (C, POSIX,
// ucs_basic, glibc's C.UTF-8, the builtin provider); under a libc locale
// or an ICU collation PostgreSQL orders otherwise, and under a
// nondeterministic one even equality differs. The copy reads each
// column's collation and the database's default (replication/relmeta.go);
// here every ordering use of text — comparisons, BETWEEN, ORDER BY,
// min/max — and, under a nondeterministic collation, every equality, is
// checked against the collation PostgreSQL would use, and refused with
// 0A000 naming it when that is not byte order.
//
// The collation PostgreSQL uses is derived from the operands
// (parse_collate.c): an explicit COLLATE wins (only byte-order ones are
// accepted, see collate), then a column's non-default collation, then
// the database default. sidecar derives it conservatively: an explicit
// COLLATE counts only at the top of an operand, every column read
// anywhere inside an operand counts, so a query may be refused that
// PostgreSQL answers in byte order, never answered in another order.

// collationCheck says whether comparing (or sorting) the text operands
// es is answered as PostgreSQL would: nil when the derived collation is
// byte order (or, for equality, any deterministic one), else the 0A000
// refusal naming it.
func (pl *planner) collationCheck(pos int, equality bool, es ...expr) error {
	use, explicit, err := pl.deriveCollation(pos, es...)
	if err != nil || explicit {
		return err
	}
	switch use.Order {
	case wal.CollUnknown, wal.CollBytes:
		return nil
	case wal.CollOther, wal.CollLibc:
		if equality {
			return nil // a deterministic collation's equality is byte equality
		}
		if use.Order == wal.CollLibc { // sql/exec answers it (collate_libc.go); not a facts refusal
			return unsupported(pos, fmt.Sprintf("ordering text under the locale %s in the flat planner", use.Locale))
		}
	}
	what := "ordering text under the collation"
	if use.Order == wal.CollNondeterministic {
		what = "comparing text under the nondeterministic collation"
	}
	return unsupported(pos, fmt.Sprintf("%s %q (%s)", what, use.Name, use.Locale)).
		hint(`sidecar compares text in byte order: write COLLATE "C" to compare that way`)
}

// deriveCollation is the collation PostgreSQL applies to the text operands
// es (see the file comment); explicit when a COLLATE clause (byte order)
// decides it.
func (pl *planner) deriveCollation(pos int, es ...expr) (use wal.Collation, explicit bool, err error) {
	implicit := map[string]wal.Collation{}
	for _, e := range es {
		if pl.explicitColl[stripTextCasts(e)] {
			explicit = true
			continue
		}
		walk(e, func(x expr) {
			c, ok := x.(*colExpr)
			if !ok || c.idx >= len(pl.scope) {
				return
			}
			coll := pl.scope[c.idx].coll
			if coll.Name == "" && pl.scope[c.idx].typ == oidName {
				coll = nameCollation // catalog columns of type name
			}
			if coll.Name != "" && coll.Name != "default" {
				implicit[coll.Name] = coll
			}
		})
	}
	if explicit {
		return wal.Collation{}, true, nil
	}
	switch len(implicit) {
	case 0:
		return pl.defaultCollation(), false, nil
	case 1:
		for _, c := range implicit {
			use = c
		}
		return use, false, nil
	}
	names := make([]string, 0, len(implicit))
	for n := range implicit {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return use, false, unsupported(pos, "comparing text of the collations "+fmt.Sprint(names)).
		hint(`write COLLATE "C" on one side to compare in byte order`)
}

// nameCollation is the collation of type name (PostgreSQL 12+): "C".
var nameCollation = wal.Collation{Name: "C", Locale: "libc C", Order: wal.CollBytes}

// stripTextCasts is e without casts between text types (which keep an
// explicit collation in PostgreSQL).
func stripTextCasts(e expr) expr {
	for {
		c, ok := e.(*castExpr)
		if !ok || !isTextType(c.typ()) || !isTextType(c.arg.typ()) {
			return e
		}
		e = c.arg
	}
}

// defaultCollation is the database's default collation as the tables
// read know it (the copy records it with each table): the first of the
// statement's tables, else any followed table's; zero when none says.
func (pl *planner) defaultCollation() wal.Collation {
	for _, it := range pl.p.from {
		if it.table != nil && it.table.Facts != nil {
			return it.table.Facts.Default
		}
	}
	if pl.dbDefault == nil {
		pl.dbDefault = &wal.Collation{}
		for _, t := range pl.src.Tables() {
			if t.Facts != nil {
				*pl.dbDefault = t.Facts.Default
				break
			}
		}
	}
	return *pl.dbDefault
}

// textOrderCheck is collationCheck for operands of type t: types other
// than text have no collation.
func (pl *planner) textOrderCheck(pos int, t uint32, equality bool, es ...expr) error {
	if !isTextType(t) {
		return nil
	}
	return pl.collationCheck(pos, equality, es...)
}
