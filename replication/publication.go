package replication

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/wal"
)

// PublicationSpec says what to publish.
type PublicationSpec struct {
	Name string
	// Tables are names as ParseTableName reads them, or exactly ["*"] for
	// every ordinary or partitioned table with a primary key (a new
	// publication is created with those, and marked as the sidecar's so
	// tables created later are added to it; an existing publication the
	// sidecar did not create gives the tables it publishes: see
	// startables.go).
	Tables []string
	// ViaPartitionRoot publishes changes of partitions as their root
	// table (publish_via_partition_root); otherwise as the leaf
	// partitions, where a cross-partition UPDATE arrives as a DELETE and
	// an INSERT.
	ViaPartitionRoot bool
}

// Publication is what EnsurePublication found or created.
type Publication struct {
	Name             string
	Tables           []wal.TableName // the configured tables, resolved, sorted
	ViaPartitionRoot bool
	Created          bool
	// WithoutKey lists the tables "*" left out because they have no
	// primary key.
	WithoutKey []wal.TableName
	// WithoutColumns lists the tables "*" left out because they have no
	// column (CREATE TABLE t ()): PostgreSQL counts their rows, but a row
	// carries no value the mirror could key, store or tell apart.
	WithoutColumns []wal.TableName
	// NotPublished lists the tables "*" could follow but an existing
	// publication the user made does not publish (or the sidecar's could
	// not take), so they are not followed.
	NotPublished []wal.TableName
	star         bool // Tables was ["*"]
}

// ErrPublication is wrapped by errors about the publication or the tables
// that make the configuration unusable as it stands.
var ErrPublication = errors.New("publication not usable")

// EnsurePublication creates the publication for spec's tables, or checks
// that an existing one publishes all of them with every operation, no row
// filter or column list, and the same publish_via_partition_root. It must
// run before the slot is created, and an existing publication is never
// dropped or recreated: a slot decoding WAL older than its publication
// fails forever.
//
// Every table must have a primary key or a REPLICA IDENTITY USING INDEX:
// without one, the publisher would refuse the application's UPDATEs and
// DELETEs, and the mirror has no key. The error names every such table.
func EnsurePublication(ctx context.Context, conn *pgx.Conn, spec PublicationSpec) (*Publication, error) {
	pub, err := resolvePublication(ctx, conn, spec)
	if err != nil {
		return nil, err
	}
	exists, err := checkExistingPublication(ctx, conn, pub)
	if err != nil {
		return nil, err
	}
	if !exists {
		return pub, createPublication(ctx, conn, pub)
	}
	if pub.star {
		return pub, adoptStar(ctx, conn, pub)
	}
	return pub, nil
}

// adoptStar resolves "*" through an existing publication: the tables it
// publishes, after adding the missing ones when it is the sidecar's.
func adoptStar(ctx context.Context, conn *pgx.Conn, pub *Publication) error {
	st, err := ResolveStar(ctx, conn, pub.Name, true)
	if err != nil {
		return err
	}
	pub.Tables, pub.WithoutKey, pub.WithoutColumns = st.Followable, st.WithoutKey, st.WithoutColumns
	pub.NotPublished = append(slices.Clone(st.Unpublished), slices.Collect(maps.Keys(st.NotAdded))...)
	slices.SortFunc(pub.NotPublished, func(a, b wal.TableName) int { return strings.Compare(a.String(), b.String()) })
	if len(pub.Tables) == 0 {
		return fmt.Errorf("%w: publication %q publishes no table with a primary key (tables [\"*\"] follows the tables of an existing publication the sidecar did not create): ALTER PUBLICATION %s ADD TABLE ...",
			ErrPublication, pub.Name, wal.QuoteIdent(pub.Name))
	}
	return nil
}

// resolvePublication validates spec and resolves its tables.
func resolvePublication(ctx context.Context, conn *pgx.Conn, spec PublicationSpec) (*Publication, error) {
	if err := ValidatePublicationName(spec.Name); err != nil {
		return nil, err
	}
	pub := &Publication{Name: spec.Name, ViaPartitionRoot: spec.ViaPartitionRoot}
	var err error
	if len(spec.Tables) == 1 && spec.Tables[0] == "*" {
		pub.star = true
		pub.Tables, pub.WithoutKey, pub.WithoutColumns, err = tablesWithKey(ctx, conn)
		if err != nil {
			return nil, err
		}
		if len(pub.Tables) == 0 {
			return nil, fmt.Errorf("%w: tables [\"*\"] matched no table with a primary key", ErrPublication)
		}
	} else {
		if len(spec.Tables) == 0 {
			return nil, fmt.Errorf("%w: no tables configured", ErrPublication)
		}
		for _, s := range spec.Tables {
			tn, err := wal.ParseTableName(s)
			if err != nil {
				return nil, err
			}
			pub.Tables = append(pub.Tables, tn)
		}
		if err := checkTables(ctx, conn, pub.Tables); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(pub.Tables, func(a, b wal.TableName) int { return strings.Compare(a.String(), b.String()) })
	pub.Tables = slices.Compact(pub.Tables)
	return pub, nil
}

// checkExistingPublication reports whether the publication exists, and an
// error when it does but does not fit pub.
func checkExistingPublication(ctx context.Context, conn *pgx.Conn, pub *Publication) (bool, error) {
	name := pub.Name
	var viaRoot, all, ins, upd, del, trunc bool
	err := conn.QueryRow(ctx, `SELECT pubviaroot, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate
		FROM pg_catalog.pg_publication WHERE pubname = $1`, name).Scan(&viaRoot, &all, &ins, &upd, &del, &trunc)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read publication %q: %w", name, err)
	}
	if viaRoot != pub.ViaPartitionRoot {
		return true, fmt.Errorf("%w: publication %q has publish_via_partition_root = %v, the configuration asks for %v; ALTER PUBLICATION %s SET (publish_via_partition_root = %v) and resync the partitioned tables",
			ErrPublication, name, viaRoot, pub.ViaPartitionRoot, name, pub.ViaPartitionRoot)
	}
	if !(ins && upd && del && trunc) {
		return true, fmt.Errorf("%w: publication %q does not publish every operation (insert %v, update %v, delete %v, truncate %v); ALTER PUBLICATION %s SET (publish = 'insert, update, delete, truncate')",
			ErrPublication, name, ins, upd, del, trunc, name)
	}
	filtered, err := filteredTables(ctx, conn, name)
	if err != nil {
		return true, err
	}
	if len(filtered) > 0 {
		return true, fmt.Errorf("%w: publication %q has a row filter or column list on %s; the mirror needs whole rows: remove them",
			ErrPublication, name, strings.Join(filtered, ", "))
	}
	if gen, err := publishesGeneratedColumns(ctx, conn, name); err != nil || gen { // publication_gencols.go
		if err == nil {
			err = fmt.Errorf("%w: publication %q has publish_generated_columns on; the copy leaves generated columns out, so the stream's rows would not match the mirror's: ALTER PUBLICATION %s SET (publish_generated_columns = none)",
				ErrPublication, name, wal.QuoteIdent(name))
		}
		return true, err
	}
	if all || pub.star { // "*" takes what the publication publishes (adoptStar)
		return true, nil
	}
	var missing []string
	inSchema := `OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication_namespace pn
			JOIN pg_catalog.pg_publication p ON p.oid = pn.pnpubid
			WHERE p.pubname = $1 AND pn.pnnspid = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $2))`
	if v, err := ServerVersionNum(conn.PgConn()); err == nil && v < 150000 {
		inSchema = "" // FOR TABLES IN SCHEMA (pg_publication_namespace) arrived in 15
	}
	for _, t := range pub.Tables {
		var in bool
		err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel pr
			JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid
			WHERE p.pubname = $1 AND pr.prrelid = (quote_ident($2) || '.' || quote_ident($3))::regclass) `+inSchema,
			name, t.Schema, t.Name).Scan(&in)
		if err != nil {
			return true, fmt.Errorf("read publication %q: table %s: %w", name, t, err)
		}
		if !in {
			missing = append(missing, t.Quoted())
		}
	}
	if len(missing) > 0 {
		return true, fmt.Errorf("%w: publication %q exists but does not publish %s; ALTER PUBLICATION %s ADD TABLE %s, then `sidecar resync` those tables",
			ErrPublication, name, strings.Join(missing, ", "), name, strings.Join(missing, ", "))
	}
	return true, nil
}

func createPublication(ctx context.Context, conn *pgx.Conn, pub *Publication) error {
	names := make([]string, len(pub.Tables))
	for i, t := range pub.Tables {
		names[i] = t.Quoted()
	}
	sql := fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE %s WITH (publish = 'insert, update, delete, truncate', publish_via_partition_root = %v)",
		wal.QuoteIdent(pub.Name), strings.Join(names, ", "), pub.ViaPartitionRoot)
	// Created and marked as the sidecar's in one transaction: a
	// publication without the mark is the user's (startables.go).
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return err
		}
		return markManaged(ctx, tx.Conn(), pub.Name, pub.star)
	})
	if err != nil {
		return fmt.Errorf("create publication %q: %w", pub.Name, err)
	}
	pub.Created = true
	return nil
}

// tableClassSQL selects user tables (ordinary or partitioned, permanent,
// not a partition themselves) with whether the mirror can follow them: a
// usable key, or REPLICA IDENTITY FULL (kept as a multiset of whole rows),
// on the table and, for a partitioned one, on every partition (they do not
// inherit their root's REPLICA IDENTITY); and whether it has any column (a
// table without one cannot be followed).
const tableClassSQL = `SELECT n.nspname, c.relname,
	(c.relreplident = 'f' OR c.relreplident <> 'n' AND EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid
		AND (i.indisprimary OR (c.relreplident = 'i' AND i.indisreplident))))
	AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_partition_tree(c.oid) pt JOIN pg_catalog.pg_class l ON l.oid = pt.relid
		WHERE c.relkind = 'p' AND pt.isleaf AND NOT (l.relreplident = 'f' OR l.relreplident <> 'n' AND EXISTS (
			SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = l.oid
			AND (i.indisprimary OR (l.relreplident = 'i' AND i.indisreplident))))) AS has_key,
	EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '') AS has_columns
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND c.relpersistence = 'p' AND NOT c.relispartition
	AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'`

// tablesWithKey lists the tables "*" follows (with), and those it leaves
// out: without a key, and without any column (noCols; such a table is
// listed there whatever its key).
func tablesWithKey(ctx context.Context, conn *pgx.Conn) (with, without, noCols []wal.TableName, err error) {
	rows, err := conn.Query(ctx, tableClassSQL+` ORDER BY 1, 2`)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t wal.TableName
		var key, cols bool
		if err := rows.Scan(&t.Schema, &t.Name, &key, &cols); err != nil {
			return nil, nil, nil, fmt.Errorf("list tables: %w", err)
		}
		switch {
		case !cols:
			noCols = append(noCols, t)
		case key:
			with = append(with, t)
		default:
			without = append(without, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("list tables: %w", err)
	}
	return with, without, noCols, nil
}

// checkTables verifies that each table exists and has a key, naming every
// offender in one error.
func checkTables(ctx context.Context, conn *pgx.Conn, tables []wal.TableName) error {
	var missing, keyless, noCols []string
	for _, t := range tables {
		var key, cols bool
		err := conn.QueryRow(ctx, tableClassSQL+` AND n.nspname = $1 AND c.relname = $2`, t.Schema, t.Name).Scan(nil, nil, &key, &cols)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			missing = append(missing, t.String())
		case err != nil:
			return fmt.Errorf("check table %s: %w", t, err)
		case !cols:
			noCols = append(noCols, t.String())
		case !key:
			keyless = append(keyless, t.String())
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%w: no such table (ordinary or partitioned, not a partition, not temporary or unlogged): %s",
			ErrPublication, strings.Join(missing, ", ")))
	}
	if len(keyless) > 0 {
		errs = append(errs, fmt.Errorf("%w: tables without a primary key or REPLICA IDENTITY USING INDEX or FULL: %s; add a primary key (or ALTER TABLE ... REPLICA IDENTITY USING INDEX a unique index, or ALTER TABLE ... REPLICA IDENTITY FULL to follow it as a multiset of whole rows), or remove them from `tables`",
			ErrPublication, strings.Join(keyless, ", ")))
	}
	if len(noCols) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrPublication, NoColumnsProblem(noCols)))
	}
	return errors.Join(errs...)
}

// NoColumnsProblem says why tables without any column cannot be followed,
// and what to do; preflight and the copy say the same.
func NoColumnsProblem(tables []string) string {
	return fmt.Sprintf("tables without any column: %s; PostgreSQL counts their rows, but a row carries no value the sidecar could key, store or tell apart, so they cannot be followed: add a column (ALTER TABLE ... ADD COLUMN ...), or remove them from `tables`",
		strings.Join(tables, ", "))
}

// KeyColumns returns the names of the columns the mirror keys a table by,
// in index order: the primary key, or the REPLICA IDENTITY USING INDEX
// index when there is no primary key. Relation key flags cannot tell:
// under REPLICA IDENTITY FULL every column is flagged.
func KeyColumns(ctx context.Context, conn *pgx.Conn, t wal.TableName) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT a.attname FROM pg_catalog.pg_index i
		CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
		JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass
		AND i.indexrelid = (SELECT i2.indexrelid FROM pg_catalog.pg_index i2 WHERE i2.indrelid = i.indrelid
			AND (i2.indisprimary OR i2.indisreplident) ORDER BY i2.indisprimary DESC LIMIT 1)
		ORDER BY k.ord`, t.Schema, t.Name)
	if err != nil {
		return nil, fmt.Errorf("key columns of %s: %w", t, err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("key columns of %s: %w", t, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: %s has no primary key or replica identity index", ErrPublication, t)
	}
	return cols, nil
}

// filteredTables lists the tables publication name publishes with a row
// filter or a column list. Both arrived in PostgreSQL 15 (prqual,
// prattrs); a 14 publication has neither.
func filteredTables(ctx context.Context, conn *pgx.Conn, name string) ([]string, error) {
	if v, err := ServerVersionNum(conn.PgConn()); err == nil && v < 150000 {
		return nil, nil
	}
	rows, err := conn.Query(ctx, `SELECT n.nspname || '.' || c.relname FROM pg_catalog.pg_publication_rel pr
		JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid
		JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE p.pubname = $1 AND (pr.prqual IS NOT NULL OR pr.prattrs IS NOT NULL)`, name)
	if err != nil {
		return nil, fmt.Errorf("read publication %q: %w", name, err)
	}
	filtered, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read publication %q: %w", name, err)
	}
	return filtered, nil
}
