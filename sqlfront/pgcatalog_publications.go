package sqlfront

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// The database's publications (wal.PublicationFacts, read by the copy
// and the catalog poll with the schemas, carried by one table):
// pg_publication, pg_publication_rel and (from 15) pg_publication_namespace
// list every row the source has — a publication's tables the sidecar
// does not follow among them (PostgreSQL lists them; their OIDs are not
// in the served pg_class, as for any table not followed) — and psql's
// \d prints a followed table's "Publications:" footer from them, the
// sidecar's own publication included, as PostgreSQL does. Like the other
// facts they are up to one poll stale after CREATE/ALTER/DROP
// PUBLICATION. pg_publication_tables and pg_get_publication_tables,
// which expand a publication into the tables it publishes (every table
// of the database for FOR ALL TABLES), are not served: refused.

// publications are the database's publications as read (nil: not read —
// a record written before, more than wal.MaxPublicationRows rows — or
// two tables' records disagree, between two polls' records).
func publications(tables []Table) *wal.PublicationFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.PublicationFacts { return s.Publications }) // pgcatalog_listings.go
}

// publicationsUnread is the refusal of a statement that needs the
// publications when they were not read.
func publicationsUnread(what string) *Error {
	return unsupported(-1, what+": the database's publications were not read from the server "+
		"(more than "+strconv.Itoa(wal.MaxPublicationRows)+" publication rows, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
}

// refusePublications refuses a statement reading pg_publication* when the
// publications are not known.
func refusePublications(cx *pgCatCtx) error {
	if publications(cx.tables) == nil {
		return publicationsUnread("pg_publication, pg_publication_rel, pg_publication_namespace")
	}
	return nil
}

// publicationRels are the publication catalogs in PostgreSQL 15's layout
// (pgcatalog_major.go maps them per major; pg_publication_namespace is
// 15's: on 14 it does not exist, publicationSince).
var publicationRels = []*pgRel{
	{schema: "pg_catalog", name: "pg_publication", refuse: refusePublications,
		cols: pgc("oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool, pubgencols char"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			if p := publications(cx.tables); p != nil {
				for _, r := range p.Publications {
					out = append(out, []*string{u32(r.OID), sv(r.Name), u32(r.Owner), bv(r.AllTables), bv(r.Insert), bv(r.Update), bv(r.Delete),
						bv(r.Truncate), bv(r.ViaRoot), sv(charText(r.GenCols))})
				}
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_publication_rel", refuse: refusePublications,
		cols: pgc("oid oid, prpubid oid, prrelid oid, prqual node, prattrs int2vector"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			if p := publications(cx.tables); p != nil {
				for _, r := range p.Rels {
					var qual, attrs *string
					if r.HasQual {
						qual = sv(r.Qual + nodeTreeSep + r.QualPretty)
					}
					if r.Attrs != nil {
						nums := make([]string, len(r.Attrs))
						for i, a := range r.Attrs {
							nums[i] = strconv.Itoa(int(a))
						}
						attrs = sv(strings.Join(nums, " "))
					}
					out = append(out, []*string{u32(r.OID), u32(r.PubOID), u32(r.RelOID), qual, attrs})
				}
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_publication_namespace", refuse: refusePublications,
		cols: pgc("oid oid, pnpubid oid, pnnspid oid"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			if p := publications(cx.tables); p != nil {
				for _, n := range p.Namespaces {
					out = append(out, []*string{u32(n.OID), u32(n.PubOID), u32(n.NspOID)})
				}
			}
			return out
		}},
}

// publicationLayouts are the publication catalogs' columns per major
// (read from PostgreSQL 14–18): 15 added prqual and prattrs, 18
// pubgencols.
var publicationLayouts = map[string][]majorLayout{
	"pg_publication": {
		{140000, "oid, pubname, pubowner, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot"},
		{180000, ""},
	},
	"pg_publication_rel": {
		{140000, "oid, prpubid, prrelid"},
		{150000, ""},
	},
}

// publicationSince is the first major having the relation (0: every
// major sidecar follows).
func publicationSince(name string) int {
	if name == "pg_publication_namespace" {
		return 150000
	}
	return 0
}

// publicationFooter answers psql's \d footer query (dpubs: psql 15 on a
// server from 15 on; dpubs14 before 15, without schemas, row filters and
// column lists): the publications publishing the table — by its schema,
// by name (with its row filter and column list), or for all tables — as
// PostgreSQL's UNION … ORDER BY 1 returns them.
func publicationFooter(withSchemas bool) func(ex *execCtx, consts []string) ([][]*string, error) {
	return func(ex *execCtx, consts []string) ([][]*string, error) {
		tables := ex.src.Tables()
		t := tableByOID(ex, oidLiteral(consts))
		if t == nil {
			return nil, nil
		}
		p := publications(tables)
		if p == nil {
			return nil, publicationsUnread("\\d of " + t.Name + " (its \"Publications:\" footer)")
		}
		names := map[uint32]string{}
		for _, r := range p.Publications {
			names[r.OID] = r.Name
		}
		var rows [][]*string
		seen := map[string]bool{}
		torn := false
		add := func(pub uint32, qual, cols *string) {
			name, ok := names[pub]
			torn = torn || !ok
			row := []*string{sv(name), qual, cols}
			key := ""
			for _, v := range row {
				if v == nil {
					key += "\x00N"
				} else {
					key += "\x00V" + *v
				}
			}
			if !withSchemas || !seen[key] { // UNION (15's form) drops duplicates; 14's is UNION ALL
				seen[key] = true
				rows = append(rows, row)
			}
		}
		if withSchemas {
			_, ns := (&pgCatCtx{tables: tables}).namespaces()
			nsp := ns[t.Schema]
			for _, n := range p.Namespaces {
				if n.NspOID == nsp && nsp != 0 {
					add(n.PubOID, nil, nil)
				}
			}
			if nsp == 0 && len(p.Namespaces) > 0 {
				return nil, unsupported(-1, "\\d of "+t.Name+" (its schema's OID was not read: copied by an older sidecar; a resync reads it)")
			}
		}
		for _, r := range p.Rels {
			if r.RelOID != t.OID {
				continue
			}
			var qual, cols *string
			if withSchemas {
				if r.HasQual {
					qual = sv(r.Qual)
				}
				if r.Attrs != nil && len(r.AttrNames) > 0 {
					cols = sv(strings.Join(r.AttrNames, ", "))
				}
			}
			add(r.PubOID, qual, cols)
		}
		for _, r := range p.Publications {
			if r.AllTables {
				add(r.OID, nil, nil) // a followed table is publishable
			}
		}
		if torn {
			return nil, unsupported(-1, "\\d of "+t.Name+": a publication listing it was read without its pg_publication row (read during a CREATE or DROP PUBLICATION; the next catalog poll reads both)")
		}
		sort.SliceStable(rows, func(i, j int) bool { return *rows[i][0] < *rows[j][0] }) // ORDER BY 1 (name: byte order)
		return rows, nil
	}
}
