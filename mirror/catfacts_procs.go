package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The user functions' pg_proc rows as psql's \df+ reads them
// (wal.SchemaFacts.Procs, carried by one table) follow the relation
// list as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with Procs nil: the SQL port then refuses pg_proc when the database
// has functions of its own) and a later sidecar can append fields to
// the body.

const procsMark = 'y'

// encodeProcs writes the section's body (catfacts_section.go: when the
// facts hold it).
func encodeProcs(b *enc, f *wal.Facts) {
	p := f.Schema.Procs
	b.byte(flagBits(p.Functions != nil))
	b.uvarint(uint64(len(p.Functions)))
	for _, fn := range p.Functions {
		b.uvarint(uint64(fn.OID))
		b.uvarint(uint64(fn.Namespace))
		b.uvarint(uint64(fn.Owner))
		b.uvarint(uint64(fn.Lang))
		b.byte(fn.Kind)
		b.byte(fn.Volatile)
		b.byte(fn.Parallel)
		b.byte(flagBits(fn.SecDef, fn.RetSet, fn.HasResult, fn.HasACL, fn.HasComment, fn.HasBody))
		b.uvarint(uint64(fn.RetType))
		b.str(fn.Result)
		b.str(fn.Arguments)
		b.str(fn.IdentityArguments)
		b.uvarint(uint64(len(fn.ACL)))
		for _, a := range fn.ACL {
			b.str(a)
		}
		b.str(fn.Src)
		b.str(fn.Comment)
		b.str(fn.BodyTree)
		b.str(fn.Body)
	}
}

// decodeProcs reads the body encodeProcs writes; bytes after the fields
// it knows are skipped.
func decodeProcs(b *dec, f *wal.Facts) {
	p := &wal.ProcFacts{}
	if b.byte()&1 != 0 {
		p.Functions = []wal.ProcDetail{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		fn := wal.ProcDetail{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Lang: uint32(b.uvarint())}
		fn.Kind, fn.Volatile, fn.Parallel = b.byte(), b.byte(), b.byte()
		fl := b.byte()
		fn.SecDef, fn.RetSet, fn.HasResult, fn.HasACL, fn.HasComment, fn.HasBody = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0, fl&16 != 0, fl&32 != 0
		fn.RetType = uint32(b.uvarint())
		fn.Result, fn.Arguments, fn.IdentityArguments = b.str(), b.str(), b.str()
		for k := b.count(); k > 0 && b.err == nil; k-- {
			fn.ACL = append(fn.ACL, b.str())
		}
		if fn.HasACL && fn.ACL == nil {
			fn.ACL = []string{}
		}
		fn.Src, fn.Comment, fn.BodyTree, fn.Body = b.str(), b.str(), b.str(), b.str()
		p.Functions = append(p.Functions, fn)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Procs = p
	}
}
