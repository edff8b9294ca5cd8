package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readRelationList reads every relation of the database outside
// pg_catalog, information_schema and the TOAST schemas but other
// sessions' temporary ones (pg_class with
// its comment, and pg_sequence's row of a sequence; at most
// wal.MaxListedRelations, else the relations are not read) and every
// schema with its owner (wal.RelationListFacts): what the SQL port's
// catalog lists beyond the followed tables. A sequence's state is not
// read. Temporary relations are left out: sessions create and drop them
// all the time (every poll would record a new list), psql's listings
// and information_schema do not show other sessions' ones, and only
// pg_class scans not limited to visible relations would. pg_class, pg_namespace, pg_description and pg_sequence are
// readable by PUBLIC.
func readRelationList(ctx context.Context, conn *pgx.Conn) (*wal.RelationListFacts, error) {
	l := &wal.RelationListFacts{Namespaces: []wal.NamespaceOwner{}}
	rows, err := conn.Query(ctx, `SELECT oid::int8, nspname::text, nspowner::int8 FROM pg_catalog.pg_namespace ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("schemas and owners: %w", err)
	}
	var oid, nsp, owner int64
	var n wal.NamespaceOwner
	_, err = pgx.ForEachRow(rows, []any{&oid, &n.Name, &owner}, func() error {
		l.Namespaces = append(l.Namespaces, wal.NamespaceOwner{OID: uint32(oid), Name: n.Name, Owner: uint32(owner)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schemas and owners: %w", err)
	}
	const from, where = relationListFrom, relationListWhere
	var count int64
	if err := conn.QueryRow(ctx, `SELECT count(*) `+from+` `+where).Scan(&count); err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	if count > wal.MaxListedRelations {
		return l, nil
	}
	rows, err = conn.Query(ctx, `SELECT c.oid::int8, c.relnamespace::int8, c.relname::text, c.relkind::text, c.relowner::int8, c.relpersistence::text,
			c.relacl IS NOT NULL, coalesce(c.relacl::text[], '{}'), c.reloptions, d.description IS NOT NULL, coalesce(d.description, ''),
			s.seqrelid IS NOT NULL, coalesce(s.seqtypid, 0)::int8, coalesce(s.seqstart, 0), coalesce(s.seqincrement, 0), coalesce(s.seqmax, 0),
			coalesce(s.seqmin, 0), coalesce(s.seqcache, 0), coalesce(s.seqcycle, false),
			c.reltype::int8, c.reloftype::int8, c.relam::int8, c.reltablespace::int8, c.relnatts, c.relchecks, c.relhasindex, c.relhasrules,
			c.relhastriggers, c.relhassubclass, c.relispartition, c.relrowsecurity, c.relforcerowsecurity, c.relispopulated, c.relreplident::text,
			EXISTS (SELECT FROM pg_catalog.pg_depend dp WHERE dp.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND dp.objid = c.oid AND dp.deptype = 'i')
		`+from+`
		LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
		LEFT JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid
		`+where+` ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	l.Relations = []wal.RelationDetail{}
	var r wal.RelationDetail
	var kind, persistence string
	var acl, options []string
	var isSeq bool
	var seq wal.SequenceParams
	var seqType, typ, ofType, am, space int64
	var replIdent string
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &r.Name, &kind, &owner, &persistence, &r.HasACL, &acl, &options, &r.HasComment, &r.Comment,
		&isSeq, &seqType, &seq.Start, &seq.Increment, &seq.Max, &seq.Min, &seq.Cache, &seq.Cycle,
		&typ, &ofType, &am, &space, &r.Class.Natts, &r.Class.Checks, &r.Class.HasIndex, &r.Class.HasRules, &r.Class.HasTrigger, &r.Class.HasSubclass,
		&r.Class.IsPartition, &r.Class.RowSecurity, &r.Class.ForceRowSecurity, &r.Class.IsPopulated, &replIdent, &r.Identity}, func() error {
		x := r
		x.Class.Type, x.Class.OfType, x.Class.AM, x.Class.Tablespace, x.Class.ReplIdent = uint32(typ), uint32(ofType), uint32(am), uint32(space), charByte(replIdent)
		x.OID, x.Namespace, x.Owner, x.Kind, x.Persistence = uint32(oid), uint32(nsp), uint32(owner), charByte(kind), charByte(persistence)
		if x.HasACL {
			x.ACL = append([]string{}, acl...)
		}
		if options != nil {
			x.RelOptions = append([]string{}, options...)
		}
		if isSeq {
			s := seq
			s.TypeOID = uint32(seqType)
			x.Sequence = &s
		}
		l.Relations = append(l.Relations, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	return l, nil
}

// relationListFrom and relationListWhere select the relation list's
// relations (c: pg_class, n: pg_namespace): readRelationList's and
// readListedColumns' (relmeta_listedcols.go).
const (
	relationListFrom  = `FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`
	relationListWhere = `WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%' AND c.relkind <> 't'
		AND c.relpersistence <> 't'`
)
