package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readDatabases reads the cluster's databases (pg_database) for the SQL
// port's pg_database (psql's \l): PUBLIC may read it by default; when
// the follow user may not or the cluster has more than wal.MaxDatabases
// databases, nothing is recorded and the port refuses it. The columns
// are the server's major's (datlocprovider and the ICU locale from 15,
// daticurules from 16, datlocale and dathasloginevt from 17,
// datlastsysoid before 15); datacl is read as its elements' text, which
// is how aclitemout prints them. datfrozenxid and datminmxid are not
// read: vacuum moves them outside the logical stream.
func readDatabases(ctx context.Context, conn *pgx.Conn, version int) (dbs []wal.DatabaseFacts, ok bool, err error) {
	var n *int64 // NULL: the follow user may not read pg_database
	if err := conn.QueryRow(ctx, `SELECT CASE WHEN pg_catalog.has_table_privilege('pg_catalog.pg_database', 'SELECT')
		THEN (SELECT count(*) FROM pg_catalog.pg_database) END`).Scan(&n); err != nil {
		return nil, false, fmt.Errorf("databases: %w", err)
	}
	if n == nil || *n > wal.MaxDatabases {
		return nil, false, nil
	}
	// The columns that differ by major, in this order: datlocprovider,
	// the locale, the ICU rules, the collation version, dathasloginevt,
	// datlastsysoid.
	var cols string
	switch {
	case version >= 170000:
		cols = `d.datlocprovider::text, d.datlocale, d.daticurules, d.datcollversion, d.dathasloginevt, 0::int8`
	case version >= 160000:
		cols = `d.datlocprovider::text, d.daticulocale, d.daticurules, d.datcollversion, false, 0::int8`
	case version >= 150000:
		cols = `d.datlocprovider::text, d.daticulocale, NULL::text, d.datcollversion, false, 0::int8`
	default:
		cols = `'', NULL::text, NULL::text, NULL::text, false, d.datlastsysoid::int8`
	}
	rows, err := conn.Query(ctx, `SELECT d.oid::int8, d.datname::text, d.datdba::int8, d.encoding, d.datistemplate, d.datallowconn, d.datconnlimit,
			d.dattablespace::int8, d.datcollate::text, d.datctype::text, d.datacl::text[],
			coalesce(pg_catalog.shobj_description(d.oid, 'pg_database'), ''), `+cols+`
		FROM pg_catalog.pg_database d ORDER BY 1`)
	if err != nil {
		return nil, false, fmt.Errorf("databases: %w", err)
	}
	var oid, owner, space, lastSys int64
	var provider string
	var locale, rules, collVersion *string
	var acl []string
	var d wal.DatabaseFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &d.Name, &owner, &d.Encoding, &d.IsTemplate, &d.AllowConn, &d.ConnLimit, &space, &d.Collate, &d.Ctype, &acl,
		&d.Comment, &provider, &locale, &rules, &collVersion, &d.HasLoginEvent, &lastSys}, func() error {
		x := d
		x.OID, x.Owner, x.Tablespace, x.LastSysOID, x.LocProvider = uint32(oid), uint32(owner), uint32(space), uint32(lastSys), charByte(provider)
		x.Locale, x.LocaleNull = deref(locale)
		x.ICURules, x.RulesNull = deref(rules)
		x.CollVersion, x.VerNull = deref(collVersion)
		x.ACL = acl
		if acl != nil && len(acl) == 0 {
			x.ACL = []string{}
		}
		dbs = append(dbs, x)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("databases: %w", err)
	}
	return dbs, true, nil
}

// deref is *p, and whether p is nil (NULL).
func deref(p *string) (string, bool) {
	if p == nil {
		return "", true
	}
	return *p, false
}

// readLanguages reads the source database's procedural languages
// (pg_language, PUBLIC may read it) for the SQL port's pg_language
// (psql's \df+ joins it): plpgsql's OID is initdb's, others come with
// CREATE LANGUAGE or an extension. A follow user who may not read it
// records none (the port refuses pg_language).
func readLanguages(ctx context.Context, conn *pgx.Conn) (langs []wal.LanguageFacts, ok bool, err error) {
	var may bool
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.has_table_privilege('pg_catalog.pg_language', 'SELECT')`).Scan(&may); err != nil || !may {
		return nil, false, wrapErr("languages", err)
	}
	rows, err := conn.Query(ctx, `SELECT oid::int8, lanname::text, lanowner::int8, lanispl, lanpltrusted, lanplcallfoid::int8, laninline::int8,
			lanvalidator::int8, lanacl::text[]
		FROM pg_catalog.pg_language ORDER BY 1`)
	if err != nil {
		return nil, false, fmt.Errorf("languages: %w", err)
	}
	var oid, owner, call, inline, validator int64
	var acl []string
	var l wal.LanguageFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &l.Name, &owner, &l.IsPL, &l.Trusted, &call, &inline, &validator, &acl}, func() error {
		x := l
		x.OID, x.Owner, x.CallFn, x.Inline, x.Validate, x.ACL = uint32(oid), uint32(owner), uint32(call), uint32(inline), uint32(validator), acl
		if acl != nil && len(acl) == 0 {
			x.ACL = []string{}
		}
		langs = append(langs, x)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("languages: %w", err)
	}
	return langs, true, nil
}

// wrapErr is err with context, nil for nil.
func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
