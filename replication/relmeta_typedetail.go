package replication

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// otherTypesWhere selects the database's types psql's \dT lists beside
// the domains and enums (relmeta_usertypes.go): outside pg_catalog and
// information_schema, composite types of CREATE TYPE … AS (relkind 'c';
// tables' and views' row types are not), ranges, multiranges, base
// types and shell types; not array types (read as their elements'
// typarray).
const otherTypesWhere = `t.typnamespace NOT IN (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema'))
	AND (t.typtype IN ('r', 'm', 'b', 'p') OR t.typtype = 'c' AND (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
	AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typarray = t.oid)`

// outsideCatalog selects the pg_type rows of t outside pg_catalog.
const outsideCatalog = `t.typnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')`

// readTypeDetail reads what psql's \dT, \dD and \dO need of the
// database's types beyond its domains and enums (wal.TypeDetailFacts):
// its other types and their arrays, the types' typacl and comments, the
// domains' constraints (printed under search_path public, as the
// column defaults), the collations outside pg_catalog and those the
// types name, and the schemas and namesakes deciding visibility. A
// database with more than wal.MaxTypeDetails rows of one kind is
// recorded without them (nil: the SQL port refuses what they answer).
// The catalogs are readable by PUBLIC.
func readTypeDetail(ctx context.Context, conn *pgx.Conn) (d *wal.TypeDetailFacts, err error) {
	var n int64
	if err := conn.QueryRow(ctx, `SELECT greatest((SELECT count(*) FROM pg_catalog.pg_type t WHERE `+otherTypesWhere+`),
			(SELECT count(*) FROM pg_catalog.pg_constraint WHERE contypid <> 0), (SELECT count(*) FROM pg_catalog.pg_collation),
			(SELECT count(*) FROM pg_catalog.pg_description WHERE classoid = 'pg_catalog.pg_type'::pg_catalog.regclass))`).Scan(&n); err != nil {
		return nil, fmt.Errorf("types' details: %w", err)
	}
	if n > wal.MaxTypeDetails {
		return nil, nil
	}
	d = &wal.TypeDetailFacts{ACLs: []wal.TypeACL{}, Comments: []wal.ObjectComment{}, Constraints: []wal.DomainConstraint{}}
	steps := []func(context.Context, *pgx.Conn, *wal.TypeDetailFacts) error{readOtherTypes, readTypeACLs, readTypeComments,
		readDomainConstraints, readCollations, readTypeDetailNames}
	for _, step := range steps {
		if err := step(ctx, conn, d); err != nil {
			return nil, fmt.Errorf("types' details: %w", err)
		}
	}
	return d, nil
}

// readOtherTypes reads the pg_type rows of otherTypesWhere and their
// arrays.
func readOtherTypes(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	rows, err := conn.Query(ctx, `WITH o AS (SELECT t.oid, t.typarray FROM pg_catalog.pg_type t WHERE `+otherTypesWhere+`)
		SELECT t.oid::int8, t.typnamespace::int8, t.typowner::int8, t.typname::text, t.typlen, t.typbyval, t.typtype::text,
			t.typcategory::text, t.typdelim::text, t.typalign::text, t.typstorage::text, t.typelem::int8, t.typarray::int8, t.typnotnull,
			t.typbasetype::int8, t.typtypmod, t.typcollation::int8, coalesce(t.typdefault, ''), t.typdefault IS NOT NULL, t.typndims,
			t.typrelid::int8, t.typisdefined
		FROM pg_catalog.pg_type t
		WHERE t.oid IN (SELECT oid FROM o) OR t.oid IN (SELECT typarray FROM o)
		ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("types: %w", err)
	}
	var oid, elem, array, base, coll, nsp, owner, relid int64
	var typ, cat, delim, align, storage string
	var t wal.OtherType
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &owner, &t.Name, &t.Len, &t.ByVal, &typ, &cat, &delim, &align, &storage, &elem, &array,
		&t.NotNull, &base, &t.TypMod, &coll, &t.Default, &t.HasDefault, &t.NDims, &relid, &t.Defined}, func() error {
		x := t
		x.OID, x.Namespace, x.Owner, x.Elem, x.Array, x.BaseType, x.Collation = uint32(oid), uint32(nsp), uint32(owner), uint32(elem), uint32(array), uint32(base), uint32(coll)
		x.Type, x.Category, x.Delim, x.Align, x.Storage = charByte(typ), charByte(cat), charByte(delim), charByte(align), charByte(storage)
		x.Relid = uint32(relid)
		d.Types = append(d.Types, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("types: %w", err)
	}
	return nil
}

// readTypeACLs reads typacl of the types outside pg_catalog (not NULL).
func readTypeACLs(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	rows, err := conn.Query(ctx, `SELECT t.oid::int8, t.typacl::text[] FROM pg_catalog.pg_type t
		WHERE t.typacl IS NOT NULL AND `+outsideCatalog+` ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("typacl: %w", err)
	}
	var oid int64
	var acl []string
	_, err = pgx.ForEachRow(rows, []any{&oid, &acl}, func() error {
		d.ACLs = append(d.ACLs, wal.TypeACL{OID: uint32(oid), ACL: append([]string{}, acl...)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("typacl: %w", err)
	}
	return nil
}

// readTypeComments reads the comments on the types outside pg_catalog.
func readTypeComments(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	rows, err := conn.Query(ctx, `SELECT d.objoid::int8, d.description FROM pg_catalog.pg_description d JOIN pg_catalog.pg_type t ON t.oid = d.objoid
		WHERE d.classoid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objsubid = 0 AND `+outsideCatalog+` ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("types' comments: %w", err)
	}
	var oid int64
	var c string
	_, err = pgx.ForEachRow(rows, []any{&oid, &c}, func() error {
		d.Comments = append(d.Comments, wal.ObjectComment{OID: uint32(oid), Comment: c})
		return nil
	})
	if err != nil {
		return fmt.Errorf("types' comments: %w", err)
	}
	return nil
}

// readDomainConstraints reads the domains' pg_constraint rows, their
// definitions printed under search_path public.
func readDomainConstraints(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	err := underPublicPath(ctx, conn, func() error { // relmeta_searchpath.go
		rows, err := conn.Query(ctx, `SELECT r.oid::int8, r.contypid::int8, r.connamespace::int8, r.conname::text, r.contype::text, r.condeferrable,
				r.condeferred, r.convalidated, r.conislocal, r.connoinherit, r.coninhcount::int4,
				pg_catalog.pg_get_constraintdef(r.oid), pg_catalog.pg_get_constraintdef(r.oid, true)
			FROM pg_catalog.pg_constraint r WHERE r.contypid <> 0 ORDER BY r.ctid`)
		if err != nil {
			return err
		}
		var oid, typ, nsp int64
		var kind string
		var inh int32
		var c wal.DomainConstraint
		_, err = pgx.ForEachRow(rows, []any{&oid, &typ, &nsp, &c.Name, &kind, &c.Deferrable, &c.Deferred, &c.Validated, &c.Local, &c.NoInherit, &inh,
			&c.Def, &c.DefPretty}, func() error {
			x := c
			x.OID, x.TypeOID, x.Namespace, x.Type, x.InhCount = uint32(oid), uint32(typ), uint32(nsp), charByte(kind), int(inh)
			d.Constraints = append(d.Constraints, x)
			return nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("domain constraints: %w", err)
	}
	return nil
}

// readCollations reads the pg_collation rows outside pg_catalog and
// information_schema, those a type outside pg_catalog names, and
// default, C and POSIX, whatever the major's columns (row_to_json).
func readCollations(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	rows, err := conn.Query(ctx, `SELECT pg_catalog.row_to_json(c)::text FROM pg_catalog.pg_collation c
		WHERE c.collnamespace NOT IN (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema'))
			OR c.oid IN (100, 950, 951) OR c.oid IN (SELECT t.typcollation FROM pg_catalog.pg_type t WHERE `+outsideCatalog+`)
		ORDER BY c.oid`)
	if err != nil {
		return fmt.Errorf("collations: %w", err)
	}
	var js string
	_, err = pgx.ForEachRow(rows, []any{&js}, func() error {
		c, err := collationFromJSON(js)
		if err != nil {
			return err
		}
		d.Collations = append(d.Collations, c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("collations: %w", err)
	}
	var oids []int64
	for _, c := range d.Collations {
		oids = append(oids, int64(c.OID))
	}
	rows, err = conn.Query(ctx, `SELECT d.objoid::int8, d.description FROM pg_catalog.pg_description d
		WHERE d.classoid = 'pg_catalog.pg_collation'::pg_catalog.regclass AND d.objsubid = 0 AND d.objoid = ANY($1::int8[]::oid[]) ORDER BY 1`, oids)
	if err != nil {
		return fmt.Errorf("collations' comments: %w", err)
	}
	var oid int64
	_, err = pgx.ForEachRow(rows, []any{&oid, &js}, func() error {
		d.CollationComments = append(d.CollationComments, wal.ObjectComment{OID: uint32(oid), Comment: js})
		return nil
	})
	if err != nil {
		return fmt.Errorf("collations' comments: %w", err)
	}
	return nil
}

// collationFromJSON reads one pg_collation row as row_to_json prints it.
func collationFromJSON(js string) (wal.CollationRow, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return wal.CollationRow{}, err
	}
	num := func(k string) int64 { // oid prints as a string, int4 as a number
		switch v := m[k].(type) {
		case float64:
			return int64(v)
		case string:
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
		return 0
	}
	str := func(k string) (string, bool) {
		s, ok := m[k].(string)
		return s, !ok
	}
	c := wal.CollationRow{OID: uint32(num("oid")), Namespace: uint32(num("collnamespace")), Owner: uint32(num("collowner")), Encoding: int32(num("collencoding"))}
	c.Name, _ = str("collname")
	p, _ := str("collprovider")
	c.Provider = charByte(p)
	c.Deterministic, _ = m["collisdeterministic"].(bool)
	c.Collate, c.CollateNull = str("collcollate")
	c.Ctype, c.CtypeNull = str("collctype")
	c.Locale, c.LocaleNull = str("colliculocale")
	if _, ok := m["colllocale"]; ok {
		c.Locale, c.LocaleNull = str("colllocale")
	}
	c.Rules, c.RulesNull = str("collicurules")
	c.Version, c.VersionNull = str("collversion")
	if c.Name == "" || c.OID == 0 {
		return c, fmt.Errorf("unexpected pg_collation row %s", strconv.Quote(js))
	}
	return c, nil
}

// readTypeDetailNames reads the schemas of the types and collations
// read, and the other types and collations sharing their names.
func readTypeDetailNames(ctx context.Context, conn *pgx.Conn, d *wal.TypeDetailFacts) error {
	var typeOIDs, collOIDs []int64
	for _, t := range d.Types {
		typeOIDs = append(typeOIDs, int64(t.OID))
	}
	for _, c := range d.Collations {
		collOIDs = append(collOIDs, int64(c.OID))
	}
	rows, err := conn.Query(ctx, `SELECT n.oid::int8, n.nspname::text, n.nspowner::int8, coalesce(pg_catalog.pg_get_userbyid(n.nspowner)::text, '')
		FROM pg_catalog.pg_namespace n WHERE n.oid IN (SELECT typnamespace FROM pg_catalog.pg_type WHERE oid = ANY($1::int8[]::oid[]))
			OR n.oid IN (SELECT collnamespace FROM pg_catalog.pg_collation WHERE oid = ANY($2::int8[]::oid[])) ORDER BY 1`, typeOIDs, collOIDs)
	if err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	var oid, owner int64
	var ns wal.NamespaceFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &ns.Name, &owner, &ns.Owner}, func() error {
		x := ns
		x.OID, x.OwnerOID = uint32(oid), uint32(owner)
		d.Namespaces = append(d.Namespaces, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	names := func(q string, args ...any) ([]wal.TypeName, error) {
		rows, err := conn.Query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		var out []wal.TypeName
		var tn wal.TypeName
		_, err = pgx.ForEachRow(rows, []any{&tn.Namespace, &tn.Name}, func() error {
			out = append(out, tn)
			return nil
		})
		return out, err
	}
	if d.Namesakes, err = names(`SELECT n.nspname::text, t.typname::text FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
		WHERE t.typname IN (SELECT typname FROM pg_catalog.pg_type WHERE oid = ANY($1::int8[]::oid[])) AND NOT t.oid = ANY($1::int8[]::oid[])
		ORDER BY 1, 2`, typeOIDs); err != nil {
		return fmt.Errorf("types' namesakes: %w", err)
	}
	if d.CollationNamesakes, err = names(`SELECT n.nspname::text, c.collname::text FROM pg_catalog.pg_collation c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.collnamespace
		WHERE c.collname IN (SELECT collname FROM pg_catalog.pg_collation WHERE oid = ANY($1::int8[]::oid[])) AND NOT c.oid = ANY($1::int8[]::oid[])
			AND c.collencoding IN (-1, pg_catalog.pg_char_to_encoding(pg_catalog.getdatabaseencoding()))
		ORDER BY 1, 2`, collOIDs); err != nil {
		return fmt.Errorf("collations' namesakes: %w", err)
	}
	return nil
}
