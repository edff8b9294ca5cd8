package sqlfront

// unqualifiedSchema is the schema an unqualified relation name resolves
// to under the session's search_path, as PostgreSQL resolves it: the
// first schema of the path holding a relation of that name. The sidecar
// knows only the followed relations (tables, the views over them), so a
// relation of that name PostgreSQL has in an earlier schema of the path
// that is not followed is not seen — the same assumption the catalog
// makes. With no followed relation of that name on the path the name
// resolves to public, whose lookup then fails naming it (42P01) or finds
// a partitioned root or a view there. Before (session 11), every
// unqualified name was read in public whatever search_path said: `SET
// search_path = s; SELECT count(*) FROM things` counted public.things.
func (pl *planner) unqualifiedSchema(name string) string {
	if pl.sess == nil {
		return "public"
	}
	tables := pl.src.Tables()
	vs := pl.views()
	for _, p := range searchPathOf(pl.sess) {
		for _, t := range tables {
			if t.Schema == p && t.Rel == name {
				return p
			}
		}
		if v, _ := vs.headView(p, name); v != nil {
			return p
		}
		if listedRelationIn(tables, p, name) { // pgcatalog_relations.go: a relation not followed
			return p
		}
	}
	return "public"
}

// pathIsPublic says whether unqualified names in functions that name the
// current schema read public: the path's first schema ("$user" skipped
// when no followed schema has the name) is public.
func (pl *planner) pathIsPublic() bool {
	if pl.sess == nil {
		return true
	}
	known := map[string]bool{"public": true}
	for _, t := range pl.src.Tables() {
		known[t.Schema] = true
	}
	for _, p := range searchPathOf(pl.sess) {
		if !known[p] && p == pl.sess.user {
			continue // "$user" without a followed schema of that name
		}
		// The first other schema decides: pg_catalog is current_schema
		// when named, and a schema not known may exist (sql/exec's
		// catalog answers or refuses both: pgcatalog_arrays.go).
		return p == "public"
	}
	return false
}
