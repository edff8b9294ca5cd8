package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// Middle-level partitioned tables (issue 21). A partition that is itself
// partitioned (root → mid → leaves) under a followed root is recorded by
// the mirror like the root (replication/partmid.go), so `FROM mid` reads
// its leaves by the root's rules (partroot.go). The catalog lists neither
// the root nor a mid level (pg_class has no row for them yet): a lookup
// that would find one on PostgreSQL — psql's `\d name`, 'name'::regclass
// — is refused with 0A000 naming it instead of answering "not found".

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
	return unsupported(-1, what+" of the partitioned table "+tn.String()+" (sidecar's catalog does not list partitioned tables yet; FROM "+tn.Name+" reads its partitions)")
}
