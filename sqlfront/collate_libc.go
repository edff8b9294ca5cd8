package sqlfront

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/wal"
)

// Text ordered under a libc locale (issue 22 item 5). The copy and the
// catalog poll record a libc collation as wal.CollLibc when they proved
// this host orders it as the server does (replication/relmeta_collation.go:
// same glibc version, the locale loads, a probe of tricky strings sorts
// alike). sql/exec then orders text by strcoll_l with a strcmp tiebreak
// (internal/libccoll), as PostgreSQL's varstr_cmp does; equality stays
// bytewise (the collation is deterministic). The flat planner does not:
// it hands such statements to sql/exec (collationCheck).
//
// sql/exec takes one text order for the whole statement, so a statement
// is answered only when every text it orders is under that one
// collation: the database default is the locale and no table read has a
// text column of another collation; orderings sql/exec keeps in byte
// order (arrays, jsonb, records, an aggregate's ORDER BY, ANY/ALL,
// subquery comparisons) and text from a name are refused. The host side
// is checked again when the statement is planned: another glibc, or a
// locale that does not load here, is refused naming why.

// openLibcOrder is the text order of the proven collation c on this
// host, or the 0A000 refusal saying why this host cannot give it.
func openLibcOrder(c wal.Collation) (exec.TextOrder, error) {
	locale := strings.TrimPrefix(c.Locale, "libc ")
	if v := libccoll.Version(); v != c.Version {
		return nil, unsupported(-1, fmt.Sprintf("ordering text under the collation %q (%s): the server's collation version is %s, this host's glibc is %s", c.Name, c.Locale, c.Version, v)).
			hint(`write COLLATE "C" to compare in byte order, or run sidecar on a host with the server's glibc`)
	}
	loc, err := libccoll.Open(locale)
	if err != nil {
		return nil, unsupported(-1, fmt.Sprintf("ordering text under the collation %q (%s): %v", c.Name, c.Locale, err)).
			hint(`generate the locale on this host (locale-gen), or write COLLATE "C" to compare in byte order`)
	}
	return loc, nil
}

// orderUnder is the text order sql/exec uses for a statement whose
// orderings of text s recorded (nil: byte order), or the 0A000 refusal
// when they are not all under byte order or all under one proven libc
// locale. coll is a collation other than byte order among those the
// statement reads, named when no ordering's own can be.
func orderUnder(coll *wal.Collation, s *orderSites) (exec.TextOrder, error) {
	if s.untold {
		return nil, collRefusal(coll, " where sidecar cannot derive which collation applies (a column of a subquery, CTE, set operation or catalog beside columns of other collations)")
	}
	if s.unsupported != "" {
		return nil, collRefusal(coll, " in "+s.unsupported)
	}
	var libc *wal.Collation
	bytes := false
	for i, c := range s.used {
		switch c.Order {
		case wal.CollUnknown, wal.CollBytes:
			bytes = true
		case wal.CollLibc:
			if libc != nil && *libc != c {
				return nil, collRefusal(&c, fmt.Sprintf(" beside text of the collation %q in one statement", libc.Name))
			}
			libc = &s.used[i]
		default:
			why := ""
			if c.Order == wal.CollOther && strings.HasPrefix(c.Locale, "libc ") {
				why = " (its order was not proven identical on this host: glibc version, locale or probe differ)"
			}
			return nil, collRefusal(&c, why)
		}
	}
	if libc == nil {
		return nil, nil
	}
	if bytes {
		return nil, collRefusal(libc, " beside text of a byte-order collation in one statement")
	}
	return openLibcOrder(*libc)
}

// collRefusal is the 0A000 refusal of ordering text under c, why
// appended to the message.
func collRefusal(c *wal.Collation, why string) error {
	return unsupported(-1, fmt.Sprintf("ordering text under the collation %q (%s)%s", c.Name, c.Locale, why)).
		hint(`sidecar compares text in byte order (as COLLATE "C")`)
}
