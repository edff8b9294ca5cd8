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
	var may bool
	var n int64
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.has_table_privilege('pg_catalog.pg_database', 'SELECT')`).Scan(&may); err != nil {
		return nil, false, fmt.Errorf("databases: %w", err)
	}
	if !may {
		return nil, false, nil
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_database`).Scan(&n); err != nil {
		return nil, false, fmt.Errorf("databases: %w", err)
	}
	if n > wal.MaxDatabases {
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
