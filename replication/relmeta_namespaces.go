package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readNamespaces reads, for each table of oids, the schemas the SQL
// port's pg_namespace lists with it — pg_catalog, pg_toast,
// information_schema, public and the table's own schema — with their
// OIDs and owners, and information_schema's domains and their array
// types (wal.TypeFacts): initdb assigns those OIDs, so they differ
// between clusters (information_schema is 13207 on one PostgreSQL 15,
// 13329 on a 14), and the port answered made-up ones before; and the
// server's server_version_num, for the catalog rows that differ by
// major; and the cluster's roles (relmeta_roles.go) and databases and
// the database's languages (relmeta_database.go).
func readNamespaces(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	version, err := ServerVersionNum(conn.PgConn())
	if err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT c.oid::int8, n.oid::int8, n.nspname::text, n.nspowner::int8, coalesce(pg_catalog.pg_get_userbyid(n.nspowner)::text, '')
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n
			ON n.oid = c.relnamespace OR n.nspname IN ('pg_catalog', 'pg_toast', 'information_schema', 'public')
		WHERE c.oid = ANY($1::int8[]::oid[]) ORDER BY 1, 2`, oids)
	if err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	var rel, oid, owner int64
	var n wal.NamespaceFacts
	_, err = pgx.ForEachRow(rows, []any{&rel, &oid, &n.Name, &owner, &n.Owner}, func() error {
		if s := out[uint32(rel)]; s != nil {
			x := n
			x.OID, x.OwnerOID = uint32(oid), uint32(owner)
			s.Namespaces = append(s.Namespaces, x)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT t.oid::int8, t.typnamespace::int8, t.typowner::int8, t.typname::text, t.typlen, t.typbyval, t.typtype::text,
			t.typcategory::text, t.typdelim::text, t.typalign::text, t.typstorage::text, t.typelem::int8, t.typarray::int8, t.typnotnull,
			t.typbasetype::int8, t.typtypmod, t.typcollation::int8, coalesce(t.typdefault, ''), t.typdefault IS NOT NULL
		FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
		WHERE n.nspname = 'information_schema' AND (t.typtype = 'd' OR t.typelem IN (SELECT d.oid FROM pg_catalog.pg_type d
			WHERE d.typnamespace = n.oid AND d.typtype = 'd'))
		ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("information_schema's types: %w", err)
	}
	var typs []wal.TypeFacts
	var elem, array, base, coll, nsp, towner int64
	var typ, cat, delim, align, storage string
	var t wal.TypeFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &towner, &t.Name, &t.Len, &t.ByVal, &typ, &cat, &delim, &align, &storage, &elem, &array,
		&t.NotNull, &base, &t.TypMod, &coll, &t.Default, &t.HasDefault}, func() error {
		x := t
		x.OID, x.Namespace, x.Owner, x.Elem, x.Array, x.BaseType, x.Collation = uint32(oid), uint32(nsp), uint32(towner), uint32(elem), uint32(array), uint32(base), uint32(coll)
		x.Type, x.Category, x.Delim, x.Align, x.Storage = charByte(typ), charByte(cat), charByte(delim), charByte(align), charByte(storage)
		typs = append(typs, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("information_schema's types: %w", err)
	}
	roles, members, rolesRead, err := readRoles(ctx, conn, version) // relmeta_roles.go
	if err != nil {
		return err
	}
	dbs, dbsRead, err := readDatabases(ctx, conn, version) // relmeta_database.go
	if err != nil {
		return err
	}
	langs, langsRead, err := readLanguages(ctx, conn)
	if err != nil {
		return err
	}
	userTypes, err := readUserTypes(ctx, conn) // relmeta_usertypes.go
	if err != nil {
		return err
	}
	pubs, err := readPublications(ctx, conn, version) // relmeta_publications.go
	if err != nil {
		return err
	}
	exts, err := readExtensions(ctx, conn) // relmeta_extensions.go
	if err != nil {
		return err
	}
	listings, err := readListings(ctx, conn) // relmeta_listings.go
	if err != nil {
		return err
	}
	typeDetail, err := readTypeDetail(ctx, conn) // relmeta_typedetail.go
	if err != nil {
		return err
	}
	psqlFacts, err := readPsql(ctx, conn) // relmeta_psql.go
	if err != nil {
		return err
	}
	relations, err := readRelationList(ctx, conn) // relmeta_relations.go
	if err != nil {
		return err
	}
	procs, err := readProcs(ctx, conn) // relmeta_procs.go
	if err != nil {
		return err
	}
	typeList, err := readTypeList(ctx, conn) // relmeta_typelist.go
	if err != nil {
		return err
	}
	listedCols, err := readListedColumns(ctx, conn) // relmeta_listedcols.go
	if err != nil {
		return err
	}
	casts, err := readCasts(ctx, conn) // relmeta_casts.go
	if err != nil {
		return err
	}
	partDescribe, err := readPartDescribe(ctx, conn, version) // relmeta_partdescribe.go
	if err != nil {
		return err
	}
	privileges, err := readPrivileges(ctx, conn) // relmeta_privileges.go
	if err != nil {
		return err
	}
	// The roles and databases are the cluster's: one table of the read carries them
	// (the least OID read, the same one every poll), so a mirror of many
	// tables does not hold a copy per table.
	var carrier uint32
	for _, o := range oids {
		if s := out[uint32(o)]; s != nil {
			s.SystemTypes, s.NamespacesRead, s.ServerVersion = typs, true, version
			if carrier == 0 || uint32(o) < carrier {
				carrier = uint32(o)
			}
		}
	}
	if s := out[carrier]; s != nil {
		s.Roles, s.Members, s.RolesRead = roles, members, rolesRead
		s.Databases, s.DatabasesRead = dbs, dbsRead
		s.Languages, s.LanguagesRead = langs, langsRead
		s.UserTypes, s.Publications, s.Extensions, s.Listings = userTypes, pubs, exts, listings
		s.TypeDetail, s.Psql, s.Relations, s.Procs, s.TypeList = typeDetail, psqlFacts, relations, procs, typeList
		s.ListedColumns, s.Casts = listedCols, casts
		s.PartDescribe, s.Privileges = partDescribe, privileges
	}
	return nil
}
