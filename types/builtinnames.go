package types

// otherBuiltins are type names PostgreSQL has built in (pg_type rows of
// pg_catalog and the grammar's spellings) that this catalog does not
// carry. A cast to one of them is refused as not supported (0A000
// naming the type), never as "type does not exist" (42704), which would
// tell the client PostgreSQL has no such type either.
var otherBuiltins = map[string]bool{}

func init() {
	for _, n := range []string{
		"money", "inet", "cidr", "macaddr", "macaddr8", "point", "line", "lseg", "box", "path", "polygon", "circle",
		"bit", "varbit", "bit varying", "timetz", "time with time zone", "tsvector", "tsquery", "gtsvector", "xml",
		"int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
		"int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange", "datemultirange",
		"txid_snapshot", "pg_snapshot", "pg_lsn", "xid", "xid8", "cid", "tid", "int2vector", "oidvector", "aclitem",
		"regproc", "regprocedure", "regoper", "regoperator", "regtype", "regrole", "regnamespace", "regconfig",
		"regdictionary", "regcollation", "refcursor", "jsonpath", "pg_node_tree", "record", "cstring", "anyelement",
		"anyarray", "void", "trigger", "internal", "unknown",
	} {
		otherBuiltins[n] = true
	}
}

// IsOtherBuiltin says whether name (lower case, without pg_catalog.) is
// a type PostgreSQL has built in that the catalog does not carry.
func IsOtherBuiltin(name string) bool { return otherBuiltins[name] }
