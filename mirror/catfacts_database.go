package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The cluster's databases (wal.SchemaFacts.Databases) and the source
// database's languages (Languages) follow the \d+ part
// (catfacts_storage.go) in the schema facts body: a flag (bit 1: the
// databases follow, bit 2: the languages), then the databases, then the
// languages. A record written before ends before the flag and decodes
// with DatabasesRead and LanguagesRead false (the SQL port then refuses
// pg_database and pg_language).

func encodeDatabases(b *enc, s *wal.SchemaFacts) {
	b.byte(flagBits(s.DatabasesRead, s.LanguagesRead))
	if s.DatabasesRead {
		encodeDatabaseList(b, s.Databases)
	}
	if s.LanguagesRead {
		encodeLanguages(b, s.Languages)
	}
}

func encodeDatabaseList(b *enc, dbs []wal.DatabaseFacts) {
	b.uvarint(uint64(len(dbs)))
	for _, d := range dbs {
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

// decodeDatabases reads what encodeDatabases wrote after its flags.
func decodeDatabases(b *dec, s *wal.SchemaFacts, flags byte) {
	if flags&1 != 0 {
		s.Databases, s.DatabasesRead = decodeDatabaseList(b), true
	}
	if flags&2 != 0 {
		s.Languages, s.LanguagesRead = decodeLanguages(b), true
	}
}

func decodeDatabaseList(b *dec) []wal.DatabaseFacts {
	var out []wal.DatabaseFacts
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
		out = append(out, d)
	}
	return out
}

func encodeLanguages(b *enc, ls []wal.LanguageFacts) {
	b.uvarint(uint64(len(ls)))
	for _, l := range ls {
		b.uvarint(uint64(l.OID))
		b.str(l.Name)
		b.uvarint(uint64(l.Owner))
		b.byte(flagBits(l.IsPL, l.Trusted, l.ACL != nil))
		b.uvarint(uint64(l.CallFn))
		b.uvarint(uint64(l.Inline))
		b.uvarint(uint64(l.Validate))
		encodeStrs(b, l.ACL)
	}
}

func decodeLanguages(b *dec) []wal.LanguageFacts {
	var out []wal.LanguageFacts
	for n := b.count(); n > 0 && b.err == nil; n-- {
		l := wal.LanguageFacts{OID: uint32(b.uvarint()), Name: b.str(), Owner: uint32(b.uvarint())}
		fl := b.byte()
		l.IsPL, l.Trusted = fl&1 != 0, fl&2 != 0
		l.CallFn, l.Inline, l.Validate = uint32(b.uvarint()), uint32(b.uvarint()), uint32(b.uvarint())
		l.ACL = decodeStrs(b)
		if fl&4 != 0 && l.ACL == nil {
			l.ACL = []string{}
		}
		out = append(out, l)
	}
	return out
}
