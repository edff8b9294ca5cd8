package replication

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// partDescribeQueries are the batched forms of psql 15's \d queries of a
// partitioned table (wal.PartDescribeFacts): each answers, for every
// partitioned table of $1, the rows psql's query of that name answers
// for it, led by the table's OID and in psql's order after it. A
// regclass column is read as the OID (the SQL port prints it under the
// session's search path). Booleans are read as bool (printed t/f), the
// rest as text.
func partDescribeQueries(version int) map[string]string {
	q := map[string]string{
		"dinfo": `SELECT c.oid, c.relchecks::text, c.relkind::text, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false,
			c.relispartition, pg_catalog.array_to_string(c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', '),
			c.reltablespace::text, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence::text,
			c.relreplident::text, am.amname::text
		FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid) LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
		WHERE c.oid = ANY($1) ORDER BY 1`,
		"dcols": `SELECT a.attrelid, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod),
			(SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
			a.attnotnull,
			(SELECT c.collname::text FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
			 WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation),
			a.attidentity::text, a.attgenerated::text, a.attstorage::text, a.attcompression::text,
			(CASE WHEN a.attstattarget=-1 THEN NULL ELSE a.attstattarget END)::text, pg_catalog.col_description(a.attrelid, a.attnum)
		FROM pg_catalog.pg_attribute a WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, a.attnum`,
		"dpartof": `SELECT c.oid, inhparent::text, pg_catalog.pg_get_expr(c.relpartbound, c.oid), inhdetachpending, pg_catalog.pg_get_partition_constraintdef(c.oid)
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_inherits i ON c.oid = inhrelid WHERE c.oid = ANY($1) ORDER BY 1`,
		"partkey": `SELECT p.oid, pg_catalog.pg_get_partkeydef(p.oid) FROM pg_catalog.unnest($1::pg_catalog.oid[]) p(oid) ORDER BY 1`,
		"dindex": `SELECT c.oid, c2.relname::text, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
			pg_catalog.pg_get_constraintdef(con.oid, true), contype::text, condeferrable, condeferred, i.indisreplident, c2.reltablespace::text
		FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
			LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
		WHERE c.oid = ANY($1) AND c.oid = i.indrelid AND i.indexrelid = c2.oid
		ORDER BY 1, i.indisprimary DESC, c2.relname`,
		"dchecks": `SELECT r.conrelid, r.conname::text, pg_catalog.pg_get_constraintdef(r.oid, true)
		FROM pg_catalog.pg_constraint r WHERE r.conrelid = ANY($1) AND r.contype = 'c' ORDER BY 1, r.conname`,
		"dfk": `SELECT p.oid, conrelid = p.oid AS sametable, conname::text, pg_catalog.pg_get_constraintdef(c.oid, true), conrelid::text
		FROM pg_catalog.unnest($1::pg_catalog.oid[]) p(oid), pg_catalog.pg_constraint c, pg_catalog.pg_partition_ancestors(p.oid) a
		WHERE conrelid = a.relid AND contype = 'f' AND conparentid = 0
		ORDER BY 1, sametable DESC, conname`,
		"dreferenced": `SELECT p.oid, conname::text, conrelid::text, pg_catalog.pg_get_constraintdef(c.oid, true)
		FROM pg_catalog.unnest($1::pg_catalog.oid[]) p(oid), pg_catalog.pg_constraint c
		WHERE confrelid IN (SELECT pg_catalog.pg_partition_ancestors(p.oid) UNION ALL VALUES (p.oid::pg_catalog.regclass))
			AND contype = 'f' AND conparentid = 0
		ORDER BY 1, conname`,
		// The foreign keys PostgreSQL cloned (conparentid <> 0) onto its
		// partitions, referencing them or of them: psql leaves them out
		// of \d, which the schema facts do not tell.
		"dclones": `SELECT i.inhparent, c.oid::text FROM pg_catalog.pg_inherits i, pg_catalog.pg_constraint c
		WHERE i.inhparent = ANY($1) AND (c.confrelid = i.inhrelid OR c.conrelid = i.inhrelid) AND c.contype = 'f' AND c.conparentid <> 0
		ORDER BY 1, c.oid`,
		// What sidecar refuses when there is any: policies, extended
		// statistics objects, rules.
		"dpolicies": `SELECT polrelid, polname::text FROM pg_catalog.pg_policy WHERE polrelid = ANY($1) ORDER BY 1, 2`,
		"dstats":    `SELECT stxrelid, stxname::text FROM pg_catalog.pg_statistic_ext WHERE stxrelid = ANY($1) ORDER BY 1, 2`,
		"dinherits": `SELECT i.inhrelid, c.oid::text FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
		WHERE c.oid = i.inhparent AND i.inhrelid = ANY($1) AND c.relkind != 'p' AND c.relkind != 'I' ORDER BY 1, inhseqno`,
		"dparts": `SELECT i.inhparent, c.oid::text, c.relkind::text, inhdetachpending, pg_catalog.pg_get_expr(c.relpartbound, c.oid)
		FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i WHERE c.oid = i.inhrelid AND i.inhparent = ANY($1)
		ORDER BY 1, pg_catalog.pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', c.oid::pg_catalog.regclass::pg_catalog.text`,
	}
	// The triggers psql lists: before 15 also the internal ones that
	// depend on another trigger (psql's text for such a server).
	trig := `(NOT t.tgisinternal OR (t.tgisinternal AND t.tgenabled = 'D'))`
	if version < 150000 {
		trig = `(NOT t.tgisinternal OR (t.tgisinternal AND t.tgenabled = 'D') OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend WHERE objid = t.oid AND refclassid = 'pg_catalog.pg_trigger'::pg_catalog.regclass))`
	}
	q["dtriggers"] = `SELECT t.tgrelid, t.tgname::text, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled::text, t.tgisinternal,
		(CASE WHEN t.tgparentid != 0 THEN
			(SELECT u.tgrelid FROM pg_catalog.pg_trigger AS u, pg_catalog.pg_partition_ancestors(t.tgrelid) WITH ORDINALITY AS a(relid, depth)
			 WHERE u.tgname = t.tgname AND u.tgrelid = a.relid AND u.tgparentid = 0 ORDER BY a.depth LIMIT 1)
		END)::text
	FROM pg_catalog.pg_trigger t WHERE t.tgrelid = ANY($1) AND ` + trig + ` ORDER BY 1, t.tgname`
	// The publications: psql's text for a 15+ server (schemas, row
	// filters and column lists), or before 15.
	if version >= 150000 {
		q["dpubs"] = `SELECT pc.oid, pubname::text, NULL::text, NULL::text
		FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
			JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
		WHERE pc.oid = ANY($1) AND pg_catalog.pg_relation_is_publishable(pc.oid)
		UNION
		SELECT pr.prrelid, pubname::text, pg_catalog.pg_get_expr(pr.prqual, c.oid),
			(CASE WHEN pr.prattrs IS NOT NULL THEN
				(SELECT string_agg(attname, ', ') FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
					pg_catalog.pg_attribute WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
			ELSE NULL END)
		FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
		WHERE pr.prrelid = ANY($1)
		UNION
		SELECT pc.oid, pubname::text, NULL::text, NULL::text FROM pg_catalog.pg_publication p, pg_catalog.pg_class pc
		WHERE pc.oid = ANY($1) AND p.puballtables AND pg_catalog.pg_relation_is_publishable(pc.oid)
		ORDER BY 1, 2`
	} else {
		q["dpubs"] = `SELECT pr.prrelid, pubname::text, NULL::text, NULL::text
		FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid WHERE pr.prrelid = ANY($1)
		UNION ALL
		SELECT pc.oid, pubname::text, NULL::text, NULL::text FROM pg_catalog.pg_publication p, pg_catalog.pg_class pc
		WHERE pc.oid = ANY($1) AND p.puballtables AND pg_catalog.pg_relation_is_publishable(pc.oid)
		ORDER BY 1, 2`
	}
	return q
}

// partDescribeRegclass are, per query, the columns (after the leading
// OID) read as a regclass's OID.
var partDescribeRegclass = map[string][]int{"dpartof": {0}, "dfk": {3}, "dreferenced": {1}, "dtriggers": {4}, "dinherits": {0}, "dparts": {0}}

// readPartDescribe reads what psql's \d prints of every partitioned
// table of the database outside the system schemas
// (wal.PartDescribeFacts), under search_path public (the SQL port
// refuses under a path that would print names otherwise). More than
// wal.MaxPartDescribe tables records none (Tables nil); a table one of
// whose answers has more than wal.MaxPartDescribeRows rows is left out
// (\d of it stays refused). Before 14 nothing is read (nil). The
// catalogs read are readable by PUBLIC.
func readPartDescribe(ctx context.Context, conn *pgx.Conn, version int) (*wal.PartDescribeFacts, error) {
	if version < 140000 {
		return nil, nil
	}
	var out *wal.PartDescribeFacts
	err := underSearchPath(ctx, conn, "public", func() error {
		var err error
		out, err = readPartDescribeTables(ctx, conn, version)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read partitioned tables: %w", err)
	}
	return out, nil
}

// readPartDescribeTables is readPartDescribe under search_path public.
func readPartDescribeTables(ctx context.Context, conn *pgx.Conn, version int) (*wal.PartDescribeFacts, error) {
	rows, err := conn.Query(ctx, `SELECT c.oid, n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'p' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_toast' ORDER BY 1 LIMIT $1`, wal.MaxPartDescribe+1)
	if err != nil {
		return nil, err
	}
	var tables []wal.PartDescribe
	var t wal.PartDescribe
	if _, err := pgx.ForEachRow(rows, []any{&t.OID, &t.Schema, &t.Name}, func() error {
		tables = append(tables, t)
		return nil
	}); err != nil {
		return nil, err
	}
	out := &wal.PartDescribeFacts{Tables: []wal.PartDescribe{}}
	if len(tables) > wal.MaxPartDescribe {
		out.Tables = nil
		return out, nil
	}
	if len(tables) == 0 {
		return out, nil
	}
	oids := make([]uint32, len(tables))
	for i, t := range tables {
		oids[i] = t.OID
	}
	over := map[uint32]bool{} // a table with an answer over the bound
	named := map[uint32]map[uint32]bool{}
	for name, sql := range partDescribeQueries(version) {
		got := map[uint32][][]wal.PartCell{}
		rows, err := conn.Query(ctx, sql, oids)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			rel, _ := vals[0].(uint32)
			if len(got[rel]) >= wal.MaxPartDescribeRows {
				over[rel] = true
				continue
			}
			row := make([]wal.PartCell, len(vals)-1)
			for i, v := range vals[1:] {
				row[i] = partCell(v)
			}
			for _, c := range partDescribeRegclass[name] {
				if n, err := strconv.ParseUint(row[c].Text, 10, 32); err == nil && !row[c].Null {
					if named[rel] == nil {
						named[rel] = map[uint32]bool{}
					}
					named[rel][uint32(n)] = true
				}
			}
			got[rel] = append(got[rel], row)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i := range tables {
			tables[i].Results = append(tables[i].Results, wal.PartResult{Query: name, Rows: got[tables[i].OID]})
		}
	}
	// The relations the regclass columns name.
	var all []uint32
	for _, m := range named {
		for o := range m {
			all = append(all, o)
		}
	}
	rels := map[uint32]wal.PartRel{}
	if len(all) > 0 {
		rows, err := conn.Query(ctx, `SELECT c.oid, n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE c.oid = ANY($1)`, all)
		if err != nil {
			return nil, err
		}
		var r wal.PartRel
		if _, err := pgx.ForEachRow(rows, []any{&r.OID, &r.Schema, &r.Name}, func() error {
			rels[r.OID] = r
			return nil
		}); err != nil {
			return nil, err
		}
	}
	for i := range tables {
		t := &tables[i]
		if over[t.OID] {
			continue
		}
		// By name and OID: the same facts encode the same every poll.
		slices.SortFunc(t.Results, func(a, b wal.PartResult) int { return strings.Compare(a.Query, b.Query) })
		for o := range named[t.OID] {
			if r, ok := rels[o]; ok {
				t.Rels = append(t.Rels, r)
			}
		}
		slices.SortFunc(t.Rels, func(a, b wal.PartRel) int { return cmp.Compare(a.OID, b.OID) })
		out.Tables = append(out.Tables, *t)
	}
	return out, nil
}

// partCell is one value's text output as PostgreSQL sends it.
func partCell(v any) wal.PartCell {
	switch x := v.(type) {
	case nil:
		return wal.PartCell{Null: true}
	case bool:
		if x {
			return wal.PartCell{Text: "t"}
		}
		return wal.PartCell{Text: "f"}
	case string:
		return wal.PartCell{Text: x}
	default:
		return wal.PartCell{Text: fmt.Sprint(x)}
	}
}
