package sqlfront

import lplan "github.com/sidecar-dev/sidecar/sql/plan"

// Foreign keys and the partitioned tables above followed partitions
// (issue 23): pg_class lists those partitioned tables and their
// partitioned indexes, pg_constraint does not list their constraints
// (pgcatalog_partitioned.go). So a pg_constraint scan joined to a
// pg_class scan that may reach a partitioned table was refused — every
// pgjdbc getImportedKeys, getExportedKeys and getCrossReference once a
// followed table was a partition. A foreign key of a partitioned table
// is cloned onto each of its partitions (PostgreSQL requires it), so a
// followed partition without foreign keys proves its ancestors have
// none: then the foreign-key rows of pg_constraint (contype 'f') are
// the followed tables' own, whichever relation their conrelid,
// confrelid or conindid names.

// foreignKeysOnly says whether s (a pg_constraint scan) is restricted to
// foreign keys (contype = 'f') and no partitioned table pg_class lists
// above a followed partition has a foreign key.
func (r *reach) foreignKeysOnly(s *lplan.Scan) bool {
	restricted := false
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "contype" || op != "=" && op != "in" || len(other) == 0 {
			continue
		}
		all := true
		for _, o := range other {
			k, ok := constText([]lplan.Scalar{o})
			all = all && ok && k == "f"
		}
		restricted = restricted || all
	}
	return restricted && partitionedWithoutForeignKeys(r.tableList)
}

// partitionedWithoutForeignKeys says whether every partitioned table
// above the followed partitions has a followed descendant whose
// constraints were read and include no foreign key (its ancestors'
// foreign keys would be cloned onto it).
func partitionedWithoutForeignKeys(tables []Table) bool {
	parts, read := partitionedClasses(tables)
	if !read {
		return false
	}
	clear := map[uint32]bool{}
	for i := range tables {
		t := &tables[i]
		sf := schemaFactsOf(t)
		if t.Facts == nil || t.Facts.Inherits == nil || sf == nil {
			continue
		}
		fk := false
		for _, k := range sf.Constraints {
			fk = fk || k.Type == 'f'
		}
		if fk {
			continue
		}
		for _, a := range t.Facts.Inherits.Ancestors {
			clear[a.OID] = true
		}
	}
	for _, a := range parts {
		if !clear[a.OID] {
			return false
		}
	}
	return true
}

// referencesPartitioned says whether a followed table's foreign key
// references one of partOIDs (a partitioned table pg_class lists above
// the followed partitions): pg_attribute and pg_index lack that
// relation's rows, so pg_constraint.confrelid is not a followed
// table's OID alone.
func referencesPartitioned(tables []Table, partOIDs map[uint32]bool) bool {
	if len(partOIDs) == 0 {
		return false
	}
	for i := range tables {
		if sf := schemaFactsOf(&tables[i]); sf != nil {
			for _, k := range sf.Constraints {
				if k.Type == 'f' && partOIDs[k.RefOID] {
					return true
				}
			}
		}
	}
	return false
}
