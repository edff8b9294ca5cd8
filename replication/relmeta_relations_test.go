package replication

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadRelationList: the catalog read lists every relation outside
// PostgreSQL's own schemas — a standalone sequence with its parameters,
// a table, a materialized view, an index, with owner, persistence, ACL,
// reloptions and comment — and every schema with its owner, an empty
// one included; not TOAST tables, not pg_catalog's relations.
func TestReadRelationList(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	for _, s := range []string{`CREATE SCHEMA empty`, `CREATE SEQUENCE counter AS int START 5 INCREMENT -2 MINVALUE -100 MAXVALUE 10 CACHE 3 CYCLE`,
		`CREATE UNLOGGED TABLE t (id int PRIMARY KEY, v text) WITH (fillfactor = 70)`, `COMMENT ON TABLE t IS 'a table'`,
		`CREATE MATERIALIZED VIEW mv AS SELECT id FROM t`, `REVOKE ALL ON t FROM PUBLIC`, `CREATE TEMPORARY TABLE tmp (id int)`, `CREATE TABLE idt (id int GENERATED ALWAYS AS IDENTITY, s serial)`} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	l, err := readRelationList(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]wal.RelationDetail{}
	for _, r := range l.Relations {
		byName[r.Name] = r
		if r.Kind == 't' || r.Namespace == 11 || r.Persistence == 't' {
			t.Errorf("listed %+v: a TOAST table, a system or a temporary relation", r)
		}
	}
	c, ok := byName["counter"]
	if !ok || c.Kind != 'S' || c.Sequence == nil || *c.Sequence != (wal.SequenceParams{TypeOID: 23, Start: 5, Increment: -2, Max: 10, Min: -100, Cache: 3, Cycle: true}) ||
		c.Persistence != 'p' || c.HasACL || c.Class.Natts != 3 || c.Class.ReplIdent != 'n' || !c.Class.IsPopulated || c.Class.HasIndex || c.Class.AM != 0 {
		t.Errorf("counter: %+v (sequence %+v)", c, c.Sequence)
	}
	tb := byName["t"]
	if tb.Kind != 'r' || tb.Persistence != 'u' || tb.Sequence != nil || !tb.HasComment || tb.Comment != "a table" || len(tb.RelOptions) != 1 || tb.RelOptions[0] != "fillfactor=70" || !tb.HasACL ||
		tb.Class.AM != 2 || !tb.Class.HasIndex || tb.Class.Natts != 2 || tb.Class.Type == 0 || tb.Class.ReplIdent != 'd' {
		t.Errorf("t: %+v", tb)
	}
	if !byName["idt_id_seq"].Identity || byName["idt_s_seq"].Identity || byName["idt_s_seq"].Sequence == nil || c.Identity {
		t.Errorf("identity: idt_id_seq %+v, idt_s_seq %+v", byName["idt_id_seq"], byName["idt_s_seq"])
	}
	if byName["mv"].Kind != 'm' || byName["t_pkey"].Kind != 'i' || byName["mv"].RelOptions != nil {
		t.Errorf("mv %+v, t_pkey %+v", byName["mv"], byName["t_pkey"])
	}
	var owner int64
	if err := conn.QueryRow(ctx, `SELECT nspowner::int8 FROM pg_namespace WHERE nspname = 'empty'`).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, n := range l.Namespaces {
		found[n.Name] = true
		if n.Name == "empty" && n.Owner != uint32(owner) {
			t.Errorf("empty's owner %d, want %d", n.Owner, owner)
		}
	}
	for _, n := range []string{"pg_catalog", "public", "information_schema", "pg_toast", "empty"} {
		if !found[n] {
			t.Errorf("schema %s not listed: %+v", n, l.Namespaces)
		}
	}
}
