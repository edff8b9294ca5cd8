package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// The views' comments in pg_description (issue 21: Metabase's sync
// LEFT JOINs pg_description to pg_class rows that include views). A
// view's own comment was read with it (wal.ViewFacts.Comment); its
// columns' comments are read with the section 'o' facts
// (wal.InheritFacts.ViewComments). When every listed view's were read,
// pg_description lists them and a pg_description scan joined to pg_class
// rows of tables and views is proven (pgcatalog_reach.go); before, such
// a statement was refused since a view's column comments were not known.

// viewComments are the column comments read for each view, by OID (a
// view whose were not read is absent).
func viewComments(tables []Table) map[uint32][]string {
	out := map[uint32][]string{}
	for i := range tables {
		f := tables[i].Facts
		if f == nil || f.Inherits == nil {
			continue
		}
		for _, v := range f.Inherits.ViewComments {
			out[v.OID] = v.Comments
		}
	}
	return out
}

// viewDescriptionsRead says whether every listed view's column comments
// were read.
func viewDescriptionsRead(tables []Table, ns map[string]uint32) bool {
	read := viewComments(tables)
	for _, v := range listedViews(tables, ns) {
		if _, ok := read[v.OID]; !ok {
			return false
		}
	}
	return true
}

// viewDescriptionRows are pg_description's rows of the listed views
// whose column comments were read: the view's comment (objsubid 0) and
// each column's.
func viewDescriptionRows(cx *pgCatCtx) [][]*string {
	_, ns := cx.namespaces()
	read := viewComments(cx.tables)
	var out [][]*string
	for _, v := range listedViews(cx.tables, ns) {
		comments, ok := read[v.OID]
		if !ok {
			continue
		}
		out = append(out, viewDescriptionOf(v, comments)...)
	}
	return out
}

// viewDescriptionOf is one view's pg_description rows.
func viewDescriptionOf(v *wal.ViewFacts, comments []string) [][]*string {
	var out [][]*string
	if v.Comment != "" {
		out = append(out, []*string{u32(v.OID), sv("1259"), sv("0"), sv(v.Comment)})
	}
	for i, c := range comments {
		if c != "" {
			out = append(out, []*string{u32(v.OID), sv("1259"), iv(int64(i + 1)), sv(c)})
		}
	}
	return out
}
