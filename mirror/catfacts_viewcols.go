package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The views' columns' collations and defaults (wal.ViewColumn's
// Collation, HasDefault, Default, DefaultPretty) follow the databases
// part (catfacts_database.go) in the schema facts body: a flag, then for
// each view of the views part, in its order, its column count and each
// column's facts. A record written before ends before the flag and
// decodes with ViewColumnsRead false (the SQL port then lists no view
// columns in pg_attribute: it refuses what would read them).

func encodeViewColumns(b *enc, s *wal.SchemaFacts) {
	b.byte(1)
	b.uvarint(uint64(len(s.Views)))
	for _, v := range s.Views {
		b.uvarint(uint64(len(v.Columns)))
		for _, c := range v.Columns {
			b.uvarint(uint64(c.Collation))
			b.byte(flagBits(c.HasDefault))
			b.str(c.Default)
			b.str(c.DefaultPretty)
		}
	}
}

// decodeViewColumns reads what encodeViewColumns wrote after its flag
// into the views the views part decoded; counts that do not match them
// are a corrupt record.
func decodeViewColumns(b *dec, s *wal.SchemaFacts, flag byte) {
	if flag&1 == 0 {
		return
	}
	if b.count() != len(s.Views) {
		b.fail("view columns' facts (view count)")
		return
	}
	for i := range s.Views {
		cols := s.Views[i].Columns
		if b.count() != len(cols) {
			b.fail("view columns' facts (column count)")
			return
		}
		for j := range cols {
			cols[j].Collation = uint32(b.uvarint())
			cols[j].HasDefault = b.byte()&1 != 0
			cols[j].Default, cols[j].DefaultPretty = b.str(), b.str()
		}
	}
	s.ViewColumnsRead = b.err == nil
}
