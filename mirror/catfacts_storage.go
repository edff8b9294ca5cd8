package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The \d+ facts (wal.SchemaFacts.ColumnStorage, ColumnCompression,
// ColumnStatTargets, ToastOptions, ReplIdent) follow the namespaces part in the
// schema facts body: a flag, then the three column lists and the TOAST
// table's options. A record written before ends before the flag and
// decodes with StorageRead false (the SQL port then refuses psql's \d+).

func encodeStorage(b *enc, s *wal.SchemaFacts) {
	b.byte(flagBits(true, s.ToastOptions != nil, s.RowSecurity, s.ForceRowSecurity))
	encodeStrs(b, s.ColumnStorage)
	encodeStrs(b, s.ColumnCompression)
	encodeStrs(b, s.ColumnStatTargets)
	encodeStrs(b, s.ToastOptions)
	b.byte(s.ReplIdent)
	b.uvarint(uint64(s.Policies))
	b.uvarint(uint64(s.StatisticsObjects))
	b.uvarint(uint64(s.UserFunctions))
}

// decodeStorage reads what encodeStorage wrote after its flags.
func decodeStorage(b *dec, s *wal.SchemaFacts, flags byte) {
	if flags&1 == 0 {
		return
	}
	s.StorageRead = true
	s.ColumnStorage, s.ColumnCompression, s.ColumnStatTargets = decodeStrs(b), decodeStrs(b), decodeStrs(b)
	s.ToastOptions, s.ReplIdent = decodeStrs(b), b.byte()
	s.RowSecurity, s.ForceRowSecurity = flags&4 != 0, flags&8 != 0
	s.Policies, s.StatisticsObjects, s.UserFunctions = int(b.uvarint()), int(b.uvarint()), int(b.uvarint())
	if flags&2 != 0 && s.ToastOptions == nil {
		s.ToastOptions = []string{}
	}
}
