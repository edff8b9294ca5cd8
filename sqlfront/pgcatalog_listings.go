package sqlfront

import (
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// What psql's \dy, \do and \dL read besides the followed tables, from
// the facts the copy and the catalog poll read (wal.ListingFacts,
// replication/relmeta_listings.go; up to one poll stale):
//
//   - pg_event_trigger: PostgreSQL has none of its own; served with no
//     rows when the source database has none, refused otherwise (their
//     definitions are not read).
//   - pg_operator: like pg_proc (pgcatalog_proc.go), PostgreSQL's
//     ~800 built-in operators are not served: a scan restricted to
//     schemas other than pg_catalog and information_schema (reach's
//     oprnamespace proof) has no rows when the source has no operators
//     of its own (\do without a pattern); any other scan is refused.
//   - pg_description lists the languages' comments (classoid 2612), so
//     \dL's join on classoid = tableoid and objoid = pg_language.oid
//     answers.

// listingFacts are the listings' facts as read (nil: not read — a
// record written before — or two tables' records disagree, between two
// polls' records).
func listingFacts(tables []Table) *wal.ListingFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.ListingFacts { return s.Listings }, (*wal.ListingFacts).Equal) // pgcatalog_extensions.go
}

// listingsUnread is the refusal of a statement that needs the listings'
// facts when they were not read.
func listingsUnread(what string) *Error {
	return unsupported(-1, what+" (not read from the server: the mirror was copied by an older sidecar; the next catalog poll reads it)")
}

var eventTriggerRel = &pgRel{schema: "pg_catalog", name: "pg_event_trigger",
	cols:   pgc("oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled char, evttags text[]"),
	rows:   func(*pgCatCtx) [][]*string { return nil },
	refuse: refuseOwn("pg_catalog.pg_event_trigger", "event triggers", func(l *wal.ListingFacts) int { return l.EventTriggers })}

var operatorRel = &pgRel{schema: "pg_catalog", name: "pg_operator",
	cols: pgc("oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind char, oprcanmerge bool, oprcanhash bool, oprleft oid, " +
		"oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc"),
	rows:   func(*pgCatCtx) [][]*string { return nil },
	refuse: refuseOwn("pg_catalog.pg_operator", "own operators", func(l *wal.ListingFacts) int { return l.UserOperators })}

// refuseOwn refuses a statement reading rel, served without rows, when
// the source database has objects of its own there (count: what, not
// read) or whether it has was not read.
func refuseOwn(rel, what string, count func(*wal.ListingFacts) int) func(*pgCatCtx) error {
	return func(cx *pgCatCtx) error {
		l := listingFacts(cx.tables)
		switch {
		case l == nil:
			return listingsUnread(rel + " (whether the source database has " + what + ")")
		case count(l) > 0:
			return unsupported(-1, rel+" (the source database's "+what+" are not read from the server)")
		}
		return nil
	}
}

// languageDescriptions are pg_description's rows of the languages'
// comments (none when not read: a scan reaching them is not proven,
// pgcatalog_reach.go tableKey).
func languageDescriptions(cx *pgCatCtx) [][]*string {
	l := listingFacts(cx.tables)
	if l == nil {
		return nil
	}
	var out [][]*string
	for _, c := range l.LanguageComments {
		out = append(out, []*string{u32(c.OID), sv("2612"), sv("0"), sv(c.Comment)})
	}
	return out
}

// operatorFuncs are the functions of pg_operator rows psql calls on the
// rows it lists: bound so that a listing without rows answers.
var operatorFuncs = map[string]lplan.Type{"pg_operator_is_visible": lplan.T(types.Bool)}
