package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The catalog facts are kept as optional sections, so that a record
// written before a fact was read decodes (without it) and a newer one
// keeps its place. Two shapes, one codec each:
//
//   - after a Relation's facts, sections led by a mark byte: the column
//     facts ('c'), the schema facts ('s'), the columns the stream does
//     not carry ('g'), the column numbers ('h'), the database's user
//     types ('u'), its publications ('p'), its extensions ('x'), what
//     psql's listings read ('l'), its types' details ('m'), a table's
//     ACLs, policies and index columns ('n'), its parents, partitioned
//     ancestors and views' column comments ('o'), its columns' types
//     ('q'), its partition bound and constraint ('r'), what psql's
//     describe commands read ('v'), its columns' base types ('t'),
//     every relation and schema of the database ('w'), the user
//     functions' pg_proc rows ('y'), every pg_type row as pgjdbc
//     reads them ('z'), the columns of the relation list's tables,
//     views and foreign tables ('A'), the database's pg_cast rows as
//     psql's \dC prints them ('B'), what psql's \d prints of the
//     partitioned tables above the followed partitions ('C') and the
//     column ACLs of the database's relations ('D'). A section's fields
//     follow its mark inline, or as one length-prefixed body (a later
//     sidecar may append fields to a body; a reader skips what it does
//     not know). An absent section writes nothing.
//   - at the end of the schema facts body, parts led by a flag byte (0:
//     absent, nothing follows): the owned sequences, the views, the
//     namespaces (with the server version and roles), the \d+ facts, the
//     databases and languages. A record ends after its last present
//     part; an absent part before a present one writes its 0 flag.
//
// A new section or part goes at the end of its list: the order is the
// bytes' order on disk (TestFactsEncodingGolden holds every shape).

// factsSection is one optional section after a Relation's facts.
type factsSection struct {
	mark    byte
	body    bool // the fields as one length-prefixed body
	present func(*wal.Facts) bool
	encode  func(*enc, *wal.Facts)
	decode  func(*dec, *wal.Facts)
}

// factsSections are the sections, in their order on disk.
func factsSections() []factsSection {
	return []factsSection{
		{mark: columnFactsMark, present: func(f *wal.Facts) bool { return f.Columns != nil }, encode: encodeColumnFacts, decode: decodeColumnFacts},
		{mark: schemaFactsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil }, encode: encodeSchemaFacts, decode: decodeSchemaFacts},                                    // catfacts_schema.go
		{mark: notCarriedMark, present: func(f *wal.Facts) bool { return len(f.NotCarried) > 0 }, encode: encodeNotCarried, decode: decodeNotCarried},                                             // catfacts_notcarried.go
		{mark: columnNumbersMark, body: true, present: (*wal.Facts).ColumnNumbersRead, encode: encodeColumnNumbers, decode: decodeColumnNumbers},                                                  // catfacts_notcarried_cols.go
		{mark: userTypesMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.UserTypes != nil }, encode: encodeUserTypes, decode: decodeUserTypes},             // catfacts_usertypes.go
		{mark: publicationsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Publications != nil }, encode: encodePublications, decode: decodePublications}, // catfacts_publications.go
		{mark: extensionsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Extensions != nil }, encode: encodeExtensions, decode: decodeExtensions},         // catfacts_extensions.go
		{mark: listingsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Listings != nil }, encode: encodeListings, decode: decodeListings},                 // catfacts_listings.go
		{mark: typeDetailMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.TypeDetail != nil }, encode: encodeTypeDetail, decode: decodeTypeDetail},         // catfacts_typedetail.go
		{mark: accessMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Access != nil }, encode: encodeAccess, decode: decodeAccess},                         // catfacts_access.go
		{mark: inheritsMark, body: true, present: func(f *wal.Facts) bool { return f.Inherits != nil }, encode: encodeInherits, decode: decodeInherits},                                           // catfacts_inherits.go
		{mark: columnTypesMark, body: true, present: func(f *wal.Facts) bool { return f.ColumnTypes != nil }, encode: encodeColumnTypes, decode: decodeColumnTypes},                               // catfacts_coltypes.go
		{mark: partitionMark, body: true, present: func(f *wal.Facts) bool { return f.Partition != nil }, encode: encodePartition, decode: decodePartition},                                       // catfacts_partition.go
		{mark: psqlMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Psql != nil }, encode: encodePsql, decode: decodePsql},                                 // catfacts_psql.go
		{mark: columnBasesMark, body: true, present: columnBasesRead, encode: encodeColumnBases, decode: decodeColumnBases},                                                                       // catfacts_colbase.go
		{mark: relationsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Relations != nil }, encode: encodeRelationList, decode: decodeRelationList},       // catfacts_relations.go
		{mark: procsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Procs != nil }, encode: encodeProcs, decode: decodeProcs},                             // catfacts_procs.go
		{mark: typeListMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.TypeList != nil }, encode: encodeTypeList, decode: decodeTypeList},                 // catfacts_typelist.go
		// catfacts_listedcols.go
		{mark: listedColumnsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.ListedColumns != nil }, encode: encodeListedColumns, decode: decodeListedColumns},
		// catfacts_casts.go
		{mark: castsMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Casts != nil }, encode: encodeCasts, decode: decodeCasts},
		// catfacts_partdescribe.go
		{mark: partDescribeMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.PartDescribe != nil }, encode: encodePartDescribe, decode: decodePartDescribe},
		// catfacts_privileges.go
		{mark: privilegesMark, body: true, present: func(f *wal.Facts) bool { return f.Schema != nil && f.Schema.Privileges != nil }, encode: encodePrivileges, decode: decodePrivileges},
	}
}

// encodeFactsSections writes the sections f holds.
func encodeFactsSections(e *enc, f *wal.Facts) {
	for _, s := range factsSections() {
		if !s.present(f) {
			continue
		}
		e.byte(s.mark)
		if !s.body {
			s.encode(e, f)
			continue
		}
		var b enc
		s.encode(&b, f)
		e.bytes(b.b)
	}
}

// decodeFactsSections reads the sections present in d into f; an error
// in a body fails d.
func decodeFactsSections(d *dec, f *wal.Facts) {
	for _, s := range factsSections() {
		if d.err != nil || len(d.b) == 0 || d.b[0] != s.mark {
			continue
		}
		d.byte()
		if !s.body {
			s.decode(d, f)
			continue
		}
		b := &dec{b: d.bytes()}
		if d.err != nil {
			return
		}
		s.decode(b, f)
		if b.err != nil {
			d.err = b.err
		}
	}
}

// schemaPart is one optional part at the end of the schema facts body.
// encode writes its flag byte (nonzero) and fields; decode reads the
// fields after the flag it is given (nonzero).
type schemaPart struct {
	present func(*wal.SchemaFacts) bool
	encode  func(*enc, *wal.SchemaFacts)
	decode  func(*dec, *wal.SchemaFacts, byte)
}

// schemaParts are the parts, in their order on disk.
func schemaParts() []schemaPart {
	return []schemaPart{
		{present: func(s *wal.SchemaFacts) bool { return s.SequencesRead }, encode: encodeSequences, decode: decodeSequences},                    // catfacts_schema.go
		{present: func(s *wal.SchemaFacts) bool { return s.ViewsRead }, encode: encodeViews, decode: decodeViews},                                // catfacts_views.go
		{present: func(s *wal.SchemaFacts) bool { return s.NamespacesRead }, encode: encodeNamespaces, decode: decodeNamespaces},                 // catfacts_namespaces.go
		{present: func(s *wal.SchemaFacts) bool { return s.StorageRead }, encode: encodeStorage, decode: decodeStorage},                          // catfacts_storage.go
		{present: func(s *wal.SchemaFacts) bool { return s.DatabasesRead || s.LanguagesRead }, encode: encodeDatabases, decode: decodeDatabases}, // catfacts_database.go
		{present: func(s *wal.SchemaFacts) bool { return s.ViewColumnsRead }, encode: encodeViewColumns, decode: decodeViewColumns},              // catfacts_viewcols.go
	}
}

// encodeSchemaParts writes the parts up to the last one s holds, a 0
// flag for each absent one before it.
func encodeSchemaParts(b *enc, s *wal.SchemaFacts) {
	parts := schemaParts()
	last := -1
	for i, p := range parts {
		if p.present(s) {
			last = i
		}
	}
	for _, p := range parts[:last+1] {
		if p.present(s) {
			p.encode(b, s)
		} else {
			b.byte(0)
		}
	}
}

// decodeSchemaParts reads the parts present in b into s, up to the end
// of b.
func decodeSchemaParts(b *dec, s *wal.SchemaFacts) {
	for _, p := range schemaParts() {
		if b.err != nil || len(b.b) == 0 {
			return
		}
		if flag := b.byte(); flag != 0 {
			p.decode(b, s, flag)
		}
	}
}
