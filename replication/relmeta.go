package replication

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// Catalog facts a pgoutput Relation message does not carry (wal/catfacts.go):
// each column's collation, the database's default collation and a table's
// inheritance descendants. The copy reads them under its snapshot
// (describeCopy), the daemon's catalog poll again every few seconds
// (ReadFacts), since ALTER TABLE … INHERIT or CREATE TABLE … PARTITION OF
// changes them without a row change.
//
// The catalogs differ between majors (datlocprovider from 15, daticulocale
// in 15–16, datlocale and the builtin provider from 17, colliculocale in
// 15–16, colllocale from 17): rows are read as to_jsonb, so one query
// serves every major and an absent column reads as absent.

// ReadFacts returns rels with the catalog facts PostgreSQL has for them
// now (rels are not modified; a table no longer there is left out).
func ReadFacts(ctx context.Context, conn *pgx.Conn, rels []*wal.Relation) ([]*wal.Relation, error) {
	if len(rels) == 0 {
		return nil, nil
	}
	def, err := databaseCollation(ctx, conn)
	if err != nil {
		return nil, err
	}
	oids := make([]int64, len(rels))
	for i, r := range rels {
		oids[i] = int64(r.OID)
	}
	kinds, err := relKinds(ctx, conn, oids)
	if err != nil {
		return nil, err
	}
	colls, err := columnCollations(ctx, conn, oids, def)
	if err != nil {
		return nil, err
	}
	desc, err := descendants(ctx, conn, oids)
	if err != nil {
		return nil, err
	}
	defs, gens, err := readColumnFacts(ctx, conn, oids)
	if err != nil {
		return nil, err
	}
	pks, err := primaryKeys(ctx, conn, oids)
	if err != nil {
		return nil, err
	}
	schema, err := readSchemaFacts(ctx, conn, oids) // relmeta_schema.go
	if err != nil {
		return nil, err
	}
	atts, err := readAttributes(ctx, conn, oids) // relmeta_generated.go
	if err != nil {
		return nil, err
	}
	dropped, err := readDropped(ctx, conn, oids)
	if err != nil {
		return nil, err
	}
	inherits, err := readInherits(ctx, conn, oids, schema) // relmeta_inherits.go
	if err != nil {
		return nil, err
	}
	ctypes, err := readColumnTypes(ctx, conn, oids) // relmeta_coltypes.go
	if err != nil {
		return nil, err
	}
	parts, err := readPartitions(ctx, conn, oids) // relmeta_partition.go
	if err != nil {
		return nil, err
	}
	var out []*wal.Relation
	for _, r := range rels {
		ri, ok := kinds[r.OID]
		if !ok {
			continue
		}
		kind := ri.kind
		f := &wal.Relation{Columns: make([]wal.Column, len(r.Columns)), Facts: &wal.Facts{Kind: kind, Default: def, PartitionOf: ri.root}}
		f.Facts.Columns = make([]wal.ColumnFacts, len(r.Columns))
		for i, c := range r.Columns {
			f.Columns[i] = wal.Column{Name: c.Name, Collation: colls[r.OID][c.Name]}
			f.Facts.Columns[i] = defs[r.OID][c.Name]
		}
		f.Facts.NotCarried = notCarried(r, gens[r.OID])
		columnNumbers(r, f.Facts, atts[r.OID], dropped[r.OID], defs[r.OID], colls[r.OID], schema[r.OID]) // relmeta_generated.go
		f.Facts.PrimaryKey = pks[r.OID]
		f.Facts.ColumnTypes = columnTypesOf(r, ctypes[r.OID])
		f.Facts.Schema = alignSchemaFacts(r, schema[r.OID])
		f.Facts.Inherits = inherits[r.OID]
		f.Facts.Partition = parts[r.OID]
		if kind == 'r' {
			// A partitioned root followed as the root holds its
			// partitions' rows already: only an ordinary table's
			// descendants are read with it.
			f.Facts.Descendants = desc[r.OID]
		}
		out = append(out, r.WithFacts(f))
	}
	return out, nil
}

// readColumnFacts reads, per table and column name, the column's NOT
// NULL, default, identity and generation (wal.ColumnFacts), and per table
// its generated columns' names in attnum order. Defaults are printed with
// search_path public, as a client with the default path reads them (the
// SQL port answers them under that path only).
func readColumnFacts(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]map[string]wal.ColumnFacts, map[uint32][]string, error) {
	out := map[uint32]map[string]wal.ColumnFacts{}
	gens := map[uint32][]string{}
	err := underPublicPath(ctx, conn, func() error { // relmeta_searchpath.go
		rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, a.attnotnull, a.atthasdef, a.attidentity::text, a.attgenerated::text,
				pg_catalog.pg_get_expr(d.adbin, d.adrelid), pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
			FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = ANY($1::int8[]::oid[]) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum`, oids)
		if err != nil {
			return err
		}
		var oid int64
		var col, ident, gen string
		var def, pretty *string
		var cf wal.ColumnFacts
		_, err = pgx.ForEachRow(rows, []any{&oid, &col, &cf.NotNull, &cf.HasDefault, &ident, &gen, &def, &pretty}, func() error {
			c := cf
			if def != nil {
				c.Default = *def
			}
			if pretty != nil {
				c.DefaultPretty = *pretty
			}
			if ident != "" {
				c.Identity = ident[0]
			}
			if gen != "" {
				c.Generated = gen[0]
				gens[uint32(oid)] = append(gens[uint32(oid)], col)
			}
			if out[uint32(oid)] == nil {
				out[uint32(oid)] = map[string]wal.ColumnFacts{}
			}
			out[uint32(oid)][col] = c
			return nil
		})
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read column definitions: %w", err)
	}
	return out, gens, nil
}

// notCarried are the generated columns of gens the relation r (as the
// stream describes it) does not have: the ones the mirror holds no
// values for (wal.Facts.NotCarried). A generated column the stream
// carries (a publication with publish_generated_columns on 18) is an
// ordinary column of r.
func notCarried(r *wal.Relation, gens []string) []string {
	var out []string
	for _, g := range gens {
		if !slices.ContainsFunc(r.Columns, func(c wal.Column) bool { return c.Name == g }) {
			out = append(out, g)
		}
	}
	return out
}

// primaryKeys reads each table's primary key constraint.
func primaryKeys(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]*wal.KeyConstraint, error) {
	rows, err := conn.Query(ctx, `SELECT c.conrelid::int8, c.conname::text, a.attname::text
		FROM pg_catalog.pg_constraint c CROSS JOIN LATERAL pg_catalog.unnest(c.conkey) WITH ORDINALITY k(attnum, n)
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
		WHERE c.conrelid = ANY($1::int8[]::oid[]) AND c.contype = 'p' ORDER BY 1, k.n`, oids)
	if err != nil {
		return nil, fmt.Errorf("read primary keys: %w", err)
	}
	out := map[uint32]*wal.KeyConstraint{}
	var oid int64
	var name, col string
	_, err = pgx.ForEachRow(rows, []any{&oid, &name, &col}, func() error {
		pk := out[uint32(oid)]
		if pk == nil {
			pk = &wal.KeyConstraint{Name: name}
			out[uint32(oid)] = pk
		}
		pk.Columns = append(pk.Columns, col)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read primary keys: %w", err)
	}
	return out, nil
}

// relInfo is what pg_class says of a followed table.
type relInfo struct {
	kind byte
	root string // canonical name of its partitioned root, for a partition
}

// relKinds reads each table's relkind and partitioned root.
func relKinds(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]relInfo, error) {
	rows, err := conn.Query(ctx, `SELECT c.oid::int8, c.relkind::text, coalesce(rn.nspname::text, ''), coalesce(r.relname::text, '')
		FROM pg_catalog.pg_class c
		LEFT JOIN pg_catalog.pg_class r ON c.relispartition AND r.oid = pg_catalog.pg_partition_root(c.oid)
		LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
		WHERE c.oid = ANY($1::int8[]::oid[])`, oids)
	if err != nil {
		return nil, fmt.Errorf("read relkinds: %w", err)
	}
	out := map[uint32]relInfo{}
	var oid int64
	var kind, rs, rr string
	_, err = pgx.ForEachRow(rows, []any{&oid, &kind, &rs, &rr}, func() error {
		if kind != "" {
			ri := relInfo{kind: kind[0]}
			if rr != "" {
				ri.root = wal.TableName{Schema: rs, Name: rr}.String()
			}
			out[uint32(oid)] = ri
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read relkinds: %w", err)
	}
	return out, nil
}

// databaseCollation reads the current database's default collation.
func databaseCollation(ctx context.Context, conn *pgx.Conn) (wal.Collation, error) {
	var raw []byte
	err := conn.QueryRow(ctx, `SELECT to_jsonb(d) FROM pg_catalog.pg_database d WHERE d.datname = current_database()`).Scan(&raw)
	if err != nil {
		return wal.Collation{}, fmt.Errorf("read the database's collation: %w", err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		return wal.Collation{}, fmt.Errorf("read the database's collation: %w", err)
	}
	provider := jsonStr(d, "datlocprovider")
	if provider == "" {
		provider = "c" // before 15: libc only
	}
	locale := jsonStr(d, "datlocale") // 17+
	if locale == "" {
		locale = jsonStr(d, "daticulocale") // 15–16
	}
	if provider == "c" || locale == "" {
		locale = jsonStr(d, "datcollate")
	}
	c := wal.Collation{Name: "default", Locale: providerName(provider) + " " + locale, Order: collOrder(provider, locale, true)}
	return proveDefaultLibc(ctx, conn, c, locale, d) // relmeta_collation.go
}

// columnCollations reads, per table and column name, the collation of
// every collatable column; "default" takes the database's order.
func columnCollations(ctx context.Context, conn *pgx.Conn, oids []int64, def wal.Collation) (map[uint32]map[string]wal.Collation, error) {
	rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, co.collname::text, to_jsonb(co)
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
		WHERE a.attrelid = ANY($1::int8[]::oid[]) AND a.attnum > 0 AND NOT a.attisdropped`, oids)
	if err != nil {
		return nil, fmt.Errorf("read column collations: %w", err)
	}
	out := map[uint32]map[string]wal.Collation{}
	pending := map[int64]*pendingColl{} // libc collations to prove (relmeta_collation.go)
	var oid int64
	var col, name string
	var raw []byte
	_, err = pgx.ForEachRow(rows, []any{&oid, &col, &name, &raw}, func() error {
		var co map[string]any
		if err := json.Unmarshal(raw, &co); err != nil {
			return err
		}
		c := wal.Collation{Name: name}
		provider := jsonStr(co, "collprovider")
		if provider == "d" {
			c.Locale, c.Order, c.Version = def.Locale, def.Order, def.Version
		} else {
			locale := jsonStr(co, "colllocale") // 17+
			if locale == "" {
				locale = jsonStr(co, "colliculocale") // 15–16
			}
			if locale == "" {
				locale = jsonStr(co, "collcollate")
			}
			det, ok := co["collisdeterministic"].(bool)
			c.Locale, c.Order = providerName(provider)+" "+locale, collOrder(provider, locale, det || !ok)
			notePending(pending, co, c, locale, uint32(oid), col)
		}
		if out[uint32(oid)] == nil {
			out[uint32(oid)] = map[string]wal.Collation{}
		}
		out[uint32(oid)][col] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read column collations: %w", err)
	}
	return out, proveColumnLibc(ctx, conn, out, pending)
}

// descendants reads, per table, every table inheriting from it directly
// or not, with the table each inherits from directly (a table inheriting
// twice appears once per parent).
func descendants(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32][]wal.Descendant, error) {
	rows, err := conn.Query(ctx, `WITH RECURSIVE d(root, child, parent) AS (
			SELECT i.inhparent, i.inhrelid, i.inhparent FROM pg_catalog.pg_inherits i WHERE i.inhparent = ANY($1::int8[]::oid[])
			UNION SELECT d.root, i.inhrelid, i.inhparent FROM pg_catalog.pg_inherits i JOIN d ON i.inhparent = d.child)
		SELECT d.root::int8, cn.nspname::text, c.relname::text, c.relkind::text, pn.nspname::text, p.relname::text
		FROM d JOIN pg_catalog.pg_class c ON c.oid = d.child JOIN pg_catalog.pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_catalog.pg_class p ON p.oid = d.parent JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
		ORDER BY 1, 2, 3, 5, 6`, oids)
	if err != nil {
		return nil, fmt.Errorf("read inheritance: %w", err)
	}
	out := map[uint32][]wal.Descendant{}
	var root int64
	var cs, cr, kind, ps, pr string
	_, err = pgx.ForEachRow(rows, []any{&root, &cs, &cr, &kind, &ps, &pr}, func() error {
		d := wal.Descendant{Name: wal.TableName{Schema: cs, Name: cr}.String(), Parent: wal.TableName{Schema: ps, Name: pr}.String()}
		if kind != "" {
			d.Kind = kind[0]
		}
		out[uint32(root)] = append(out[uint32(root)], d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read inheritance: %w", err)
	}
	return out, nil
}

func jsonStr(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func providerName(p string) string {
	switch p {
	case "c":
		return "libc"
	case "i":
		return "icu"
	case "b":
		return "builtin"
	}
	return "provider " + p
}

// collOrder classifies a collation: byte order for libc's C and POSIX
// (ucs_basic is libc C before 17), glibc's C.UTF-8 (code point order,
// which is UTF-8's byte order: relmeta_test.go compares it with the
// server's own sort), and the builtin provider of 17+ (C, C.UTF-8 and
// PG_UNICODE_FAST all sort by code point); any other order otherwise.
func collOrder(provider, locale string, deterministic bool) wal.CollOrder {
	if !deterministic {
		return wal.CollNondeterministic
	}
	switch provider {
	case "b":
		return wal.CollBytes
	case "c":
		switch strings.ToLower(locale) {
		case "c", "posix", "c.utf-8", "c.utf8":
			return wal.CollBytes
		}
	}
	return wal.CollOther
}

// withFacts gives the copy's Relations their catalog facts, read under
// the copy's snapshot.
func withFacts(ctx context.Context, conn *pgx.Conn, ts []*copyTable) ([]*copyTable, error) {
	rels := make([]*wal.Relation, len(ts))
	for i, t := range ts {
		rels[i] = t.rel
	}
	got, err := ReadFacts(ctx, conn, rels)
	if err != nil {
		return nil, err
	}
	byOID := map[uint32]*wal.Relation{}
	for _, r := range got {
		byOID[r.OID] = r
	}
	for _, t := range ts {
		if r := byOID[t.rel.OID]; r != nil {
			t.rel = r
		}
	}
	return ts, nil
}
