package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readSchemaFacts reads, per table, its constraints, indexes, triggers,
// comments, owner and owned sequences (wal.SchemaFacts) with search_path public, as a
// client with the default path reads the definitions: the SQL port
// serves them under that path only. Every table of oids gets facts
// (empty when it has none).
func readSchemaFacts(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]*wal.SchemaFacts, error) {
	var db int64
	if err := conn.QueryRow(ctx, `SELECT oid::int8 FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()`).Scan(&db); err != nil {
		return nil, fmt.Errorf("read the database's oid: %w", err)
	}
	out := map[uint32]*wal.SchemaFacts{}
	for _, o := range oids {
		out[uint32(o)] = &wal.SchemaFacts{DatabaseOID: uint32(db)}
	}
	err := underPublicPath(ctx, conn, func() error {
		if err := readConstraints(ctx, conn, oids, out); err != nil {
			return err
		}
		if err := readIndexes(ctx, conn, oids, out); err != nil {
			return err
		}
		if err := readTriggers(ctx, conn, oids, out); err != nil {
			return err
		}
		if err := readSequences(ctx, conn, oids, out); err != nil {
			return err
		}
		if err := readViews(ctx, conn, oids, out); err != nil { // relmeta_views.go
			return err
		}
		if err := readNamespaces(ctx, conn, oids, out); err != nil { // relmeta_namespaces.go
			return err
		}
		if err := readAccess(ctx, conn, oids, out); err != nil { // relmeta_access.go
			return err
		}
		return readComments(ctx, conn, oids, out)
	})
	if err != nil {
		return nil, fmt.Errorf("read constraints, indexes and comments: %w", err)
	}
	return out, nil
}

// attnames is the subquery naming an int2[] of attnums of relation rel.
const attnames = `coalesce((SELECT pg_catalog.array_agg(coalesce(a.attname::text, '') ORDER BY k.n)
	FROM pg_catalog.unnest(%s) WITH ORDINALITY k(attnum, n) LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = %s AND a.attnum = k.attnum), '{}')`

func readConstraints(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT c.conrelid::int8, c.oid::int8, c.conname::text, c.contype::text, c.condeferrable, c.condeferred, c.convalidated,
			c.connoinherit, `+fmt.Sprintf(attnames, "c.conkey", "c.conrelid")+`, c.conindid::int8, coalesce(rn.nspname::text, ''), coalesce(r.relname::text, ''),
			c.confrelid::int8, `+fmt.Sprintf(attnames, "c.confkey", "c.confrelid")+`, c.confupdtype::text, c.confdeltype::text, c.confmatchtype::text,
			coalesce(pg_catalog.pg_get_constraintdef(c.oid), ''), coalesce(pg_catalog.pg_get_constraintdef(c.oid, true), '')
		FROM pg_catalog.pg_constraint c LEFT JOIN pg_catalog.pg_class r ON r.oid = c.confrelid LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
		WHERE c.conrelid = ANY($1::int8[]::oid[]) ORDER BY 1, 3`, oids)
	if err != nil {
		return fmt.Errorf("constraints: %w", err)
	}
	var rel, oid, index, ref int64
	var typ, upd, del, match string
	var c wal.ConstraintFacts
	_, err = pgx.ForEachRow(rows, []any{&rel, &oid, &c.Name, &typ, &c.Deferrable, &c.Deferred, &c.Validated, &c.NoInherit, &c.Columns, &index,
		&c.RefSchema, &c.RefTable, &ref, &c.RefColumns, &upd, &del, &match, &c.Def, &c.DefPretty}, func() error {
		x := c
		x.OID, x.Index, x.RefOID = uint32(oid), uint32(index), uint32(ref)
		x.Type, x.UpdateAction, x.DeleteAction, x.MatchType = charByte(typ), charByte(upd), charByte(del), charByte(match)
		if x.Type != 'f' {
			x.UpdateAction, x.DeleteAction, x.MatchType = 0, 0, 0
		}
		if len(x.Columns) == 0 {
			x.Columns = nil
		}
		if len(x.RefColumns) == 0 {
			x.RefColumns = nil
		}
		out[uint32(rel)].Constraints = append(out[uint32(rel)].Constraints, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("constraints: %w", err)
	}
	// The tables with foreign keys to each table (whether followed is
	// known when serving: the copy reads one table at a time).
	rows, err = conn.Query(ctx, `SELECT DISTINCT c.confrelid::int8, c.conrelid::int8 FROM pg_catalog.pg_constraint c
		WHERE c.contype = 'f' AND c.confrelid = ANY($1::int8[]::oid[]) AND c.conrelid <> c.confrelid ORDER BY 1, 2`, oids)
	if err != nil {
		return fmt.Errorf("foreign keys referencing followed tables: %w", err)
	}
	_, err = pgx.ForEachRow(rows, []any{&ref, &rel}, func() error {
		out[uint32(ref)].ReferencedBy = append(out[uint32(ref)].ReferencedBy, uint32(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("foreign keys referencing followed tables: %w", err)
	}
	return nil
}

func readIndexes(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT i.indrelid::int8, i.indexrelid::int8, c.relname::text, `+fmt.Sprintf(attnames, "i.indkey::int2[]", "i.indrelid")+`,
			i.indnkeyatts::int2, i.indisunique, i.indisprimary, i.indisvalid, i.indisclustered, i.indpred IS NOT NULL, i.indexprs IS NOT NULL,
			i.indisreplident, coalesce((pg_catalog.to_jsonb(i)->>'indnullsnotdistinct')::bool, false), am.amname::text,
			pg_catalog.pg_get_indexdef(i.indexrelid), pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
			i.indoption::text, i.indcollation::text, i.indclass::text, coalesce(pg_catalog.pg_get_expr(i.indpred, i.indrelid), ''),
			coalesce(pg_catalog.pg_get_expr(i.indpred, i.indrelid, true), ''), coalesce(i.indexprs::text, ''), c.reloptions::text[]
		FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_am am ON am.oid = c.relam
		WHERE i.indrelid = ANY($1::int8[]::oid[]) ORDER BY 1, 3`, oids)
	if err != nil {
		return fmt.Errorf("indexes: %w", err)
	}
	var rel, oid int64
	var x wal.IndexFacts
	var d wal.IndexDetail
	_, err = pgx.ForEachRow(rows, []any{&rel, &oid, &x.Name, &x.Columns, &x.KeyColumns, &x.Unique, &x.Primary, &x.Valid, &x.Clustered, &x.Partial,
		&x.Expressions, &x.ReplIdent, &x.NullsNotDistinct, &x.Method, &x.Def, &x.DefPretty,
		&d.Options, &d.Collations, &d.Classes, &d.Pred, &d.PredPretty, &d.Exprs, &d.RelOptions}, func() error {
		y, detail := x, d
		y.OID, y.Detail = uint32(oid), &detail
		out[uint32(rel)].Indexes = append(out[uint32(rel)].Indexes, y)
		return nil
	})
	if err != nil {
		return fmt.Errorf("indexes: %w", err)
	}
	return nil
}

func readComments(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT c.oid::int8, c.relowner::int8, pg_catalog.pg_get_userbyid(c.relowner)::text, coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''),
			coalesce((SELECT pg_catalog.array_agg(coalesce(pg_catalog.col_description(c.oid, a.attnum), '') ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(coalesce(pg_catalog.pg_get_serial_sequence(c.oid::regclass::text, a.attname), '') ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			c.reloptions::text[],
			coalesce((SELECT pg_catalog.array_agg(a.attstorage::text ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(a.attcompression::text ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			coalesce((SELECT pg_catalog.array_agg(coalesce(nullif(a.attstattarget, -1)::text, '') ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
			(SELECT tc.reloptions::text[] FROM pg_catalog.pg_class tc WHERE tc.oid = c.reltoastrelid), c.relreplident::text,
			c.relrowsecurity, c.relforcerowsecurity, (SELECT count(*) FROM pg_catalog.pg_policy p WHERE p.polrelid = c.oid),
			(SELECT count(*) FROM pg_catalog.pg_statistic_ext x WHERE x.stxrelid = c.oid),
			(SELECT count(*) FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
				WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
		FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::int8[]::oid[])`, oids)
	if err != nil {
		return fmt.Errorf("comments: %w", err)
	}
	var oid, owner int64
	var comment, ownerName string
	var cols, seqs, names, opts, storage, compression, targets, toast []string
	var replIdent string
	var rls, forceRLS bool
	var policies, stats, funcs int64
	_, err = pgx.ForEachRow(rows, []any{&oid, &owner, &ownerName, &comment, &cols, &seqs, &names, &opts, &storage, &compression, &targets, &toast, &replIdent,
		&rls, &forceRLS, &policies, &stats, &funcs}, func() error {
		s := out[uint32(oid)]
		s.Comment, s.OwnerOID, s.Owner = comment, uint32(owner), ownerName
		s.Options, s.OptionsRead = opts, true
		s.ColumnComments, s.Sequences = byName(names, cols), byName(names, seqs)
		s.ColumnStorage, s.ColumnCompression, s.ColumnStatTargets = byName(names, storage), byName(names, compression), byName(names, targets)
		s.ToastOptions, s.ReplIdent, s.StorageRead = toast, charByte(replIdent), true
		s.RowSecurity, s.ForceRowSecurity, s.Policies, s.StatisticsObjects, s.UserFunctions = rls, forceRLS, int(policies), int(stats), int(funcs)
		return nil
	})
	if err != nil {
		return fmt.Errorf("comments: %w", err)
	}
	return nil
}

// byName pairs values with column names (the Relation's columns are
// matched to them by name later; see alignSchemaFacts).
func byName(names, vals []string) []string {
	out := make([]string, 0, 2*len(names))
	for i, n := range names {
		out = append(out, n, vals[i])
	}
	return out
}

// alignSchemaFacts turns the name/value pairs readComments stored into
// values in r's column order, and drops empty lists.
func alignSchemaFacts(r *wal.Relation, s *wal.SchemaFacts) *wal.SchemaFacts {
	if s == nil {
		return nil
	}
	out := *s
	align := func(pairs []string) []string {
		m := map[string]string{}
		for i := 0; i+1 < len(pairs); i += 2 {
			m[pairs[i]] = pairs[i+1]
		}
		var vals []string
		some := false
		for _, c := range r.Columns {
			vals = append(vals, m[c.Name])
			some = some || m[c.Name] != ""
		}
		if !some {
			return nil
		}
		return vals
	}
	out.ColumnComments, out.Sequences = align(s.ColumnComments), align(s.Sequences)
	out.ColumnStorage, out.ColumnCompression, out.ColumnStatTargets = align(s.ColumnStorage), align(s.ColumnCompression), align(s.ColumnStatTargets)
	return &out
}

func charByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// readTriggers reads the triggers psql's \d lists: user triggers, and
// internal ones disabled.
func readTriggers(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT t.tgrelid::int8, t.tgname::text, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled::text, t.tgisinternal,
			t.tgparentid <> 0
		FROM pg_catalog.pg_trigger t
		WHERE t.tgrelid = ANY($1::int8[]::oid[]) AND (NOT t.tgisinternal OR t.tgenabled = 'D') ORDER BY 1, 2`, oids)
	if err != nil {
		return fmt.Errorf("triggers: %w", err)
	}
	var rel int64
	var enabled string
	var tr wal.TriggerFacts
	_, err = pgx.ForEachRow(rows, []any{&rel, &tr.Name, &tr.Def, &enabled, &tr.Internal, &tr.Inherited}, func() error {
		x := tr
		x.Enabled = charByte(enabled)
		out[uint32(rel)].Triggers = append(out[uint32(rel)].Triggers, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("triggers: %w", err)
	}
	return nil
}

// readSequences reads the sequences the tables' columns own (serial:
// pg_depend 'a', identity: 'i'), their pg_class and pg_sequence rows.
func readSequences(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	for _, o := range oids {
		out[uint32(o)].SequencesRead = true
	}
	rows, err := conn.Query(ctx, `SELECT d.refobjid::int8, c.oid::int8, n.nspname::text, c.relname::text, coalesce(a.attname::text, ''), d.deptype = 'i',
			c.relowner::int8, c.relpersistence::text, s.seqtypid::int8, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle
		FROM pg_catalog.pg_depend d
		JOIN pg_catalog.pg_class c ON c.oid = d.objid AND c.relkind = 'S'
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid
		LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
		WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
			AND d.refobjid = ANY($1::int8[]::oid[]) AND d.deptype IN ('a', 'i')
		ORDER BY 1, 4`, oids)
	if err != nil {
		return fmt.Errorf("sequences: %w", err)
	}
	var rel, oid, owner, typ int64
	var persistence string
	var q wal.SequenceFacts
	_, err = pgx.ForEachRow(rows, []any{&rel, &oid, &q.Schema, &q.Name, &q.Column, &q.Identity, &owner, &persistence, &typ,
		&q.Start, &q.Increment, &q.Max, &q.Min, &q.Cache, &q.Cycle}, func() error {
		x := q
		x.OID, x.OwnerOID, x.TypeOID, x.Persistence = uint32(oid), uint32(owner), uint32(typ), charByte(persistence)
		out[uint32(rel)].OwnedSequences = append(out[uint32(rel)].OwnedSequences, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sequences: %w", err)
	}
	return nil
}
