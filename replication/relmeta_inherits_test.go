package replication

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadInherits: the copy reads a table's direct parents in inhseqno
// order, a partition's partitioned ancestors (direct parent first, with
// their owners, bounds and partitioned indexes) and the column comments
// of the views above it, on every major's catalogs.
func TestReadInherits(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	exec := execer(t, conn)
	exec("CREATE SCHEMA hid", "CREATE TABLE hid.p1 (id int)", "CREATE TABLE p2 (n int)",
		"CREATE TABLE child (x int) INHERITS (p2, hid.p1)",
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
		"CREATE INDEX meas_k ON meas (k)",
		"CREATE VIEW cv AS SELECT x, n FROM child", "COMMENT ON COLUMN cv.n IS 'the n'", "CREATE VIEW cw AS SELECT x FROM child")
	var p1, p2, meas, meas3, pkey, pkey3, kidx, kidx3, cv, cw uint32
	if err := conn.QueryRow(ctx, `SELECT 'hid.p1'::regclass::oid, 'p2'::regclass::oid, 'meas'::regclass::oid, 'meas_3'::regclass::oid,
		'meas_pkey'::regclass::oid, 'meas_3_pkey'::regclass::oid, 'meas_k'::regclass::oid,
		(SELECT c.oid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = 'meas_3'::regclass AND NOT i.indisprimary),
		'cv'::regclass::oid, 'cw'::regclass::oid`).Scan(&p1, &p2, &meas, &meas3, &pkey, &pkey3, &kidx, &kidx3, &cv, &cw); err != nil {
		t.Fatal(err)
	}
	child := relationOf(t, conn, "child").Facts.Inherits
	if child == nil || !slices.Equal(child.Parents, []wal.InheritParent{{OID: p2, Schema: "public", Name: "p2", Kind: 'r'}, {OID: p1, Schema: "hid", Name: "p1", Kind: 'r'}}) ||
		child.Ancestors != nil {
		t.Errorf("child: %+v", child)
	}
	cvWant := []wal.ViewComments{{OID: cv, Comments: []string{"", "the n"}}, {OID: cw}}
	if got := child.ViewComments; !slices.EqualFunc(got, cvWant, func(a, b wal.ViewComments) bool { return a.OID == b.OID && slices.Equal(a.Comments, b.Comments) }) &&
		!slices.EqualFunc(got, []wal.ViewComments{cvWant[1], cvWant[0]}, func(a, b wal.ViewComments) bool { return a.OID == b.OID && slices.Equal(a.Comments, b.Comments) }) {
		t.Errorf("view comments: %+v, want %+v", got, cvWant)
	}
	leaf := relationOf(t, conn, "meas_3a").Facts.Inherits
	unique := wal.PartIndexUnique | wal.PartIndexPrimary | wal.PartIndexValid | wal.PartIndexImmediate | wal.PartIndexReady | wal.PartIndexLive
	plain := wal.PartIndexValid | wal.PartIndexImmediate | wal.PartIndexReady | wal.PartIndexLive
	want := []wal.PartAncestor{
		{OID: meas3, Schema: "public", Name: "meas_3", OwnerOID: 10, Owner: "postgres", Parent: meas, Bound: "FOR VALUES IN (3, 4)", Natts: 2,
			Indexes: []wal.PartIndex{{OID: pkey3, Name: "meas_3_pkey", AM: 403, Natts: 2, Parent: pkey, KeyAtts: 2, Flags: unique},
				{OID: kidx3, Name: "meas_3_k_idx", AM: 403, Natts: 1, Parent: kidx, KeyAtts: 1, Flags: plain}}},
		{OID: meas, Schema: "public", Name: "meas", OwnerOID: 10, Owner: "postgres", Natts: 2,
			Indexes: []wal.PartIndex{{OID: pkey, Name: "meas_pkey", AM: 403, Natts: 2, KeyAtts: 2, Flags: unique},
				{OID: kidx, Name: "meas_k", AM: 403, Natts: 1, KeyAtts: 1, Flags: plain}}},
	}
	if leaf == nil || !slices.Equal(leaf.Parents, []wal.InheritParent{{OID: meas3, Schema: "public", Name: "meas_3", Kind: 'p'}}) ||
		!(&wal.InheritFacts{Ancestors: leaf.Ancestors}).Equal(&wal.InheritFacts{Ancestors: want}) {
		t.Errorf("meas_3a: %+v\nwant ancestors %+v", leaf, want)
	}
}
