package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The cluster's databases (wal.SchemaFacts.Databases) follow the \d+
// part (catfacts_storage.go) in the schema facts body: a flag, then the
// databases. A record written before ends before the flag and decodes
// with DatabasesRead false (the SQL port then refuses pg_database).

func encodeDatabases(b *enc, s *wal.SchemaFacts) {
	if !s.DatabasesRead {
		return
	}
	if !s.StorageRead { // the parts before wrote nothing: their flags, unset
		if !s.NamespacesRead {
			if !s.ViewsRead {
				if !s.SequencesRead {
					b.byte(0)
				}
				b.byte(0)
			}
			b.byte(0)
		}
		b.byte(0)
	}
	b.byte(1)
	b.uvarint(uint64(len(s.Databases)))
	for _, d := range s.Databases {
		b.uvarint(uint64(d.OID))
		b.str(d.Name)
		b.uvarint(uint64(d.Owner))
		b.varint(int64(d.Encoding))
		b.byte(d.LocProvider)
		b.byte(flagBits(d.IsTemplate, d.AllowConn, d.HasLoginEvent, d.LocaleNull, d.RulesNull, d.VerNull, d.ACL != nil))
		b.varint(int64(d.ConnLimit))
		b.uvarint(uint64(d.LastSysOID))
		b.uvarint(uint64(d.Tablespace))
		b.str(d.Collate)
		b.str(d.Ctype)
		b.str(d.Locale)
		b.str(d.ICURules)
		b.str(d.CollVersion)
		encodeStrs(b, d.ACL)
		b.str(d.Comment)
	}
}

// decodeDatabases reads what encodeDatabases wrote, when present.
func decodeDatabases(b *dec, s *wal.SchemaFacts) {
	if b.err != nil || len(b.b) == 0 || b.byte()&1 == 0 {
		return
	}
	s.DatabasesRead = true
	for n := b.count(); n > 0 && b.err == nil; n-- {
		d := wal.DatabaseFacts{OID: uint32(b.uvarint()), Name: b.str(), Owner: uint32(b.uvarint()), Encoding: int32(b.varint()), LocProvider: b.byte()}
		fl := b.byte()
		d.IsTemplate, d.AllowConn, d.HasLoginEvent = fl&1 != 0, fl&2 != 0, fl&4 != 0
		d.LocaleNull, d.RulesNull, d.VerNull = fl&8 != 0, fl&16 != 0, fl&32 != 0
		d.ConnLimit, d.LastSysOID, d.Tablespace = int32(b.varint()), uint32(b.uvarint()), uint32(b.uvarint())
		d.Collate, d.Ctype, d.Locale, d.ICURules, d.CollVersion = b.str(), b.str(), b.str(), b.str(), b.str()
		d.ACL = decodeStrs(b)
		if fl&64 != 0 && d.ACL == nil {
			d.ACL = []string{}
		}
		d.Comment = b.str()
		s.Databases = append(s.Databases, d)
	}
}
