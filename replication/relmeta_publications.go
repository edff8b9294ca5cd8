package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readPublications reads the database's publications, their tables and
// (from 15) their schemas for the SQL port's pg_publication,
// pg_publication_rel and pg_publication_namespace and psql's \d footer
// "Publications:" (a row filter as pg_get_expr prints it, a column list
// by name). version is server_version_num: 15 added the schemas, row
// filters and column lists, 18 pubgencols. A database with more than
// wal.MaxPublicationRows rows in all is recorded without them (nil).
//
// The statements read one snapshot, so that a concurrent ALTER
// PUBLICATION (which may change pg_publication and pg_publication_rel or
// pg_publication_namespace in one transaction) is seen whole or not at
// all: outside a transaction they run in a REPEATABLE READ READ ONLY one
// of their own; inside one (the copy's, REPEATABLE READ under its
// snapshot: beginSnapshot) they share its snapshot.
func readPublications(ctx context.Context, conn *pgx.Conn, version int) (*wal.PublicationFacts, error) {
	if conn.PgConn().TxStatus() != 'I' {
		return readPublicationsIn(ctx, conn, version)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("publications: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only: nothing to keep; an error here is the connection's, seen by its next use
	out, err := readPublicationsIn(ctx, conn, version)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("publications: %w", err)
	}
	return out, nil
}

// readPublicationsIn is readPublications in the connection's current
// transaction.
func readPublicationsIn(ctx context.Context, conn *pgx.Conn, version int) (*wal.PublicationFacts, error) {
	counts := `(SELECT count(*) FROM pg_catalog.pg_publication) + (SELECT count(*) FROM pg_catalog.pg_publication_rel)`
	if version >= 150000 {
		counts += ` + (SELECT count(*) FROM pg_catalog.pg_publication_namespace)`
	}
	var n int64
	if err := conn.QueryRow(ctx, `SELECT `+counts).Scan(&n); err != nil {
		return nil, fmt.Errorf("publications: %w", err)
	}
	if n > wal.MaxPublicationRows {
		return nil, nil
	}
	gencols := `''`
	if version >= 180000 {
		gencols = `p.pubgencols::text`
	}
	rows, err := conn.Query(ctx, `SELECT p.oid::int8, p.pubname::text, p.pubowner::int8, p.puballtables, p.pubinsert, p.pubupdate, p.pubdelete,
			p.pubtruncate, p.pubviaroot, `+gencols+` FROM pg_catalog.pg_publication p ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("publications: %w", err)
	}
	out := &wal.PublicationFacts{}
	var oid, owner, pub, rel int64
	var p wal.PublicationRow
	var gen string
	_, err = pgx.ForEachRow(rows, []any{&oid, &p.Name, &owner, &p.AllTables, &p.Insert, &p.Update, &p.Delete, &p.Truncate, &p.ViaRoot, &gen}, func() error {
		x := p
		x.OID, x.Owner, x.GenCols = uint32(oid), uint32(owner), charByte(gen)
		out.Publications = append(out.Publications, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("publications: %w", err)
	}
	filters := `false, '', '', NULL::int2[], NULL::text[]`
	if version >= 150000 {
		filters = `pr.prqual IS NOT NULL, coalesce(pg_catalog.pg_get_expr(pr.prqual, pr.prrelid), ''), coalesce(pg_catalog.pg_get_expr(pr.prqual, pr.prrelid, true), ''),
			pr.prattrs::int2[], CASE WHEN pr.prattrs IS NOT NULL THEN ` + fmt.Sprintf(attnames, "pr.prattrs::int2[]", "pr.prrelid") + ` END`
	}
	rows, err = conn.Query(ctx, `SELECT pr.oid::int8, pr.prpubid::int8, pr.prrelid::int8, `+filters+` FROM pg_catalog.pg_publication_rel pr ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("publications' tables: %w", err)
	}
	var r wal.PublicationRel
	_, err = pgx.ForEachRow(rows, []any{&oid, &pub, &rel, &r.HasQual, &r.Qual, &r.QualPretty, &r.Attrs, &r.AttrNames}, func() error {
		x := r
		x.OID, x.PubOID, x.RelOID = uint32(oid), uint32(pub), uint32(rel)
		out.Rels = append(out.Rels, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("publications' tables: %w", err)
	}
	if version < 150000 {
		return out, nil
	}
	rows, err = conn.Query(ctx, `SELECT pn.oid::int8, pn.pnpubid::int8, pn.pnnspid::int8 FROM pg_catalog.pg_publication_namespace pn ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("publications' schemas: %w", err)
	}
	var nsp int64
	_, err = pgx.ForEachRow(rows, []any{&oid, &pub, &nsp}, func() error {
		out.Namespaces = append(out.Namespaces, wal.PublicationNamespace{OID: uint32(oid), PubOID: uint32(pub), NspOID: uint32(nsp)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("publications' schemas: %w", err)
	}
	return out, nil
}
