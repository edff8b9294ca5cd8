package sqlfront

// psql's \d of a partitioned index (issue 23, session 25). pg_class
// lists the partitioned indexes of the partitioned tables above the
// followed partitions (relkind 'I', pgcatalog_partitioned.go), but psql's
// lookup query of \d answered no row for one, so psql printed `Did not
// find any relation named "ev_note"` where PostgreSQL describes the
// index: a different answer. Its columns, key and definition are not
// read (pg_index has no row of it), so the lookup refuses it with 0A000
// naming it, as it refuses the partitioned tables themselves
// (partmid.go).

// partIndexDescribeRefusal is the 0A000 of psql's \d lookup when its
// pattern (re, over the relation name) matches a partitioned index
// pg_class lists; nil when it matches none.
func partIndexDescribeRefusal(tables []Table, re func(string) (bool, error)) error {
	parts, _ := partitionedClasses(tables)
	for _, a := range parts {
		for _, x := range a.Indexes {
			ok, err := re(x.Name)
			if err != nil {
				return err
			}
			if ok {
				return unsupported(-1, "\\d of the partitioned index "+a.Schema+"."+x.Name+" (sidecar does not read a partitioned index's columns and definition)")
			}
		}
	}
	return nil
}
