package sqlfront

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
