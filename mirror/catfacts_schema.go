package mirror

import (
	"github.com/sidecar-dev/sidecar/wal"
)

// The schema facts section (wal.SchemaFacts: constraints, indexes,
// comments, owned sequences) follows the column facts section. It is
// written as its mark and one length-prefixed body, so a later sidecar
// may append fields to the body and an older reader of a newer record
// still finds the end of it; records written before it end without it.

const schemaFactsMark = 's' // starts the optional schema facts section

// encodeSchemaFacts writes the section's body (catfacts_section.go).
func encodeSchemaFacts(b *enc, f *wal.Facts) {
	s := f.Schema
	b.uvarint(uint64(len(s.Constraints)))
	for _, c := range s.Constraints {
		b.uvarint(uint64(c.OID))
		b.str(c.Name)
		b.byte(c.Type)
		b.byte(flagBits(c.Deferrable, c.Deferred, c.Validated, c.NoInherit))
		encodeStrs(b, c.Columns)
		b.uvarint(uint64(c.Index))
		b.str(c.RefSchema)
		b.str(c.RefTable)
		b.uvarint(uint64(c.RefOID))
		encodeStrs(b, c.RefColumns)
		b.byte(c.UpdateAction)
		b.byte(c.DeleteAction)
		b.byte(c.MatchType)
		b.str(c.Def)
		b.str(c.DefPretty)
	}
	b.uvarint(uint64(len(s.Indexes)))
	for _, x := range s.Indexes {
		b.uvarint(uint64(x.OID))
		b.str(x.Name)
		encodeStrs(b, x.Columns)
		b.varint(int64(x.KeyColumns))
		b.byte(flagBits(x.Unique, x.Primary, x.Valid, x.Clustered, x.Partial, x.Expressions, x.ReplIdent, x.NullsNotDistinct))
		b.str(x.Method)
		b.str(x.Def)
		b.str(x.DefPretty)
	}
	b.str(s.Comment)
	b.uvarint(uint64(len(s.ReferencedBy)))
	for _, o := range s.ReferencedBy {
		b.uvarint(uint64(o))
	}
	encodeStrs(b, s.ColumnComments)
	encodeStrs(b, s.Sequences)
	b.uvarint(uint64(len(s.Triggers)))
	for _, tr := range s.Triggers {
		b.str(tr.Name)
		b.str(tr.Def)
		b.byte(tr.Enabled)
		b.byte(flagBits(tr.Internal, tr.Inherited))
	}
	b.uvarint(uint64(s.OwnerOID))
	b.str(s.Owner)
	b.uvarint(uint64(s.DatabaseOID))
	encodeIndexDetails(b, s.Indexes)
	b.byte(flagBits(s.OptionsRead, s.Options != nil))
	encodeStrs(b, s.Options)
	encodeSchemaParts(b, s) // catfacts_section.go
}

// decodeSchemaFacts reads the body encodeSchemaFacts writes.
func decodeSchemaFacts(b *dec, f *wal.Facts) {
	s := &wal.SchemaFacts{}
	n := b.count()
	for i := 0; i < n && b.err == nil; i++ {
		c := wal.ConstraintFacts{OID: uint32(b.uvarint()), Name: b.str(), Type: b.byte()}
		fl := b.byte()
		c.Deferrable, c.Deferred, c.Validated, c.NoInherit = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
		c.Columns = decodeStrs(b)
		c.Index = uint32(b.uvarint())
		c.RefSchema, c.RefTable, c.RefOID = b.str(), b.str(), uint32(b.uvarint())
		c.RefColumns = decodeStrs(b)
		c.UpdateAction, c.DeleteAction, c.MatchType = b.byte(), b.byte(), b.byte()
		c.Def, c.DefPretty = b.str(), b.str()
		s.Constraints = append(s.Constraints, c)
	}
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		x := wal.IndexFacts{OID: uint32(b.uvarint()), Name: b.str(), Columns: decodeStrs(b), KeyColumns: int16(b.varint())}
		fl := b.byte()
		x.Unique, x.Primary, x.Valid, x.Clustered = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
		x.Partial, x.Expressions, x.ReplIdent, x.NullsNotDistinct = fl&16 != 0, fl&32 != 0, fl&64 != 0, fl&128 != 0
		x.Method, x.Def, x.DefPretty = b.str(), b.str(), b.str()
		s.Indexes = append(s.Indexes, x)
	}
	s.Comment = b.str()
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		s.ReferencedBy = append(s.ReferencedBy, uint32(b.uvarint()))
	}
	s.ColumnComments = decodeStrs(b)
	s.Sequences = decodeStrs(b)
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		tr := wal.TriggerFacts{Name: b.str(), Def: b.str(), Enabled: b.byte()}
		fl := b.byte()
		tr.Internal, tr.Inherited = fl&1 != 0, fl&2 != 0
		s.Triggers = append(s.Triggers, tr)
	}
	s.OwnerOID, s.Owner, s.DatabaseOID = uint32(b.uvarint()), b.str(), uint32(b.uvarint())
	decodeIndexDetails(b, s.Indexes)
	if b.err == nil && len(b.b) > 0 {
		fl := b.byte()
		s.OptionsRead, s.Options = fl&1 != 0, decodeStrs(b)
		if fl&2 != 0 && s.Options == nil {
			s.Options = []string{}
		}
		decodeSchemaParts(b, s) // catfacts_section.go
	}
	if b.err != nil {
		return
	}
	f.Schema = s
}

// flagBits packs up to 8 booleans, the first in the lowest bit.
func flagBits(bs ...bool) byte {
	var v byte
	for i, b := range bs {
		if b {
			v |= 1 << i
		}
	}
	return v
}

func encodeStrs(e *enc, ss []string) {
	e.uvarint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func decodeStrs(d *dec) []string {
	n := d.count()
	var out []string
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

// encodeIndexDetails appends each index's wal.IndexDetail (a flag, then
// its fields) after the fields of the first schema facts section; a
// record without them (written before) leaves Detail nil.
func encodeIndexDetails(b *enc, xs []wal.IndexFacts) {
	for _, x := range xs {
		d := x.Detail
		if d == nil {
			b.byte(0)
			continue
		}
		b.byte(flagBits(true, d.RelOptions != nil))
		b.str(d.Options)
		b.str(d.Collations)
		b.str(d.Classes)
		b.str(d.Pred)
		b.str(d.PredPretty)
		b.str(d.Exprs)
		encodeStrs(b, d.RelOptions)
	}
}

// decodeIndexDetails reads what encodeIndexDetails wrote, when present.
func decodeIndexDetails(b *dec, xs []wal.IndexFacts) {
	if b.err != nil || len(b.b) == 0 {
		return
	}
	for i := range xs {
		fl := b.byte()
		if b.err != nil || fl&1 == 0 {
			continue
		}
		d := &wal.IndexDetail{Options: b.str(), Collations: b.str(), Classes: b.str(), Pred: b.str(), PredPretty: b.str(), Exprs: b.str()}
		d.RelOptions = decodeStrs(b)
		if fl&2 != 0 && d.RelOptions == nil {
			d.RelOptions = []string{}
		}
		xs[i].Detail = d
	}
}

// encodeSequences appends the owned sequences (a flag, then each
// sequence) after the options; a record without them (written before)
// leaves SequencesRead false.
func encodeSequences(b *enc, s *wal.SchemaFacts) {
	b.byte(1)
	b.uvarint(uint64(len(s.OwnedSequences)))
	for _, q := range s.OwnedSequences {
		b.uvarint(uint64(q.OID))
		b.str(q.Schema)
		b.str(q.Name)
		b.str(q.Column)
		b.byte(flagBits(q.Identity, q.Cycle))
		b.uvarint(uint64(q.OwnerOID))
		b.byte(q.Persistence)
		b.uvarint(uint64(q.TypeOID))
		for _, v := range []int64{q.Start, q.Increment, q.Max, q.Min, q.Cache} {
			b.varint(v)
		}
	}
}

// decodeSequences reads what encodeSequences wrote after its flag.
func decodeSequences(b *dec, s *wal.SchemaFacts, flag byte) {
	if flag&1 == 0 {
		return
	}
	s.SequencesRead = true
	n := b.count()
	for i := 0; i < n && b.err == nil; i++ {
		q := wal.SequenceFacts{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str(), Column: b.str()}
		fl := b.byte()
		q.Identity, q.Cycle = fl&1 != 0, fl&2 != 0
		q.OwnerOID, q.Persistence, q.TypeOID = uint32(b.uvarint()), b.byte(), uint32(b.uvarint())
		q.Start, q.Increment, q.Max, q.Min, q.Cache = b.varint(), b.varint(), b.varint(), b.varint(), b.varint()
		s.OwnedSequences = append(s.OwnedSequences, q)
	}
}
