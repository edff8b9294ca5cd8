package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// goneTableAt finds schema.name among the followed tables PostgreSQL no
// longer has (dropped or renamed away, mirror/gone.go) when the version
// the statement reads (AS OF, sidecar.as_of) still has it: HEAD does not
// (42P01, as PostgreSQL), a version before the drop reads its rows. Nil
// when the source keeps no such tables or the version lacks it.
func (pl *planner) goneTableAt(schema, name, asOf string) *Table {
	g, ok := pl.src.(interface{ GoneTables() []Table })
	if !ok || pl.sess == nil {
		return nil
	}
	for _, t := range g.GoneTables() {
		if t.Schema != schema || t.Rel != name {
			continue
		}
		v, err := pl.sess.versionFor(pl.ctx, asOf)
		if err != nil {
			return nil
		}
		if _, err := pl.src.Table(pl.ctx, v, t.Name); err != nil {
			return nil // HEAD (ErrUnknownTable), or not readable then
		}
		return &t
	}
	return nil
}

// withoutGoneRelations leaves the gone tables (and their indexes and
// owned sequences) out of the relation list the other tables' facts
// carry (facts section 'w', pgcatalog_relations.go) while that list is
// older than the drop. The dropped poll marks a table gone at once; the
// list is read by the catalog poll, up to one poll later: until then it
// still names the dropped table, which pg_class would list (and a FROM
// would refuse as "not followed") where PostgreSQL has no such
// relation. A list that no longer names the table under its old schema
// and name was read after the drop (a table renamed away keeps its OID
// and is listed under its new name): it is kept as read.
func withoutGoneRelations(tables, gone []Table) {
	if len(gone) == 0 {
		return
	}
	type listed struct {
		schema, name string
		oid          uint32
	}
	stale := map[uint32][]listed{} // a gone table's OID: the table, its indexes and owned sequences as followed
	for i := range gone {
		g := &gone[i]
		rels := []listed{{g.Schema, g.Rel, g.OID}}
		if s := schemaFactsOf(g); s != nil {
			for _, x := range s.Indexes {
				rels = append(rels, listed{g.Schema, x.Name, x.OID})
			}
		}
		_, ns := (&pgCatCtx{tables: []Table{*g}}).namespaces()
		for _, q := range listedSequences(g, ns) { // pgcatalog_seq.go
			rels = append(rels, listed{q.Schema, q.Name, q.OID})
		}
		stale[g.OID] = rels // not its partitioned parents: they may stay
	}
	filtered := map[*wal.RelationListFacts]*wal.RelationListFacts{}
	for i := range tables {
		t := &tables[i]
		if t.Facts == nil || t.Facts.Schema == nil || t.Facts.Schema.Relations == nil || t.Facts.Schema.Relations.Relations == nil {
			continue
		}
		l := t.Facts.Schema.Relations
		nl, done := filtered[l]
		if !done {
			nl = dropStaleRelations(l, func(oid uint32, schema, name string) []uint32 {
				rels := stale[oid] // rels[0] is the table itself
				if len(rels) == 0 || rels[0].schema != schema || rels[0].name != name {
					return nil
				}
				drop := make([]uint32, len(rels))
				for i, r := range rels {
					drop[i] = r.oid
				}
				return drop
			})
			filtered[l] = nl
		}
		if nl == l {
			continue
		}
		f, s := *t.Facts, *t.Facts.Schema
		s.Relations = nl
		f.Schema = &s
		t.Facts = &f
	}
}

// dropStaleRelations is l without the relations staleOf names for a
// listed relation (by OID), or l itself when it names none.
func dropStaleRelations(l *wal.RelationListFacts, staleOf func(oid uint32, schema, name string) []uint32) *wal.RelationListFacts {
	nsName := map[uint32]string{}
	for _, n := range l.Namespaces {
		nsName[n.OID] = n.Name
	}
	drop := map[uint32]bool{}
	for _, r := range l.Relations {
		for _, oid := range staleOf(r.OID, nsName[r.Namespace], r.Name) {
			drop[oid] = true
		}
	}
	if len(drop) == 0 {
		return l
	}
	out := &wal.RelationListFacts{Namespaces: l.Namespaces, Relations: []wal.RelationDetail{}}
	for _, r := range l.Relations {
		if !drop[r.OID] {
			out.Relations = append(out.Relations, r)
		}
	}
	return out
}
