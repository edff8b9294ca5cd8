package sqlfront

import (
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// typeOIDOf is typeOID, whose 0A000 for a name that is not a built-in
// type becomes PostgreSQL's 42704 "type … does not exist" when the
// database's pg_type rows were read (facts section 'z', up to one poll
// stale) and none has that name: sidecar then knows the type is
// missing, not merely unserved (`PREPARE q (nosuchtype)`).
func (pl *planner) typeOIDOf(tn *pg.TypeName) (uint32, int32, error) {
	oid, mod, err := typeOID(tn)
	if err == nil || len(tn.ArrayBounds) > 0 {
		return oid, mod, err
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != codeUnsupported || !strings.Contains(e.Msg, "(not a built-in type)") {
		return oid, mod, err
	}
	names := strs(tn.Names)
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	if len(names) < 1 || len(names) > 2 {
		return oid, mod, err
	}
	if l, ok := readTypeList(pl.src.Tables()); !ok || l.temp || l.has(names) {
		return oid, mod, err // not read, or the type exists: refused, not missing
	}
	return 0, 0, errf(codeUndefinedObject, int(tn.Location), "type \"%s\" does not exist", strings.Join(names, "."))
}
