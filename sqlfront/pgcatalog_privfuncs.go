package sqlfront

import (
	"strconv"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// has_table_privilege, has_sequence_privilege, has_any_column_privilege,
// has_schema_privilege and pg_has_role (issue 23, session 27), for the
// session's user (two arguments) or a role named or given by OID
// (three), over a relation or schema named (text: resolved as
// PostgreSQL's regclass input and schema lookup, failing as PostgreSQL
// does: 42P01, 3F000, 42704) or given by OID; evaluated as
// pgcatalog_privileges.go describes, up to one catalog poll stale.
// Refused 0A000: a role sidecar does not know (a user of its own users
// file: no privileges to evaluate), an OID not in the relation list (a
// system catalog, or none: PostgreSQL's NULL), grant options, and what
// the facts did not read. has_column_privilege (its column must be
// checked to exist first, 42703) and has_database_privilege stay
// refused.

// privilegeFunc binds name(args).
func (c *vecCatalog) privilegeFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	n := len(args)
	if n != 2 && n != 3 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, n)
	}
	textual := func(t lplan.Type) bool { return uint32(t.OID) == oidUnknown || isTextType(uint32(t.OID)) }
	sig := make([]lplan.Type, n)
	for i := range n - 1 {
		switch {
		case !textual(args[i]):
			sig[i] = lplan.T(oidOID)
		case i == 0 && n == 3:
			sig[i] = lplan.T(oidName)
		default:
			sig[i] = lplan.T(oidText)
		}
	}
	sig[n-1] = lplan.T(oidText)
	var regclass *lplan.ExtFunc
	if name != "has_schema_privilege" && name != "pg_has_role" && sig[n-2].OID == lplan.OID(oidText) {
		var err error
		if regclass, err = c.RegIn(oidRegclass); err != nil {
			return nil, err
		}
	}
	c.sessionBound = true // it evaluates for the session's user
	tables, sess := c.pl.src.Tables(), c.pl.sess
	return &lplan.ExtFunc{Args: sig, Result: lplan.T(oidBool), Eval: func(v []types.Value) (types.Value, error) {
		cx := &pgCatCtx{tables: tables, db: sess.database, user: sess.user}
		role := sess.user
		if n == 3 {
			if s, ok := v[0].(string); ok && sig[0].OID == lplan.OID(oidName) {
				role = s
			} else if r, ok := roleName(tables, oidValue(v[0])); ok { // pgcatalog_roles.go
				role = r
			} else {
				return nil, unsupported(-1, name+" of the role with OID "+strconv.FormatUint(uint64(oidValue(v[0])), 10)+" (not among the roles read)")
			}
		}
		e, known, err := newPrivEval(cx, role)
		if err != nil {
			return nil, unsupported(-1, name+": "+err.Error())
		}
		if !known {
			if _, _, read := clusterRoles(tables); read && n == 3 && sig[0].OID == lplan.OID(oidName) {
				return nil, errf(codeUndefinedObject, -1, "role \"%s\" does not exist", role)
			}
			return nil, unsupported(-1, name+" for "+role+" (not a role of the followed server as read: sidecar has no privileges to evaluate for it)")
		}
		mask, err := privMask(name, v[n-1].(string), e.major)
		if err != nil {
			return nil, err
		}
		ok, err := e.call(name, v[n-2], regclass, mask)
		if err != nil {
			return nil, err
		}
		return ok, nil
	}}, nil
}

// call evaluates the function name for object (text or OID).
func (e *privEval) call(name string, object types.Value, regclass *lplan.ExtFunc, mask uint32) (bool, error) {
	refused := func(err error) (bool, error) { return false, unsupported(-1, name+": "+err.Error()) }
	switch name {
	case "pg_has_role":
		oid, ok := uint32(0), false
		if s, isText := object.(string); isText {
			if oid, ok = e.byName[s]; !ok {
				return false, errf(codeUndefinedObject, -1, "role \"%s\" does not exist", s)
			}
		} else if _, ok = roleName(e.cx.tables, oidValue(object)); ok {
			oid = oidValue(object)
		}
		if !ok {
			return refused(errPrivUnknown("the role with OID " + strconv.FormatUint(uint64(oidValue(object)), 10)))
		}
		if mask&privSelect != 0 && e.isMemberOf(oid) { // MEMBER
			return true, nil
		}
		return mask&privUsage != 0 && e.hasPrivsOf(oid), nil
	case "has_schema_privilege":
		if err := e.relations(); err != nil {
			return refused(err)
		}
		if s, isText := object.(string); isText {
			n, ok := e.spaces[s]
			if !ok {
				return false, errf("3F000", -1, "schema \"%s\" does not exist", s)
			}
			return e.schemaPrivilege(n.OID, n.Owner, mask)
		}
		for _, n := range e.spaces {
			if n.OID == oidValue(object) {
				ok, err := e.schemaPrivilege(n.OID, n.Owner, mask)
				if err != nil {
					return refused(err)
				}
				return ok, nil
			}
		}
		return refused(errPrivUnknown("the schema with OID " + strconv.FormatUint(uint64(oidValue(object)), 10)))
	}
	if err := e.relations(); err != nil {
		return refused(err)
	}
	oid := oidValue(object)
	if regclass != nil {
		o, err := regclass.Eval([]types.Value{object})
		if err != nil {
			return false, err
		}
		oid = oidValue(o)
	}
	r, ok := e.rels[oid]
	if !ok {
		return refused(errPrivUnknown("the relation with OID " + strconv.FormatUint(uint64(oid), 10) + " (a system catalog, or no relation: not in the relation list read)"))
	}
	var err error
	switch name {
	case "has_sequence_privilege":
		if r.Kind != 'S' {
			return false, errf("42809", -1, "\"%s\" is not a sequence", r.Name)
		}
		ok, err = e.relationPrivilege(r, mask)
	case "has_any_column_privilege":
		ok, err = e.anyColumnPrivilege(r, mask)
	default:
		ok, err = e.relationPrivilege(r, mask)
	}
	if err != nil {
		return refused(err)
	}
	return ok, nil
}
