package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readViews reads the views and materialized views above each table of
// oids: those whose _RETURN rule (pg_rewrite) depends on the table, or
// on a view above it (pg_depend, followed upwards). Each is read with
// its columns, its definition (pg_get_viewdef with search_path public,
// plain and pretty, and with an empty search_path, qualified) and the
// relations its rule reads directly. It runs under search_path public
// (readSchemaFacts).
//
// A view that reads no relation at all (VALUES, generate_series, a
// recursive view over itself) is above no table, yet its rows are
// PostgreSQL's definition alone: it is listed with one table of oids in
// its schema, the one of lowest OID (its anchor), and so are the views
// above it. Its definition is then versioned with the anchor's facts
// like any other view's: AS OF reads the definition the anchor's facts
// held at that version. A copy of fewer tables than the poll reads may
// anchor it elsewhere for a while (both anchors hold the same
// definition; the next poll of every table leaves one).
func readViews(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	for _, o := range oids {
		out[uint32(o)].ViewsRead, out[uint32(o)].ViewColumnsRead = true, true
	}
	rows, err := conn.Query(ctx, `WITH RECURSIVE anchor(ns, tbl) AS (
			SELECT c.relnamespace, pg_catalog.min(c.oid) FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::int8[]::oid[]) GROUP BY c.relnamespace),
		above(tbl, v) AS (
			SELECT d.refobjid, r.ev_class FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
			WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
				AND d.refobjid = ANY($1::int8[]::oid[]) AND r.ev_class <> d.refobjid
			UNION
			SELECT an.tbl, c.oid FROM pg_catalog.pg_class c JOIN anchor an ON an.ns = c.relnamespace
			WHERE c.relkind IN ('v', 'm') AND NOT EXISTS (SELECT FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d ON d.objid = r.oid
				AND d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
				AND d.refobjid <> r.ev_class WHERE r.ev_class = c.oid)
			UNION
			SELECT a.tbl, r.ev_class FROM above a JOIN pg_catalog.pg_depend d ON d.refobjid = a.v
				AND d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
				JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
			WHERE r.ev_class <> a.v)
		SELECT a.tbl::int8, c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text, c.relowner::int8, pg_catalog.pg_get_userbyid(c.relowner)::text,
			coalesce((SELECT pg_catalog.array_agg(at.attname::text ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(at.atttypid::int8 ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(at.atttypmod ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(at.attcollation::int8 ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(coalesce(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), '') ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = at.attrelid AND ad.adnum = at.attnum
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(coalesce(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true), '') ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = at.attrelid AND ad.adnum = at.attnum
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(at.atthasdef ORDER BY at.attnum) FROM pg_catalog.pg_attribute at
				WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped), '{}'),
			coalesce(pg_catalog.pg_get_viewdef(c.oid), ''), coalesce(pg_catalog.pg_get_viewdef(c.oid, true), ''),
			coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''), c.reloptions::text[]
		FROM (SELECT DISTINCT tbl, v FROM above) a JOIN pg_catalog.pg_class c ON c.oid = a.v AND c.relkind IN ('v', 'm')
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		ORDER BY 1, 2`, oids)
	if err != nil {
		return fmt.Errorf("views: %w", err)
	}
	var tbl, oid, owner int64
	var kind string
	var names []string
	var typs []int64
	var mods []int32
	var colls []int64
	var defs, pretty []string
	var hasDef []bool
	var v wal.ViewFacts
	seen := map[uint32]bool{}
	_, err = pgx.ForEachRow(rows, []any{&tbl, &oid, &v.Schema, &v.Name, &kind, &owner, &v.Owner, &names, &typs, &mods, &colls, &defs, &pretty, &hasDef, &v.Def, &v.DefPretty, &v.Comment, &v.Options}, func() error {
		x := v
		x.OID, x.Kind, x.OwnerOID = uint32(oid), charByte(kind), uint32(owner)
		x.Columns = nil
		for i, n := range names {
			x.Columns = append(x.Columns, wal.ViewColumn{Name: n, TypeOID: uint32(typs[i]), TypeMod: mods[i], Collation: uint32(colls[i]),
				HasDefault: hasDef[i], Default: defs[i], DefaultPretty: pretty[i]})
		}
		out[uint32(tbl)].Views = append(out[uint32(tbl)].Views, x)
		seen[x.OID] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("views: %w", err)
	}
	if len(seen) == 0 {
		return nil
	}
	var vs []int64
	for o := range seen {
		vs = append(vs, int64(o))
	}
	refs, qual, err := viewRefs(ctx, conn, vs)
	if err != nil {
		return err
	}
	for _, s := range out {
		for i := range s.Views {
			s.Views[i].Refs, s.Views[i].Qualified = refs[s.Views[i].OID], qual[s.Views[i].OID]
		}
	}
	return nil
}

// viewRefs reads the relations each view's rule reads directly, and its
// definition printed with an empty search_path (every relation
// qualified by its schema).
func viewRefs(ctx context.Context, conn *pgx.Conn, views []int64) (map[uint32][]wal.ViewRef, map[uint32]string, error) {
	refs := map[uint32][]wal.ViewRef{}
	rows, err := conn.Query(ctx, `SELECT DISTINCT r.ev_class::int8, c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text
		FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d ON d.objid = r.oid AND d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
			AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid <> r.ev_class
			JOIN pg_catalog.pg_class c ON c.oid = d.refobjid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE r.ev_class = ANY($1::int8[]::oid[]) ORDER BY 1, 2`, views)
	if err != nil {
		return nil, nil, fmt.Errorf("views' references: %w", err)
	}
	var v, oid int64
	var kind string
	var ref wal.ViewRef
	_, err = pgx.ForEachRow(rows, []any{&v, &oid, &ref.Schema, &ref.Name, &kind}, func() error {
		x := ref
		x.OID, x.Kind = uint32(oid), charByte(kind)
		refs[uint32(v)] = append(refs[uint32(v)], x)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("views' references: %w", err)
	}
	qual := map[uint32]string{}
	if _, err := conn.Exec(ctx, `SELECT pg_catalog.set_config('search_path', '', false)`); err != nil {
		return nil, nil, err
	}
	rows, err = conn.Query(ctx, `SELECT c.oid::int8, coalesce(pg_catalog.pg_get_viewdef(c.oid), '') FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::int8[]::oid[])`, views)
	if err == nil {
		var def string
		_, err = pgx.ForEachRow(rows, []any{&oid, &def}, func() error {
			qual[uint32(oid)] = def
			return nil
		})
	}
	if _, rerr := conn.Exec(ctx, `SELECT pg_catalog.set_config('search_path', 'public', false)`); err == nil {
		err = rerr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("views' qualified definitions: %w", err)
	}
	return refs, qual, nil
}
