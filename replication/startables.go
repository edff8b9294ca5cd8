package replication

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sidecar-dev/sidecar/wal"
)

// Tables ["*"] follows every table of the database, including tables
// created later (issue 21). Who may change the publication decides how:
//
//   - a publication the sidecar created (its comment starts with
//     ManagedPublicationComment) is the sidecar's: a table created later
//     that can be followed (a key or REPLICA IDENTITY FULL, a column) is
//     added to it (ALTER PUBLICATION … ADD TABLE) and followed;
//   - a publication the user made is the user's: the tables it publishes
//     are followed, including ones added to it later (or every table, FOR
//     ALL TABLES, or every table of a schema, FOR TABLES IN SCHEMA); a
//     table it does not publish is not followed, and is reported.
//
// A table without a key is never added by the sidecar: published, the
// application's UPDATEs and DELETEs on it would fail.

// ManagedPublicationComment starts the comment of every publication the
// sidecar creates: with tables ["*"], the sidecar adds tables created
// later to it. A user can hand a publication to the sidecar by giving it
// such a comment (COMMENT ON PUBLICATION).
const ManagedPublicationComment = "created by sidecar"

// markManaged comments the publication the sidecar just created.
func markManaged(ctx context.Context, conn *pgx.Conn, name string, star bool) error {
	text := ManagedPublicationComment + "; it adds no table itself (tables are listed in its configuration)"
	if star {
		text = ManagedPublicationComment + ` for tables ["*"]; it adds tables created later to this publication`
	}
	sql := fmt.Sprintf("COMMENT ON PUBLICATION %s IS '%s'", wal.QuoteIdent(name), strings.ReplaceAll(text, "'", "''"))
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("comment on publication %q: %w", name, err)
	}
	return nil
}

// PublicationManaged reports whether publication name exists and is the
// sidecar's (see ManagedPublicationComment).
func PublicationManaged(ctx context.Context, conn *pgx.Conn, name string) (exists, managed bool, err error) {
	var comment string
	err = conn.QueryRow(ctx, `SELECT coalesce(pg_catalog.obj_description(oid, 'pg_publication'), '')
		FROM pg_catalog.pg_publication WHERE pubname = $1`, name).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read publication %q: %w", name, err)
	}
	return true, strings.HasPrefix(comment, ManagedPublicationComment), nil
}

// StarTables is what tables ["*"] follows now (ResolveStar).
type StarTables struct {
	// Managed: the publication is the sidecar's (it adds new tables).
	Managed bool
	// Followable are the tables to follow: published (or added by this
	// call), with a key and a column; sorted.
	Followable []wal.TableName
	// Added are the tables this call added to the publication.
	Added []wal.TableName
	// Unpublished are tables that could be followed but the user's
	// publication does not publish them; NotAdded those the sidecar's
	// publication could not take, with why (ALTER PUBLICATION failed:
	// the role does not own the table).
	Unpublished []wal.TableName
	NotAdded    map[wal.TableName]string
	// NotAddedCode is the SQLSTATE of each NotAdded failure.
	NotAddedCode map[wal.TableName]string
	// Deferred are the tables the call did not try to add (its skip said
	// so: they failed before and are tried again later).
	Deferred []wal.TableName
	// WithoutKey and WithoutColumns are left out: no primary key or
	// replica identity, no column (whether published or not).
	WithoutKey, WithoutColumns []wal.TableName
}

// publishedSQL lists the ordinary and partitioned tables publication $1
// publishes: all of them (FOR ALL TABLES), those listed, and (15+) those
// of the schemas it lists.
const publishedSQL = `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
	JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND (
		EXISTS (SELECT 1 FROM pg_catalog.pg_publication p WHERE p.pubname = $1 AND p.puballtables)
		OR c.oid IN (SELECT pr.prrelid FROM pg_catalog.pg_publication_rel pr
			JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid WHERE p.pubname = $1)`

const publishedInSchemaSQL = `
		OR c.relnamespace IN (SELECT pn.pnnspid FROM pg_catalog.pg_publication_namespace pn
			JOIN pg_catalog.pg_publication p ON p.oid = pn.pnpubid WHERE p.pubname = $1)`

// publishedTables returns the tables publication name publishes.
func publishedTables(ctx context.Context, conn *pgx.Conn, name string) (map[wal.TableName]bool, error) {
	q := publishedSQL
	if v, err := ServerVersionNum(conn.PgConn()); err != nil || v >= 150000 {
		q += publishedInSchemaSQL // FOR TABLES IN SCHEMA arrived in 15
	}
	rows, err := conn.Query(ctx, q+")", name)
	if err != nil {
		return nil, fmt.Errorf("list the tables of publication %q: %w", name, err)
	}
	defer rows.Close()
	out := map[wal.TableName]bool{}
	for rows.Next() {
		var t wal.TableName
		if err := rows.Scan(&t.Schema, &t.Name); err != nil {
			return nil, fmt.Errorf("list the tables of publication %q: %w", name, err)
		}
		out[t] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the tables of publication %q: %w", name, err)
	}
	return out, nil
}

// ResolveStar reads what tables ["*"] follows now through the existing
// publication name. With add, a table that can be followed but is not
// published is added to the publication when the publication is the
// sidecar's (each table on its own: one the role cannot add is listed in
// NotAdded and the others are added).
func ResolveStar(ctx context.Context, conn *pgx.Conn, name string, add bool) (*StarTables, error) {
	return ResolveStarSkip(ctx, conn, name, add, nil)
}

// ResolveStarSkip is ResolveStar not trying to add the tables skip
// reports (listed in Deferred): the daemon backs off from a table the
// role cannot add (not its owner), which would otherwise fail, and log an
// error in PostgreSQL, at every poll.
func ResolveStarSkip(ctx context.Context, conn *pgx.Conn, name string, add bool, skip func(wal.TableName) bool) (*StarTables, error) {
	exists, managed, err := PublicationManaged(ctx, conn, name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%w: publication %q does not exist", ErrPublication, name)
	}
	with, without, noCols, err := tablesWithKey(ctx, conn)
	if err != nil {
		return nil, err
	}
	pub, err := publishedTables(ctx, conn, name)
	if err != nil {
		return nil, err
	}
	st := &StarTables{Managed: managed, WithoutKey: without, WithoutColumns: noCols}
	for _, t := range with {
		switch {
		case pub[t]:
			st.Followable = append(st.Followable, t)
		case managed && add && skip != nil && skip(t):
			st.Deferred = append(st.Deferred, t)
		case managed && add:
			if err := addToPublication(ctx, conn, name, t); err != nil {
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || ctx.Err() != nil {
					return nil, fmt.Errorf("add %s to publication %q: %w", t, name, err)
				}
				if pe.Code == "42P01" {
					continue // dropped since it was listed
				}
				// 55P03: a lock held on the table (a migration still
				// running): tried again at the next poll.
				if st.NotAdded == nil {
					st.NotAdded, st.NotAddedCode = map[wal.TableName]string{}, map[wal.TableName]string{}
				}
				st.NotAdded[t], st.NotAddedCode[t] = pe.Message, pe.Code
				continue
			}
			st.Added = append(st.Added, t)
			st.Followable = append(st.Followable, t)
		default:
			st.Unpublished = append(st.Unpublished, t)
		}
	}
	slices.SortFunc(st.Followable, func(a, b wal.TableName) int { return strings.Compare(a.String(), b.String()) })
	return st, nil
}

// addToPublication adds t to publication name, waiting at most 5 s for
// the table's lock (a migration holding it makes the caller try again
// later instead of blocking the catalog poll).
func addToPublication(ctx context.Context, conn *pgx.Conn, name string, t wal.TableName) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, fmt.Sprintf("ALTER PUBLICATION %s ADD TABLE %s", wal.QuoteIdent(name), t.Quoted()))
		return err
	})
}
