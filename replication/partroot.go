package replication

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// ReadPartRoots describes each of names that is a partitioned table now:
// its columns in attribute order (every column the root shows to a
// SELECT, generated ones included: the mirror's leaves do not hold those,
// so reading them is refused) and its leaf partitions at every level
// (issue 21 item 4). Names that are not partitioned tables, or no
// longer exist, are left out. The daemon's catalog poll calls it so that
// a partition created, attached or detached while it runs is noticed.
func ReadPartRoots(ctx context.Context, conn *pgx.Conn, names []wal.TableName) ([]*wal.PartRoot, error) {
	if len(names) == 0 {
		return nil, nil
	}
	def, err := databaseCollation(ctx, conn)
	if err != nil {
		return nil, err
	}
	var out []*wal.PartRoot
	seen := map[string]bool{}
	for _, tn := range names {
		var oid int64
		err := conn.QueryRow(ctx, `SELECT c.oid::int8 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind = 'p'`, tn.Schema, tn.Name).Scan(&oid)
		if err == pgx.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("describe partitioned table %s: %w", tn, err)
		}
		mids, err := midLevels(ctx, conn, oid) // partmid.go
		if err != nil {
			return nil, fmt.Errorf("list partitions of %s: %w", tn, err)
		}
		for _, m := range append([]partitioned{{oid, tn}}, mids...) {
			if seen[m.name.String()] {
				continue // followed by name and under another followed root too
			}
			seen[m.name.String()] = true
			pr, err := readPartRoot(ctx, conn, m.oid, m.name, def)
			if err != nil {
				return nil, err
			}
			out = append(out, pr)
		}
	}
	return out, nil
}

// readPartRoot describes the partitioned table oid, named tn: its
// columns and its leaves at every level.
func readPartRoot(ctx context.Context, conn *pgx.Conn, oid int64, tn wal.TableName, def wal.Collation) (*wal.PartRoot, error) {
	pr := &wal.PartRoot{Name: tn.String()}
	rows, err := conn.Query(ctx, `SELECT a.attname::text, a.atttypid::int8, a.atttypmod FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, oid)
	if err != nil {
		return nil, fmt.Errorf("describe partitioned table %s: %w", tn, err)
	}
	var typ int64
	var c wal.Column
	if _, err := pgx.ForEachRow(rows, []any{&c.Name, &typ, &c.TypeMod}, func() error {
		c.TypeOID = uint32(typ)
		pr.Columns = append(pr.Columns, c)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("describe partitioned table %s: %w", tn, err)
	}
	colls, err := columnCollations(ctx, conn, []int64{oid}, def)
	if err != nil {
		return nil, err
	}
	for i := range pr.Columns {
		pr.Columns[i].Collation = colls[uint32(oid)][pr.Columns[i].Name]
	}
	rows, err = conn.Query(ctx, `SELECT n.nspname::text, c.relname::text, c.relkind::text FROM pg_catalog.pg_partition_tree($1::int8::oid) pt
		JOIN pg_catalog.pg_class c ON c.oid = pt.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE pt.isleaf`, oid)
	if err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", tn, err)
	}
	type leaf struct {
		name string
		kind byte
	}
	var leaves []leaf
	var l wal.TableName
	var kind string
	if _, err := pgx.ForEachRow(rows, []any{&l.Schema, &l.Name, &kind}, func() error {
		leaves = append(leaves, leaf{l.String(), kind[0]})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", tn, err)
	}
	slices.SortFunc(leaves, func(a, b leaf) int { return strings.Compare(a.name, b.name) })
	for _, x := range leaves {
		pr.Leaves = append(pr.Leaves, x.name)
		pr.LeafKinds = append(pr.LeafKinds, x.kind)
	}
	return pr, nil
}
