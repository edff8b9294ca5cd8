package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// pg_language: the source database's languages as the copy and the
// catalog poll read them with the databases (wal.SchemaFacts.Languages,
// replication/relmeta_database.go; up to one poll stale after CREATE
// LANGUAGE or an extension adding one). internal, c and sql have fixed
// OIDs, plpgsql's is initdb's and differs between clusters and majors
// (13691 on a 14, 13569 on a 15): read, not assumed. psql's \df+ joins
// it to pg_proc; lanacl is aclitem[] like pg_database.datacl
// (pgcatalog_database.go). Not read (a record written before, a follow
// user who may not read it): refused.
var languageRel = &pgRel{schema: "pg_catalog", name: "pg_language", refuse: refuseLanguages,
	cols: append(pgc("oid oid, lanname name, lanowner oid, lanispl bool, lanpltrusted bool, lanplcallfoid oid, laninline oid, lanvalidator oid"),
		pgCol{name: "lanacl", typ: aclItems}),
	rows: func(cx *pgCatCtx) [][]*string {
		langs, _ := databaseLanguages(cx.tables)
		var out [][]*string
		for _, l := range langs {
			out = append(out, []*string{u32(l.OID), sv(l.Name), u32(l.Owner), bv(l.IsPL), bv(l.Trusted), u32(l.CallFn), u32(l.Inline),
				u32(l.Validate), relOptions(l.ACL)})
		}
		return out
	}}

// databaseLanguages are the languages the followed tables' facts read.
func databaseLanguages(tables []Table) ([]wal.LanguageFacts, bool) {
	return carriedFacts(tables, func(s *wal.SchemaFacts) ([]wal.LanguageFacts, bool) { return s.Languages, s.LanguagesRead })
}

// refuseLanguages refuses a statement reading pg_language when the
// languages are not known.
func refuseLanguages(cx *pgCatCtx) error {
	if _, ok := databaseLanguages(cx.tables); !ok {
		return unsupported(-1, "pg_language (the source database's languages were not read from the server: the follow user may not read "+
			"pg_language, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
	}
	return nil
}
