package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// typeList is the database's pg_type rows as the catalog poll last read
// them (facts section 'z', up to one poll stale), with the names of the
// schemas they live in (the relation list's namespaces, read at the
// same poll). pgjdbc's type queries list them; a type name that is not
// built in is looked up in them to tell a missing type (42704) from one
// sidecar does not serve (0A000).
type typeList struct {
	types   []wal.TypeListEntry
	schemas map[uint32]string // namespace OID → schema name
	// temp: another session's temporary types exist (their rows were
	// only flagged, not read).
	temp bool
}

// readTypeList returns the type list carried by the tables' facts, or
// false when it was not read (more than wal.MaxListedTypes types, or a
// mirror copied by an older sidecar) or the relation list is missing.
func readTypeList(tables []Table) (typeList, bool) {
	l := carriedSection(tables, func(s *wal.SchemaFacts) *wal.TypeListFacts { return s.TypeList }, (*wal.TypeListFacts).Equal) // pgcatalog_extensions.go
	rl := relationList(tables)                                                                                                 // pgcatalog_relations.go
	if l == nil || l.Types == nil || rl == nil {
		return typeList{}, false
	}
	schemas := make(map[uint32]string, len(rl.Namespaces))
	for _, n := range rl.Namespaces {
		schemas[n.OID] = n.Name
	}
	return typeList{types: l.Types, schemas: schemas, temp: l.TempTypes}, true
}

// has reports whether a type of that name exists: names is the type's
// name, alone or qualified by its schema.
func (l typeList) has(names []string) bool {
	name := names[len(names)-1]
	for _, t := range l.types {
		if t.Name == name && (len(names) == 1 || l.schemas[t.Namespace] == names[0]) {
			return true
		}
	}
	return false
}
