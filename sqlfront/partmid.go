package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// Middle-level partitioned tables (issue 21). A partition that is itself
// partitioned (root → mid → leaves) under a followed root is recorded by
// the mirror like the root (replication/partmid.go), so `FROM mid` reads
// its leaves by the root's rules (partroot.go). pg_class lists the root
// and the mid levels above followed partitions (pgcatalog_partitioned.go);
// psql's `\d name` of one is refused with 0A000 naming it (its
// partition key and partitions' bounds are not read), as is regclass of
// one whose partitions' ancestors were not read.

// partRootLister is implemented by sources that can list the partitioned
// tables they have records of.
type partRootLister interface {
	PartRootNames() ([]string, error)
}

// PartRootNames implements partRootLister: every partitioned table the
// mirror has a record of.
func (s *HistorySource) PartRootNames() ([]string, error) {
	return s.M.PartRootNames()
}

// partRootNames returns the canonical names of the partitioned tables src
// has records of (none when it cannot list them).
func partRootNames(src Source) []wal.TableName {
	pl, ok := src.(partRootLister)
	if !ok {
		return nil
	}
	names, err := pl.PartRootNames()
	if err != nil {
		return nil
	}
	var out []wal.TableName
	for _, n := range names {
		if tn, err := wal.ParseTableName(n); err == nil {
			out = append(out, tn)
		}
	}
	return out
}

// partRootLookupRefused is the 0A000 of a catalog lookup that names the
// partitioned table tn, which PostgreSQL would find.
func partRootLookupRefused(what string, tn wal.TableName) error {
	return unsupported(-1, what+" of the partitioned table "+tn.String()+" (sidecar does not read its partition key and its partitions' bounds; FROM "+tn.Name+" reads its partitions)")
}
