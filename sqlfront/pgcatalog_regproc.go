package sqlfront

import (
	"strconv"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// regproc on the engine, for the functions pg_type names: a type's
// input, output, receive, send, typmod and analyze functions
// (typinput … typanalyze are regproc columns). pgjdbc's type lookup
// for a type outside its own table (interval, in getColumns) reads
// `typinput = 'pg_catalog.array_in'::regproc`. The functions are
// PostgreSQL's built-in ones, each the only function of its name in
// pg_catalog, with the same OIDs on 14–18 (pgcatalog_regproc_data.go).
// Any other function is one sidecar does not know: refused, as are
// unqualified names and printed names while the source database has
// functions of its own (one of the same name would make regprocin
// ambiguous and regprocout qualify the name).

const oidRegprocT = 24

// oidDomainIn and oidDomainRecv are domain_in and domain_recv, every
// domain's typinput and typreceive.
const (
	oidDomainIn   = 2597
	oidDomainRecv = 2598
)

// noUserFunctions says whether the source database has no functions
// outside pg_catalog and information_schema, as every followed table's
// facts read it (false when not read).
func noUserFunctions(tables []Table) bool {
	if len(tables) == 0 {
		return false
	}
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || !s.StorageRead || s.UserFunctions > 0 {
			return false
		}
	}
	return true
}

// regprocByName finds a type I/O function by name.
func regprocByName(name string) (uint32, bool) {
	for o, n := range typeIOFuncNames {
		if n == name {
			return o, true
		}
	}
	return 0, false
}

// regprocIn is regprocin over the functions sidecar knows: a name,
// qualified by pg_catalog or not (unqualified only while the source
// has no functions of its own).
func regprocIn(tables []Table) func(s string) (types.Value, error) {
	return func(s string) (types.Value, error) {
		names, err := qualifiedName(s)
		if err != nil {
			return nil, err
		}
		switch {
		case len(names) == 2 && names[0] == "pg_catalog":
		case len(names) == 1 && noUserFunctions(tables):
		default:
			return nil, regRefused(oidRegprocT, "'"+s+"'")
		}
		if o, ok := regprocByName(names[len(names)-1]); ok {
			return int64(o), nil
		}
		return nil, regRefused(oidRegprocT, "'"+s+"'")
	}
}

// regprocOut is regprocout over the functions sidecar knows.
func regprocOut(tables []Table) func(o uint32) (types.Value, error) {
	none := noUserFunctions(tables)
	return func(o uint32) (types.Value, error) {
		if n, ok := typeIOFuncNames[o]; ok && none {
			return n, nil
		}
		return nil, regRefused(oidRegprocT, "OID "+strconv.FormatUint(uint64(o), 10))
	}
}

// typeIORow is pg_type's typinput … typanalyze of a built-in type (all
// unknown for a type not in the table).
func typeIORow(oid uint32) []*string {
	f, ok := typeIOFuncs[oid]
	out := make([]*string, len(f))
	for i := range out {
		out[i] = pgUnknown
		if ok {
			out[i] = u32(f[i])
		}
	}
	return out
}

// systemTypeIORow is typinput … typanalyze of one of information_schema's
// domains (domain_in and domain_recv, the base type's output and send)
// or their arrays (array_in …, array_typanalyze).
func systemTypeIORow(t wal.TypeFacts) []*string {
	if t.Type == 'd' {
		b, ok := typeIOFuncs[t.BaseType]
		if !ok {
			return typeIORow(0)
		}
		return []*string{u32(oidDomainIn), u32(b[1]), u32(oidDomainRecv), u32(b[3]), sv("0"), sv("0"), sv("0")}
	}
	if t.Elem != 0 && t.Type == 'b' {
		return []*string{u32(750), u32(751), u32(2400), u32(2401), sv("0"), sv("0"), u32(3816)} // array_in, array_out, array_recv, array_send, array_typanalyze
	}
	return typeIORow(0)
}

// regprocType is the Type of a regproc column.
var regprocType = lplan.RegType(oidRegprocT)
