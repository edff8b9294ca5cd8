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

// libcRefusal is the 0A000 refusal of a statement ordering text under
// c that sql/exec does not answer: a collation not proven identical here
// (notProven), several collations in one statement (mixed), or an
// ordering sql/exec keeps in byte order (what).
func libcRefusal(c *wal.Collation, notProven, mixed bool, what string) error {
	msg := fmt.Sprintf("ordering text under the collation %q (%s)", c.Name, c.Locale)
	switch {
	case notProven:
		if strings.HasPrefix(c.Locale, "libc ") && c.Order == wal.CollOther {
			msg += " (its order was not proven identical on this host: glibc version, locale or probe differ)"
		}
	case mixed:
		msg += " beside text of another collation in one statement"
	case what != "":
		msg += " in " + what
	}
	return unsupported(-1, msg).hint(`sidecar compares text in byte order (as COLLATE "C")`)
}
