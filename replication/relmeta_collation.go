package replication

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/wal"
)

// A libc collation (en_US.UTF-8 and the like: the default of the official
// Docker image and of most distributions' initdb) orders text by glibc's
// strcoll_l with a strcmp tiebreak. sidecar answers such an ordering as
// PostgreSQL does only when it is proven identical, here, each time the
// facts are read (the copy and every catalog poll):
//
//   - the locale's codeset is UTF-8 (sidecar holds text as UTF-8),
//   - the collation version PostgreSQL reports for it now (its glibc's
//     version: pg_database_collation_actual_version on 15+ for the
//     default, pg_collation_actual_version for a column's collation, and
//     on 14 the default's locale as a pg_collation entry) equals this
//     host's glibc version,
//   - the locale loads here (newlocale), and
//   - probeStrings, sorted by PostgreSQL under the collation, come out in
//     the order this host's strcoll_l gives.
//
// Then the collation is recorded as wal.CollLibc with the version; the SQL
// port checks the host side again when it runs a statement
// (sqlfront/collate.go). Otherwise it stays wal.CollOther and ordering
// under it is refused as before. Every query here is one that cannot
// fail on a healthy server (a missing function is never called), so the
// copy's snapshot transaction is not aborted by a probe.

// probeStrings are strings whose libc order depends on the collation's
// rules for case, accents, punctuation, spaces, digits, ligatures and
// non-Latin scripts.
var probeStrings = []string{
	"", " ", "  ", "a", "A", "b", "B", "z", "Z", "á", "Á", "à", "â", "ä", "Ä", "å", "ae", "æ", "Æ",
	"ß", "ss", "SS", "co-op", "coop", "co op", "co_op", "co.op", "Co-Op", "1", "10", "2", "9", "01",
	"a1", "a10", "a2", "-1", "+1", ".", ",", "!", "?", "#", "@", "$", "€", "%", "&", "*", "/", "\\",
	"(", ")", "[", "]", "{", "}", "<", ">", "=", "'", "\"", "`", "^", "~", "|", ";", ":", "-", "_",
	"résumé", "resume", "Resume", "RESUME", "résume", "naïve", "naive", "Zürich", "zurich", "Zurich",
	"O'Brien", "OBrien", "Obrien", "o'brien", "a b", "ab", "a-b", "a'b", "a\tb", "ab ", "ab-",
	"ñ", "n", "N", "Ñ", "nz", "é", "e\u0301", "e", "E", "É", "ê", "ë", "œ", "Œ", "oe", "ﬁ", "fi",
	"ı", "I", "i", "İ", "ǅ", "dz", "Dz", "DZ", "ø", "o", "Ø", "ł", "l", "Ł", "þ", "th", "ð", "d",
	"α", "Α", "ω", "Ω", "β", "я", "Я", "ж", "а", "ё", "е", "א", "ب", "日本", "中文", "한국", "ア", "あ",
	"😀", "😁", "\u00a0", "x\u030c", "x", "ǎ", "Ǎ", "q", "Q", "apple", "Apple", "APPLE", "apples",
	"Äpfel", "apfel", "Apfel", "zz", "ZZ", "z-z", "z z", "10 a", "10a", "1a", "1 a", "a.b.c", "abc",
}

// proveLibc returns c as wal.CollLibc when its order under the locale
// is proven identical here (see above), else c unchanged. collate is the
// COLLATE clause naming it in SQL; version is the collation version
// PostgreSQL reports now ("" when it reports none).
func proveLibc(ctx context.Context, conn *pgx.Conn, c wal.Collation, locale, collate, version string) (wal.Collation, error) {
	if c.Order != wal.CollOther || !strings.HasPrefix(c.Locale, "libc ") || !libccoll.UTF8(locale) ||
		version == "" || version != libccoll.Version() {
		return c, nil
	}
	loc, err := libccoll.Open(locale)
	if err != nil {
		return c, nil // the locale is not installed here: refused as before
	}
	var got []string
	q := fmt.Sprintf(`SELECT pg_catalog.array_agg(s ORDER BY s COLLATE %s) FROM pg_catalog.unnest($1::text[]) s`, collate)
	if err := conn.QueryRow(ctx, q, probeStrings).Scan(&got); err != nil {
		return c, fmt.Errorf("probe the order of the collation %q (%s): %w", c.Name, c.Locale, err)
	}
	want := slices.Clone(probeStrings)
	slices.SortStableFunc(want, loc.Compare)
	if !slices.Equal(got, want) {
		return c, nil
	}
	c.Order, c.Version = wal.CollLibc, version
	return c, nil
}

// proveDefaultLibc is proveLibc for the database's default collation
// (d: pg_database's row as JSON, locale its datcollate).
func proveDefaultLibc(ctx context.Context, conn *pgx.Conn, c wal.Collation, locale string, d map[string]any) (wal.Collation, error) {
	if c.Order != wal.CollOther || !strings.HasPrefix(c.Locale, "libc ") {
		return c, nil
	}
	var version *string
	var err error
	if _, ok := d["datcollversion"]; ok { // 15+
		err = conn.QueryRow(ctx, `SELECT pg_catalog.pg_database_collation_actual_version(d.oid) FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database()`).Scan(&version)
	} else { // 14: the version of the default's locale as a libc collation
		err = conn.QueryRow(ctx, `SELECT pg_catalog.pg_collation_actual_version(co.oid) FROM pg_catalog.pg_collation co
			WHERE co.collprovider = 'c' AND co.collencoding IN (-1, pg_catalog.pg_char_to_encoding(pg_catalog.getdatabaseencoding()))
			AND pg_catalog.lower(pg_catalog.replace(co.collcollate, '-', '')) = pg_catalog.lower(pg_catalog.replace($1, '-', ''))
			ORDER BY co.collcollate = $1 DESC LIMIT 1`, locale).Scan(&version)
		if err == pgx.ErrNoRows {
			return c, nil // no such entry: refused as before
		}
	}
	if err != nil {
		return c, fmt.Errorf("read the version of the database's collation: %w", err)
	}
	if version == nil {
		return c, nil
	}
	return proveLibc(ctx, conn, c, locale, `pg_catalog."default"`, *version)
}

// proveColumnLibc is proveLibc for the columns' own libc collations:
// pending maps a collation's OID to its locale and the (table, column)
// pairs of out that use it.
func proveColumnLibc(ctx context.Context, conn *pgx.Conn, out map[uint32]map[string]wal.Collation, pending map[int64]*pendingColl) error {
	for oid, p := range pending {
		var collate string
		var version *string
		err := conn.QueryRow(ctx, `SELECT pg_catalog.format('%I.%I', n.nspname, co.collname), pg_catalog.pg_collation_actual_version(co.oid)
			FROM pg_catalog.pg_collation co JOIN pg_catalog.pg_namespace n ON n.oid = co.collnamespace WHERE co.oid = $1::int8::oid`, oid).Scan(&collate, &version)
		if err == pgx.ErrNoRows || err == nil && version == nil {
			continue
		}
		if err != nil {
			return fmt.Errorf("read the version of collation %d: %w", oid, err)
		}
		for _, u := range p.uses {
			c, err := proveLibc(ctx, conn, out[u.rel][u.col], p.locale, collate, *version)
			if err != nil {
				return err
			}
			out[u.rel][u.col] = c
		}
	}
	return nil
}

// pendingColl is a column collation to prove (proveColumnLibc).
type pendingColl struct {
	locale string
	uses   []struct {
		rel uint32
		col string
	}
}

// notePending records, in the pass reading column collations, a libc
// collation proveColumnLibc is to prove afterwards.
func notePending(pending map[int64]*pendingColl, co map[string]any, c wal.Collation, locale string, rel uint32, col string) {
	var oid float64
	switch v := co["oid"].(type) { // to_jsonb prints an oid as a string
	case string:
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return
		}
		oid = float64(n)
	case float64:
		oid = v
	default:
		return
	}
	if c.Order != wal.CollOther || !strings.HasPrefix(c.Locale, "libc ") {
		return
	}
	p := pending[int64(oid)]
	if p == nil {
		p = &pendingColl{locale: locale}
		pending[int64(oid)] = p
	}
	p.uses = append(p.uses, struct {
		rel uint32
		col string
	}{rel, col})
}
