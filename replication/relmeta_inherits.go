package replication

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readInherits reads, per table, its direct parents (pg_inherits), the
// partitioned tables above it when it is a partition
// (pg_partition_ancestors: its direct parent first, up to the root) and
// the column comments of the views its schema facts carry
// (wal.InheritFacts). Every table gets facts, empty when it has none.
func readInherits(ctx context.Context, conn *pgx.Conn, oids []int64, schema map[uint32]*wal.SchemaFacts) (map[uint32]*wal.InheritFacts, error) {
	out := map[uint32]*wal.InheritFacts{}
	for _, o := range oids {
		out[uint32(o)] = &wal.InheritFacts{}
	}
	rows, err := conn.Query(ctx, `SELECT i.inhrelid::int8, p.oid::int8, n.nspname::text, p.relname::text, p.relkind::text, i.inhdetachpending
		FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class p ON p.oid = i.inhparent JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace
		WHERE i.inhrelid = ANY($1::int8[]::oid[]) ORDER BY 1, i.inhseqno`, oids)
	if err != nil {
		return nil, fmt.Errorf("read parents: %w", err)
	}
	var child, oid int64
	var p wal.InheritParent
	var kind string
	_, err = pgx.ForEachRow(rows, []any{&child, &oid, &p.Schema, &p.Name, &kind, &p.DetachPending}, func() error {
		q := p
		q.OID = uint32(oid)
		if kind != "" {
			q.Kind = kind[0]
		}
		out[uint32(child)].Parents = append(out[uint32(child)].Parents, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read parents: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT t.oid::int8, c.oid::int8, n.nspname::text, c.relname::text, c.relowner::int8,
			coalesce(pg_catalog.pg_get_userbyid(c.relowner)::text, ''), coalesce((SELECT i.inhparent::int8 FROM pg_catalog.pg_inherits i WHERE i.inhrelid = c.oid), 0),
			coalesce(pg_catalog.pg_get_expr(c.relpartbound, c.oid), ''), c.relnatts::int8
		FROM pg_catalog.pg_class t, LATERAL pg_catalog.pg_partition_ancestors(t.oid) WITH ORDINALITY AS a(relid, depth)
		JOIN pg_catalog.pg_class c ON c.oid = a.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE t.oid = ANY($1::int8[]::oid[]) AND t.relispartition AND a.relid <> t.oid ORDER BY 1, a.depth`, oids)
	if err != nil {
		return nil, fmt.Errorf("read partitioned ancestors: %w", err)
	}
	var a wal.PartAncestor
	var owner, parent, natts int64
	_, err = pgx.ForEachRow(rows, []any{&child, &oid, &a.Schema, &a.Name, &owner, &a.Owner, &parent, &a.Bound, &natts}, func() error {
		b := a
		b.OID, b.OwnerOID, b.Parent, b.Natts = uint32(oid), uint32(owner), uint32(parent), int16(natts)
		out[uint32(child)].Ancestors = append(out[uint32(child)].Ancestors, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read partitioned ancestors: %w", err)
	}
	if err := readPartIndexes(ctx, conn, out); err != nil {
		return nil, err
	}
	return out, readViewComments(ctx, conn, schema, out)
}

// readPartIndexes reads the partitioned indexes of the ancestors in out.
func readPartIndexes(ctx context.Context, conn *pgx.Conn, out map[uint32]*wal.InheritFacts) error {
	var anc []int64
	for _, in := range out {
		for _, a := range in.Ancestors {
			anc = append(anc, int64(a.OID))
		}
	}
	if len(anc) == 0 {
		return nil
	}
	// pg_index as to_jsonb: indnullsnotdistinct is 15's.
	rows, err := conn.Query(ctx, `SELECT i.indrelid::int8, c.oid::int8, c.relname::text, c.relam::int8, c.relnatts::int8,
			coalesce((SELECT h.inhparent::int8 FROM pg_catalog.pg_inherits h WHERE h.inhrelid = c.oid), 0), i.indnkeyatts::int8, to_jsonb(i)
		FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = ANY($1::int8[]::oid[]) ORDER BY 1, 2`, anc)
	if err != nil {
		return fmt.Errorf("read partitioned indexes: %w", err)
	}
	idx := map[uint32][]wal.PartIndex{}
	var table, oid, am, natts, parent, keys int64
	var name string
	var raw []byte
	_, err = pgx.ForEachRow(rows, []any{&table, &oid, &name, &am, &natts, &parent, &keys, &raw}, func() error {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		var flags uint16
		for i, col := range []string{"indisunique", "indnullsnotdistinct", "indisprimary", "indisexclusion", "indimmediate", "indisclustered",
			"indisvalid", "indcheckxmin", "indisready", "indislive", "indisreplident"} {
			if b, _ := m[col].(bool); b {
				flags |= 1 << i
			}
		}
		idx[uint32(table)] = append(idx[uint32(table)], wal.PartIndex{OID: uint32(oid), Name: name, AM: uint32(am), Natts: int16(natts),
			Parent: uint32(parent), KeyAtts: int16(keys), Flags: flags})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read partitioned indexes: %w", err)
	}
	for _, in := range out {
		for i := range in.Ancestors {
			in.Ancestors[i].Indexes = idx[in.Ancestors[i].OID]
		}
	}
	return nil
}

// readViewComments reads the column comments of each table's views.
func readViewComments(ctx context.Context, conn *pgx.Conn, schema map[uint32]*wal.SchemaFacts, out map[uint32]*wal.InheritFacts) error {
	var views []int64
	for _, s := range schema {
		if s == nil {
			continue
		}
		for _, v := range s.Views {
			views = append(views, int64(v.OID))
		}
	}
	if len(views) == 0 {
		return nil
	}
	rows, err := conn.Query(ctx, `SELECT d.objoid::int8, d.objsubid::int8, d.description FROM pg_catalog.pg_description d
		WHERE d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objoid = ANY($1::int8[]::oid[]) AND d.objsubid > 0`, views)
	if err != nil {
		return fmt.Errorf("read view column comments: %w", err)
	}
	comments := map[uint32]map[int]string{}
	var view, sub int64
	var text string
	_, err = pgx.ForEachRow(rows, []any{&view, &sub, &text}, func() error {
		if comments[uint32(view)] == nil {
			comments[uint32(view)] = map[int]string{}
		}
		comments[uint32(view)][int(sub)] = text
		return nil
	})
	if err != nil {
		return fmt.Errorf("read view column comments: %w", err)
	}
	for t, s := range schema {
		if s == nil || out[t] == nil {
			continue
		}
		for _, v := range s.Views {
			vc := wal.ViewComments{OID: v.OID}
			if len(comments[v.OID]) > 0 {
				vc.Comments = make([]string, len(v.Columns))
				for n := range vc.Comments {
					vc.Comments[n] = comments[v.OID][n+1]
				}
			}
			out[t].ViewComments = append(out[t].ViewComments, vc)
		}
	}
	return nil
}
