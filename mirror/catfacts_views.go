package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The views above a table (wal.SchemaFacts.Views) follow the owned
// sequences in the schema facts body: a flag, then each view. A record
// written before they were read ends before the flag and decodes with
// ViewsRead false (the SQL port then keeps refusing the views).

func encodeViews(b *enc, s *wal.SchemaFacts) {
	b.byte(1)
	b.uvarint(uint64(len(s.Views)))
	for _, v := range s.Views {
		b.uvarint(uint64(v.OID))
		b.str(v.Schema)
		b.str(v.Name)
		b.byte(v.Kind)
		b.uvarint(uint64(v.OwnerOID))
		b.str(v.Owner)
		b.uvarint(uint64(len(v.Columns)))
		for _, c := range v.Columns {
			b.str(c.Name)
			b.uvarint(uint64(c.TypeOID))
			b.varint(int64(c.TypeMod))
		}
		b.str(v.Def)
		b.str(v.DefPretty)
		b.str(v.Qualified)
		b.uvarint(uint64(len(v.Refs)))
		for _, r := range v.Refs {
			b.uvarint(uint64(r.OID))
			b.str(r.Schema)
			b.str(r.Name)
			b.byte(r.Kind)
		}
		b.str(v.Comment)
		b.byte(flagBits(v.Options != nil))
		encodeStrs(b, v.Options)
	}
}

// decodeViews reads what encodeViews wrote after its flag.
func decodeViews(b *dec, s *wal.SchemaFacts, flag byte) {
	if flag&1 == 0 {
		return
	}
	s.ViewsRead = true
	n := b.count()
	for i := 0; i < n && b.err == nil; i++ {
		v := wal.ViewFacts{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str(), Kind: b.byte(), OwnerOID: uint32(b.uvarint()), Owner: b.str()}
		nc := b.count()
		for j := 0; j < nc && b.err == nil; j++ {
			v.Columns = append(v.Columns, wal.ViewColumn{Name: b.str(), TypeOID: uint32(b.uvarint()), TypeMod: int32(b.varint())})
		}
		v.Def, v.DefPretty, v.Qualified = b.str(), b.str(), b.str()
		nr := b.count()
		for j := 0; j < nr && b.err == nil; j++ {
			v.Refs = append(v.Refs, wal.ViewRef{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str(), Kind: b.byte()})
		}
		v.Comment = b.str()
		fl := b.byte()
		v.Options = decodeStrs(b)
		if fl&1 != 0 && v.Options == nil {
			v.Options = []string{}
		}
		s.Views = append(s.Views, v)
	}
}
