package sqlfront

import (
	"github.com/sidecar-dev/sidecar/wal"
)

// The views above the followed tables (wal.ViewFacts, read at the copy
// and the catalog poll) are relations of the database: pg_class lists
// them (relkind 'v', and 'm' for materialized views), whether or not
// the SQL port can read them (views.go refuses those reading relations
// it does not follow), as PostgreSQL lists them.

// listedViews returns the views the followed tables' facts list, once
// each, in a schema pg_namespace lists.
func listedViews(tables []Table, ns map[string]uint32) []*wal.ViewFacts {
	var out []*wal.ViewFacts
	seen := map[uint32]bool{}
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || !s.ViewsRead {
			continue
		}
		for j := range s.Views {
			v := &s.Views[j]
			if _, ok := ns[v.Schema]; ok && !seen[v.OID] {
				seen[v.OID] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// viewClassRows are the views' pg_class rows.
func viewClassRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, v := range listedViews(cx.tables, ns) {
		am, populated, rules := sv("0"), sv("t"), sv("t")
		if v.Kind == 'm' {
			am, populated, rules = sv("2"), u, u
		}
		out = append(out, []*string{u32(v.OID), sv(v.Name), nsOID(ns[v.Schema]), u, sv("0"), u32(v.OwnerOID), am, u, sv("0"), u, u, u, u, sv("f"), sv("f"),
			sv("p"), sv(charText(v.Kind)), iv(int64(len(v.Columns))), sv("0"), rules, sv("f"), sv("f"), sv("f"), sv("f"), populated,
			sv("n"), sv("f"), sv("0"), u, u, u, relOptions(v.Options), nil})
	}
	return out
}
