package mirror

import "github.com/sidecar-dev/sidecar/wal"

// What psql's listings read of the database (wal.SchemaFacts.Listings,
// carried by one table) follows the publications as one more optional
// section: a mark and one length-prefixed body, so a record written
// before ends before the mark (and decodes with Listings nil: the SQL
// port then refuses what they answer) and a later sidecar can append
// fields to the body.

const listingsMark = 'l'

// encodeListings writes the section's body (catfacts_section.go: when
// the facts hold the listings' facts).
func encodeListings(b *enc, f *wal.Facts) {
	l := f.Schema.Listings
	b.uvarint(uint64(l.EventTriggers))
	b.uvarint(uint64(l.UserOperators))
	b.uvarint(uint64(len(l.LanguageComments)))
	for _, c := range l.LanguageComments {
		b.uvarint(uint64(c.OID))
		b.str(c.Comment)
	}
}

// decodeListings reads the body encodeListings writes; bytes after the
// fields it knows are skipped.
func decodeListings(b *dec, f *wal.Facts) {
	l := &wal.ListingFacts{EventTriggers: int(b.uvarint()), UserOperators: int(b.uvarint())}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		l.LanguageComments = append(l.LanguageComments, wal.ObjectComment{OID: uint32(b.uvarint()), Comment: b.str()})
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Listings = l
	}
}
