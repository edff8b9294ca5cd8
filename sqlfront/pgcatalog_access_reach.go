package sqlfront

import (
	"slices"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// psql's \dp (\z) lists the relations `n.nspname !~ '^pg_' AND
// pg_table_is_visible(c.oid)` keeps, each with its columns' ACLs
// (pg_attribute, attrelid = c.oid AND attacl IS NOT NULL). Two proofs
// answer it (pgcatalog_reach.go):
//
//   - a pg_class scan whose schema is a pg_namespace row excluding
//     pg_catalog and pg_toast by name, and whose rows pass
//     pg_table_is_visible under a search path without
//     information_schema, reaches user relations only (pg_catalog on
//     the path is excluded by name); unlisted sequences of those schemas
//     are refused as elsewhere unless relkind excludes them;
//   - a pg_attribute scan restricted to attacl IS NOT NULL and to a
//     proven pg_class scan's relations reaches the columns sidecar lists
//     with their ACLs: pg_attribute lacks a listed sequence's columns,
//     so a sequence with a column ACL refuses it (an index has none).

// proveAccess says whether s is one of \dp's scans proven as above.
func (r *reach) proveAccess(s *lplan.Scan) bool {
	switch r.rels[s].name {
	case "pg_class":
		return r.visibleUserClass(s)
	case "pg_attribute":
		return r.aclColumns(s)
	}
	return false
}

// visibleUserClass is the pg_class proof above.
func (r *reach) visibleUserClass(s *lplan.Scan) bool {
	if slices.Contains(r.path, "information_schema") {
		return false
	}
	kinds := r.relkinds(s)
	if len(r.seqs) > 0 && (kinds == nil || kinds["S"]) {
		return false
	}
	visible, schema := false, false
	for _, cond := range r.restr[s] {
		if f, ok := cond.(*lplan.Func); ok && f.Name == "pg_table_is_visible" && len(f.Args) == 1 && r.ownColumn(f.Args[0], s) == "oid" {
			visible = true
			continue
		}
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "relnamespace" || op != "=" || len(other) != 1 {
			continue
		}
		c, ok := strip(other[0]).(*lplan.ColRef)
		if !ok {
			continue
		}
		src, ok := r.cols[c.ID]
		if !ok || src.rel.name != "pg_namespace" || src.name != "oid" {
			continue
		}
		ex := r.nsExcluded(src.scan)
		schema = schema || ex == nil || ex["pg_catalog"] && (ex["pg_toast"] || kinds != nil && !kinds["t"] && !kinds["i"])
	}
	return visible && schema
}

// ownColumn is the name of s's column x refers to ("" if none).
func (r *reach) ownColumn(x lplan.Scalar, s *lplan.Scan) string {
	if c, ok := strip(x).(*lplan.ColRef); ok {
		if src, ok := r.cols[c.ID]; ok && src.scan == s {
			return src.name
		}
	}
	return ""
}

// aclColumns is the pg_attribute proof above.
func (r *reach) aclColumns(s *lplan.Scan) bool {
	a := accessFacts(r.tableList)
	if a.unread {
		return false
	}
	for i := range r.tableList {
		if sf := schemaFactsOf(&r.tableList[i]); sf != nil {
			for _, q := range sf.OwnedSequences {
				if len(a.colACL[q.OID]) > 0 {
					return false // pg_attribute lacks its columns
				}
			}
		}
	}
	aclSet, rel := false, false
	for _, cond := range r.restr[s] {
		if n, ok := cond.(*lplan.IsNull); ok && n.Not && r.ownColumn(n.Arg, s) == "attacl" {
			aclSet = true
			continue
		}
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "attrelid" || op != "=" || len(other) != 1 {
			continue
		}
		if c, ok := strip(other[0]).(*lplan.ColRef); ok {
			if src, ok := r.cols[c.ID]; ok && src.rel.name == "pg_class" && src.name == "oid" && r.proven[src.scan] {
				rel = true
			}
		}
	}
	return aclSet && rel
}

// markScanOrdered marks \dp's ARRAY(SELECT … FROM pg_attribute | pg_policy
// WHERE …) without ORDER BY as taking its rows in the scan's order,
// which is PostgreSQL's plan's: pg_attribute's rows of one relation
// come by attnum (its index on attrelid, attnum; sidecar lists them in
// that order), pg_policy's (a small catalog, scanned sequentially) in
// their physical order, which the copy read and sidecar lists — trusted
// only when it is also the name order (the index on polrelid, polname
// and a sequential scan then agree); otherwise the executor's check of
// tied rows refuses the array as before. The subquery must be that
// scan under filters and projections only.
func (c *vecCatalog) markScanOrdered(q *lplan.Query) {
	policiesOrdered := policiesInNameOrder(c.pl.src.Tables())
	var walkRel func(r lplan.Rel)
	walkScalar := func(s lplan.Scalar) {
		lplan.Walk(s, func(x lplan.Scalar) bool {
			sq, ok := x.(*lplan.Subquery)
			if !ok {
				return true
			}
			walkRel(sq.Plan)
			if sq.Kind != lplan.SubArray || sq.Keys != nil {
				return false
			}
			if name := c.orderedScan(sq.Plan); name == "pg_attribute" || name == "pg_policy" && policiesOrdered {
				sq.Unordered = true
			}
			return false
		})
	}
	walkRel = func(r lplan.Rel) {
		for _, e := range lplan.ExprsOf(r) {
			if e != nil {
				walkScalar(e)
			}
		}
		for _, in := range r.Inputs() {
			walkRel(in)
		}
	}
	walkRel(q.Plan)
}

// orderedScan is the catalog relation r scans under filters and
// projections only ("" otherwise).
func (c *vecCatalog) orderedScan(r lplan.Rel) string {
	for {
		switch x := r.(type) {
		case *lplan.Project:
			r = x.Input
		case *lplan.Filter:
			r = x.Input
		case *lplan.Scan:
			if v := c.virt[x.Table]; v != nil {
				return v.rel.name
			}
			return ""
		default:
			return ""
		}
	}
}

// policiesInNameOrder says whether every followed table's policies, as
// read in pg_policy's physical order, are in name order (byte order:
// the index's name_ops).
func policiesInNameOrder(tables []Table) bool {
	for i := range tables {
		if s := schemaFactsOf(&tables[i]); s != nil && s.Access != nil {
			ps := s.Access.Policies
			for k := 1; k < len(ps); k++ {
				if ps[k-1].Name >= ps[k].Name {
					return false
				}
			}
		}
	}
	return true
}
