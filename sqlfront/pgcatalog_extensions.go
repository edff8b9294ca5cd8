package sqlfront

import (
	"slices"
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The database's extensions (wal.ExtensionFacts, read by the copy and
// the catalog poll with the schemas, carried by one table): pg_extension
// lists every row the source has (plpgsql, created by initdb, among
// them), pg_description their comments (classoid pg_extension: psql's
// \dx joins them by 'pg_catalog.pg_extension'::regclass, which resolves
// to the catalog's fixed OID), pg_namespace their schemas. The tools'
// "is PostGIS installed" checks (`SELECT … FROM pg_extension WHERE
// extname = …`) answer from them. Like the other facts they are up to
// one poll (~2 s) stale after CREATE/ALTER/DROP EXTENSION and COMMENT ON
// EXTENSION. The objects an extension holds (\dx+: pg_depend and
// pg_describe_object) are not read: refused.

// pgExtensionOID is pg_extension's OID (fixed in PostgreSQL's headers,
// the same on 14 to 18): pg_description's classoid of an extension's
// comment.
const pgExtensionOID = 3079

// extensions are the database's extensions as read (nil: not read — a
// record written before, more than wal.MaxExtensions — or two tables'
// records disagree, between two polls' records).
func extensions(tables []Table) *wal.ExtensionFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.ExtensionFacts { return s.Extensions }, (*wal.ExtensionFacts).Equal)
}

// carriedSection are the database's facts of one kind that the carrier
// table's records hold (get: nil when a record has none): nil when no
// table's record has them or two records disagree (read by two polls
// either side of a change).
func carriedSection[F any](tables []Table, get func(*wal.SchemaFacts) *F, equal func(a, b *F) bool) *F {
	var x *F
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || get(s) == nil {
			continue
		}
		if x != nil && !equal(x, get(s)) {
			return nil
		}
		x = get(s)
	}
	return x
}

// extensionsUnread is the refusal of a statement that needs the
// extensions when they were not read.
func extensionsUnread(what string) *Error {
	return unsupported(-1, what+": the database's extensions were not read from the server "+
		"(more than "+strconv.Itoa(wal.MaxExtensions)+" extensions, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
}

// extensionRel is pg_extension (the same columns on 14 to 18).
var extensionRel = &pgRel{schema: "pg_catalog", name: "pg_extension",
	cols: pgc("oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, extversion text, extconfig oid[], extcondition text[]"),
	refuse: func(cx *pgCatCtx) error {
		if extensions(cx.tables) == nil {
			return extensionsUnread("pg_catalog.pg_extension")
		}
		return nil
	},
	rows: func(cx *pgCatCtx) [][]*string {
		var out [][]*string
		if x := extensions(cx.tables); x != nil {
			for _, e := range x.Extensions {
				var config *string
				if e.Config != nil {
					nums := make([]string, len(e.Config))
					for i, c := range e.Config {
						nums[i] = strconv.FormatUint(uint64(c), 10)
					}
					config = sv("{" + strings.Join(nums, ",") + "}")
				}
				out = append(out, []*string{u32(e.OID), sv(e.Name), u32(e.Owner), u32(e.Namespace), bv(e.Relocatable), sv(e.Version),
					config, relOptions(e.Condition)}) // pgcatalog_schema.go: text[]'s text
			}
		}
		return out
	}}

// extensionDescriptions are pg_description's rows of the extensions'
// comments (none when the extensions were not read: a scan of them is
// then not proven, extensionComments).
func extensionDescriptions(tables []Table) [][]*string {
	var out [][]*string
	if x := extensions(tables); x != nil {
		for _, e := range x.Extensions {
			if e.HasComment {
				out = append(out, []*string{u32(e.OID), sv(strconv.Itoa(pgExtensionOID)), sv("0"), sv(e.Comment)})
			}
		}
	}
	return out
}

// extensionNamespaces adds the schemas of the extensions read to
// pg_namespace's names and OIDs (those not listed already).
func extensionNamespaces(tables []Table, names []string, oids map[string]uint32) []string {
	if x := extensions(tables); x != nil {
		return addNamespaces(x.Namespaces, names, oids)
	}
	return names
}

// extensionNamespaceFacts adds the extensions' schemas to read.
func extensionNamespaceFacts(tables []Table, read map[string]wal.NamespaceFacts) {
	if x := extensions(tables); x != nil {
		addNamespaceFacts(x.Namespaces, read)
	}
}

// addNamespaces adds the schemas of list not listed already to
// pg_namespace's names and OIDs.
func addNamespaces(list []wal.NamespaceFacts, names []string, oids map[string]uint32) []string {
	for _, n := range list {
		if _, ok := oids[n.Name]; !ok {
			oids[n.Name] = n.OID
			names = append(names, n.Name)
		}
	}
	return names
}

// addNamespaceFacts adds the schemas of list not in read already.
func addNamespaceFacts(list []wal.NamespaceFacts, read map[string]wal.NamespaceFacts) {
	for _, n := range list {
		if _, ok := read[n.Name]; !ok {
			read[n.Name] = n
		}
	}
}

// extensionComments says whether a pg_description scan's conditions
// restrict it to the extensions' comments (classoid =
// 'pg_catalog.pg_extension'::regclass, or 3079) and those were read: its
// rows are then all listed.
func (r *reach) extensionComments(s *lplan.Scan) bool {
	if extensions(r.tableList) == nil {
		return false
	}
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if ok && col == "classoid" && op == "=" && r.allVals(other, 0, func(k string) bool {
			return strings.TrimSpace(k) == strconv.Itoa(pgExtensionOID)
		}, func(colSource) bool { return false }) {
			return true
		}
	}
	return false
}

// fixedCatalogOIDs are the system catalogs whose 'pg_catalog.name'::regclass
// resolves (their OIDs are fixed in PostgreSQL's headers, the same on 14
// to 18): the classoid a comment is looked up by.
var fixedCatalogOIDs = map[string]int64{"pg_extension": pgExtensionOID}

// fixedCatalogOID is 'pg_catalog.name'::regclass of a catalog in
// fixedCatalogOIDs (ok false for another name).
func fixedCatalogOID(names []string) (int64, bool) {
	if len(names) != 2 || names[0] != "pg_catalog" {
		return 0, false
	}
	o, ok := fixedCatalogOIDs[names[1]]
	return o, ok
}

// extensionComment is obj_description(oid, 'pg_extension'): the comment
// of the extension (NULL without one, or for an OID no extension has, as
// PostgreSQL), refused when the extensions were not read.
func extensionComment(tables []Table, oid uint32) (types.Value, error) {
	x := extensions(tables)
	if x == nil {
		return nil, extensionsUnread("obj_description of an extension")
	}
	for _, e := range x.Extensions {
		if e.OID == oid && e.HasComment {
			return e.Comment, nil
		}
	}
	return nil, nil
}

// psqlExtensionQueries are psql's \dx+ query for an extension's objects
// (psql 15's text; the same sent to 14–18), answered from the members
// the copy and the poll read (pg_depend and pg_describe_object are not
// served).
var psqlExtensionQueries = map[string]string{
	"dxmembers": `SELECT pg_catalog.pg_describe_object(classid, objid, 0) AS "Object description"
FROM pg_catalog.pg_depend
WHERE refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND refobjid = '16384' AND deptype = 'e'
ORDER BY 1;`,
}

// psqlExtensionHandlers answer psqlExtensionQueries.
var psqlExtensionHandlers = map[string]*canned{
	"dxmembers": {cols: []string{"Object description"}, rows: extensionMemberRows},
}

// extensionMemberRows are the descriptions of the objects of the
// extension whose OID the query names, as pg_describe_object prints them
// under search_path public (how the copy read them) — none for an OID no
// extension has, as PostgreSQL. Refused when the members were not read,
// or under a search_path that could print them otherwise: one naming an
// existing schema other than public (its objects would print
// unqualified, or hide public's), or without public, or with pg_catalog
// after public.
func extensionMemberRows(ex *execCtx, consts []string) ([][]*string, error) {
	x := extensions(ex.src.Tables())
	if x == nil || !x.MembersRead {
		return nil, extensionsUnread("\\dx+ (the objects of an extension)")
	}
	public := false
	for _, p := range searchPathOf(ex.sess) { // pgcatalog_plan.go
		switch {
		case p == "public":
			public = true
		case p == "pg_catalog" && !public:
		case p == "pg_catalog" || slices.Contains(x.Schemas, p):
			return nil, unsupported(-1, "\\dx+ under search_path "+strings.Join(searchPathOf(ex.sess), ", ")+
				" (sidecar read the objects' descriptions under search_path public)")
		}
	}
	if !public {
		return nil, unsupported(-1, "\\dx+ under a search_path without public (sidecar read the objects' descriptions under search_path public)")
	}
	oid := oidLiteral(consts) // catalog_psql.go
	var out [][]*string
	for _, e := range x.Extensions {
		if e.OID == oid {
			for _, m := range e.Members {
				out = append(out, []*string{sv(m)})
			}
		}
	}
	return out, nil
}
