package sqlfront

import (
	"reflect"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_database: the source cluster's databases as the copy and the
// catalog poll read them with the roles (wal.SchemaFacts.Databases,
// replication/relmeta_database.go; up to one poll, ~2 s, stale after
// CREATE/ALTER/DROP DATABASE, GRANT … ON DATABASE or COMMENT ON
// DATABASE, like the other catalog facts). When they were not read (a
// record written before, a follow user who may not read pg_database,
// more than wal.MaxDatabases databases) or the followed tables' records
// read different lists (between two polls' records), a statement
// reading pg_database is refused. datfrozenxid and datminmxid are
// unknown (vacuum moves them outside the logical stream): reading them
// is refused.
//
// datacl is aclitem[] in PostgreSQL, a type sidecar does not have: it
// is held as the elements' text (aclitemout's), typed aclItems, and
// read only as the array argument of the functions whose result does
// not depend on the element type (array_to_string, which prints each
// element by its output function, array_length, cardinality, …): psql's
// \l prints array_to_string(d.datacl, E'\n'), 17's psql also
// array_length(d.datacl, 1). Any other use — in the result, compared,
// cast, unnested — is refused 0A000 (checkACLUse).

// aclItems is the type of pg_database.datacl as sidecar holds it: text[]
// of aclitemout's texts, marked by typmod -1034 (aclitem[]'s OID).
var aclItems = lplan.Type{OID: types.ArrayOf(oidText), Mod: -1034}

// aclArrayFuncs are the functions datacl may be the first argument of:
// their result is the same for text[] of aclitemout's texts as for
// PostgreSQL's aclitem[].
var aclArrayFuncs = map[string]bool{"array_to_string": true, "array_length": true, "cardinality": true, "array_ndims": true,
	"array_dims": true, "array_lower": true, "array_upper": true}

// databaseRel is pg_database in PostgreSQL 15's layout followed by the
// columns of the other majors (databaseLayouts picks each major's).
var databaseRel = &pgRel{schema: "pg_catalog", name: "pg_database", refuse: refuseDatabases,
	cols: append(pgc("oid oid, datname name, datdba oid, encoding int4, datlocprovider char, datistemplate bool, datallowconn bool, "+
		"datconnlimit int4, datfrozenxid text, datminmxid text, dattablespace oid, datcollate text, datctype text, daticulocale text, "+
		"datcollversion text"), append([]pgCol{{name: "datacl", typ: aclItems}},
		pgc("daticurules text, datlocale text, dathasloginevt bool, datlastsysoid oid")...)...),
	rows: func(cx *pgCatCtx) [][]*string {
		dbs, _ := clusterDatabases(cx.tables)
		cur := sourceDatabaseOID(cx.tables)
		var out [][]*string
		for _, d := range dbs {
			locale := nullOr(d.Locale, d.LocaleNull)
			name := d.Name
			if d.OID == cur && cx.db != "" {
				name = cx.db // the session's name for the followed database, as current_database() says
			}
			out = append(out, []*string{u32(d.OID), sv(name), u32(d.Owner), iv(int64(d.Encoding)), sv(charText(d.LocProvider)),
				bv(d.IsTemplate), bv(d.AllowConn), iv(int64(d.ConnLimit)), pgUnknown, pgUnknown, u32(d.Tablespace), sv(d.Collate), sv(d.Ctype),
				locale, nullOr(d.CollVersion, d.VerNull), relOptions(d.ACL), nullOr(d.ICURules, d.RulesNull), locale, bv(d.HasLoginEvent),
				u32(d.LastSysOID)})
		}
		return out
	}}

// databaseLayouts are pg_database's columns per major (read from
// PostgreSQL 14.23, 15.18, 16.14, 17.10 and 18.4): 14 has datlastsysoid
// and name-typed locales, 15 adds the locale provider, the ICU locale
// and the collation version, 16 the ICU rules, 17 renames daticulocale
// to datlocale and adds dathasloginevt.
var databaseLayouts = []majorLayout{
	{140000, "oid, datname, datdba, encoding, datcollate name, datctype name, datistemplate, datallowconn, datconnlimit, datlastsysoid, " +
		"datfrozenxid, datminmxid, dattablespace, datacl"},
	{150000, "oid, datname, datdba, encoding, datlocprovider, datistemplate, datallowconn, datconnlimit, datfrozenxid, datminmxid, " +
		"dattablespace, datcollate, datctype, daticulocale, datcollversion, datacl"},
	{160000, "oid, datname, datdba, encoding, datlocprovider, datistemplate, datallowconn, datconnlimit, datfrozenxid, datminmxid, " +
		"dattablespace, datcollate, datctype, daticulocale, daticurules, datcollversion, datacl"},
	{170000, "oid, datname, datdba, encoding, datlocprovider, datistemplate, datallowconn, dathasloginevt, datconnlimit, datfrozenxid, " +
		"datminmxid, dattablespace, datcollate, datctype, datlocale, daticurules, datcollversion, datacl"},
}

// nullOr is s, or NULL when null.
func nullOr(s string, null bool) *string {
	if null {
		return nil
	}
	return sv(s)
}

// clusterDatabases are the databases the followed tables' facts read,
// ok false when none read them or two records read different lists.
func clusterDatabases(tables []Table) (dbs []wal.DatabaseFacts, ok bool) {
	return carriedFacts(tables, func(s *wal.SchemaFacts) ([]wal.DatabaseFacts, bool) { return s.Databases, s.DatabasesRead })
}

// carriedFacts is the list of the cluster's or database's objects one
// table of each read carries (list picks it and whether it was read),
// ok false when none read it or two records (two polls') read different
// lists.
func carriedFacts[T any](tables []Table, list func(*wal.SchemaFacts) ([]T, bool)) ([]T, bool) {
	var first []T
	found := false
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil {
			continue
		}
		l, read := list(s)
		switch {
		case !read:
		case !found:
			first, found = l, true
		case !reflect.DeepEqual(first, l):
			return nil, false
		}
	}
	return first, found
}

// refuseDatabases refuses a statement reading pg_database when the
// databases are not known.
func refuseDatabases(cx *pgCatCtx) error {
	dbs, ok := clusterDatabases(cx.tables)
	if !ok {
		return unsupported(-1, "pg_database (the cluster's databases were not read from the server: the follow user may not read "+
			"pg_database, the cluster has more than 1000 databases, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
	}
	cur := sourceDatabaseOID(cx.tables)
	for _, d := range dbs {
		if d.OID != cur && d.Name == cx.db {
			return unsupported(-1, "pg_database in a session whose database name "+cx.db+" is another database of the followed cluster "+
				"(connect with the followed database's name)")
		}
	}
	return nil
}

// sourceDatabaseOID is the followed database's OID as the copy read it
// (0: not read). Its pg_database row carries the session's database
// name, which current_database() and information_schema's catalog
// columns answer (a client may connect to sidecar under another name
// than the followed database's).
func sourceDatabaseOID(tables []Table) uint32 {
	for i := range tables {
		if s := schemaFactsOf(&tables[i]); s != nil && s.DatabaseOID != 0 {
			return s.DatabaseOID
		}
	}
	return 0
}

// databaseComment is shobj_description(oid, 'pg_database'): NULL for a
// database without a comment or an OID no database has, as PostgreSQL.
func databaseComment(tables []Table, oid uint32) (types.Value, error) {
	dbs, ok := clusterDatabases(tables)
	if !ok {
		return nil, refuseDatabases(&pgCatCtx{tables: tables})
	}
	for _, d := range dbs {
		if d.OID == oid && d.Comment != "" {
			return d.Comment, nil
		}
	}
	return nil, nil
}

// encodingNames are PostgreSQL's encodings by number (pg_enc2name_tbl,
// the same on 14–18); pg_encoding_to_char of another number is ”.
var encodingNames = []string{"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8", "MULE_INTERNAL",
	"LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10",
	"WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252", "ISO_8859_5", "ISO_8859_6", "ISO_8859_7", "ISO_8859_8",
	"WIN1250", "WIN1253", "WIN1254", "WIN1255", "WIN1257", "KOI8U", "SJIS", "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004"}

// encodingToChar is pg_encoding_to_char(int4) returning name (strict).
func encodingToChar(args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function pg_encoding_to_char with %d arguments does not exist", len(args))
	}
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidInt4)}, Result: lplan.T(oidName), Eval: func(v []types.Value) (types.Value, error) {
		n, _ := v[0].(int64)
		if n < 0 || n >= int64(len(encodingNames)) {
			return "", nil
		}
		return encodingNames[n], nil
	}}, nil
}

// checkACLUse refuses datacl (aclItems) read other than as the array
// argument of aclArrayFuncs or under IS [NOT] NULL; visit walks the scalars it does not
// decide. It reports whether it decided x.
func checkACLUse(x lplan.Scalar, visit func(lplan.Scalar) bool, err *error) bool {
	switch y := x.(type) {
	case *lplan.Func:
		if y.Ext == nil && aclArrayFuncs[y.Name] && len(y.Args) > 0 {
			if c, ok := y.Args[0].(*lplan.ColRef); ok && c.T == aclItems {
				for _, a := range y.Args[1:] {
					lplan.Walk(a, visit)
				}
				return true
			}
		}
	case *lplan.IsNull:
		if c, ok := y.Arg.(*lplan.ColRef); ok && c.T == aclItems {
			return true // NULL or not: the same for either type
		}
	case *lplan.ColRef:
		if y.T == aclItems && *err == nil {
			*err = aclRefusal()
			return true
		}
	}
	return false
}

// aclRefusal is the refusal of datacl outside aclArrayFuncs.
func aclRefusal() error {
	return unsupported(-1, "an aclitem[] column (pg_database.datacl, pg_language.lanacl) other than as the array of array_to_string, "+
		"array_length or cardinality (aclitem is not sidecar's type: it holds the elements' text)")
}
