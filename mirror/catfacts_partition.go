package mirror

import "github.com/sidecar-dev/sidecar/wal"

// A partition's bound and partition constraint (wal.Facts.Partition)
// follow the column types as one more optional section: a mark and one
// length-prefixed body, so a record written before ends before the mark
// (and decodes with Partition nil: the SQL port then refuses psql's
// partition footer) and a later sidecar can append fields to the body.

const partitionMark = 'r'

// encodePartition writes the section's body (catfacts_section.go: when
// the facts hold it).
func encodePartition(b *enc, f *wal.Facts) {
	b.str(f.Partition.Bound)
	b.str(f.Partition.Constraint)
}

// decodePartition reads the body encodePartition writes; bytes after the
// fields it knows are skipped.
func decodePartition(b *dec, f *wal.Facts) {
	p := &wal.PartitionFacts{Bound: b.str(), Constraint: b.str()}
	if b.err != nil {
		return // the section codec fails the record
	}
	f.Partition = p
}
