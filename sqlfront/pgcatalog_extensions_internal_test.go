package sqlfront

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestExtensionsUnreadRefuse: pg_extension is refused (not answered with
// no rows) when the extensions were not read (a record written before
// them) or two tables' records disagree (read by two polls either side
// of a CREATE EXTENSION); its pg_description rows are then absent and
// obj_description(…, 'pg_extension') refused. Read, the rows and
// comments are the facts'.
func TestExtensionsUnreadRefuse(t *testing.T) {
	one := &wal.ExtensionFacts{Extensions: []wal.ExtensionRow{{OID: 13500, Owner: 10, Namespace: 11, Name: "plpgsql", Version: "1.0",
		HasComment: true, Comment: "PL/pgSQL procedural language"}}}
	two := &wal.ExtensionFacts{Extensions: append([]wal.ExtensionRow{}, one.Extensions...)}
	two.Extensions = append(two.Extensions, wal.ExtensionRow{OID: 16400, Owner: 10, Namespace: 2200, Name: "hstore", Version: "1.8", Relocatable: true})
	table := func(oid uint32, x *wal.ExtensionFacts) Table {
		return Table{Name: "public.t", Schema: "public", Rel: "t", OID: oid,
			Columns: []Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}}, KeyCols: []int{0},
			Facts: &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Extensions: x}}}
	}
	for _, c := range []struct {
		what   string
		tables []Table
		rows   int
	}{
		{"read", []Table{table(16500, two), table(16501, nil)}, 2},
		{"not read", []Table{table(16500, nil)}, -1},
		{"two reads disagree", []Table{table(16500, one), table(16501, two)}, -1},
	} {
		cx := &pgCatCtx{tables: c.tables}
		err := extensionRel.refuse(cx)
		if (err != nil) != (c.rows < 0) {
			t.Errorf("%s: refusal %v", c.what, err)
		}
		if c.rows < 0 {
			if len(extensionDescriptions(c.tables)) != 0 {
				t.Errorf("%s: pg_description lists extension comments", c.what)
			}
			if _, err := extensionComment(c.tables, 13500); err == nil {
				t.Errorf("%s: obj_description answered", c.what)
			}
			continue
		}
		if got := extensionRel.rows(cx); len(got) != c.rows || *got[1][1] != "hstore" || got[1][6] != nil || got[1][7] != nil {
			t.Errorf("%s: rows %v", c.what, got)
		}
		if d := extensionDescriptions(c.tables); len(d) != 1 || *d[0][1] != "3079" || *d[0][3] != "PL/pgSQL procedural language" {
			t.Errorf("%s: pg_description rows %v", c.what, d)
		}
		if v, err := extensionComment(c.tables, 16400); v != nil || err != nil {
			t.Errorf("%s: obj_description of an extension without a comment: %v %v", c.what, v, err)
		}
	}
}
