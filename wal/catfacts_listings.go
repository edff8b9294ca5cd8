package wal

import "slices"

// ListingFacts are what psql's listings read of the source database
// beyond its tables, read with the schemas by the table carrying the
// cluster's facts (like the publications): how many event triggers it
// has (\dy), how many operators outside pg_catalog and
// information_schema (\do), and the languages' comments (\dL's
// Description). None of it is replicated: up to one catalog poll stale.
// A later sidecar appends fields (the section is one length-prefixed
// body, mirror/catfacts_listings.go).
type ListingFacts struct {
	EventTriggers    int
	UserOperators    int
	LanguageComments []ObjectComment
}

// ObjectComment is one pg_description row of an object (objsubid 0).
type ObjectComment struct {
	OID     uint32
	Comment string
}

// Equal reports whether l and o hold the same facts (nil: not read).
func (l *ListingFacts) Equal(o *ListingFacts) bool {
	if l == nil || o == nil {
		return l == o
	}
	return l.EventTriggers == o.EventTriggers && l.UserOperators == o.UserOperators && slices.Equal(l.LanguageComments, o.LanguageComments)
}
