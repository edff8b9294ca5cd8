package sqlfront

import (
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_roles, pg_user and pg_auth_members: the source cluster's roles as
// the copy and the catalog poll read them (wal.SchemaFacts.Roles,
// replication/relmeta_roles.go; up to one poll, ~2 s, stale after CREATE
// ROLE, ALTER ROLE or GRANT of a role, like the other catalog facts).
// When they were not read (a record written before, a follow user who
// may not read pg_roles, more than wal.MaxRoles roles) or the followed
// tables' records read different lists (between two polls' records), a
// statement reading them is refused. pg_get_userbyid answers every role
// read. rolpassword and passwd are '********' as PostgreSQL shows every
// role's through these views.

// clusterRoles are the roles and memberships the followed tables'
// facts read, ok false when none read them or they differ.
func clusterRoles(tables []Table) (roles []wal.RoleFacts, members []wal.MemberFacts, ok bool) {
	var first *wal.SchemaFacts
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || !s.RolesRead {
			continue
		}
		if first == nil {
			first = s
			continue
		}
		if !sameRoles(first, s) {
			return nil, nil, false
		}
	}
	if first == nil {
		return nil, nil, false
	}
	return first.Roles, first.Members, true
}

// sameRoles compares two tables' role lists (the same slices when one
// poll read them).
func sameRoles(a, b *wal.SchemaFacts) bool {
	if len(a.Roles) != len(b.Roles) || len(a.Members) != len(b.Members) {
		return false
	}
	if len(a.Roles) > 0 && &a.Roles[0] == &b.Roles[0] && (len(a.Members) == 0 || &a.Members[0] == &b.Members[0]) {
		return true
	}
	x := wal.SchemaFacts{Roles: a.Roles, Members: a.Members, RolesRead: true}
	y := wal.SchemaFacts{Roles: b.Roles, Members: b.Members, RolesRead: true}
	return x.Equal(&y)
}

// refuseRoles refuses a statement reading the roles when they are not
// known.
func refuseRoles(cx *pgCatCtx) error {
	if _, _, ok := clusterRoles(cx.tables); !ok {
		return unsupported(-1, "the cluster's roles (pg_roles, pg_user, pg_auth_members): not read from the server "+
			"(the follow user may not read pg_roles, the cluster has more than 1000 roles, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
	}
	return nil
}

// roleName is pg_get_userbyid of oid when the roles were read.
func roleName(tables []Table, oid uint32) (string, bool) {
	roles, _, ok := clusterRoles(tables)
	if !ok {
		return "", false
	}
	for _, r := range roles {
		if r.OID == oid {
			return r.Name, true
		}
	}
	return "", false
}

// nullable is s, or NULL for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return sv(s)
}

var roleRels = []*pgRel{
	{schema: "pg_catalog", name: "pg_roles", refuse: refuseRoles, cols: pgc("rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, " +
		"rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz, " +
		"rolbypassrls bool, rolconfig text[], oid oid"),
		rows: func(cx *pgCatCtx) [][]*string {
			roles, _, _ := clusterRoles(cx.tables)
			var out [][]*string
			for _, r := range roles {
				out = append(out, []*string{sv(r.Name), bv(r.Super), bv(r.Inherit), bv(r.CreateRole), bv(r.CreateDB), bv(r.CanLogin),
					bv(r.Replication), iv(int64(r.ConnLimit)), sv("********"), nullable(r.ValidUntil), bv(r.BypassRLS), relOptions(r.Config), u32(r.OID)})
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_user", refuse: refuseRoles, cols: pgc("usename name, usesysid oid, usecreatedb bool, usesuper bool, " +
		"userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]"),
		rows: func(cx *pgCatCtx) [][]*string {
			roles, _, _ := clusterRoles(cx.tables)
			var out [][]*string
			for _, r := range roles {
				if r.CanLogin {
					out = append(out, []*string{sv(r.Name), u32(r.OID), bv(r.CreateDB), bv(r.Super), bv(r.Replication), bv(r.BypassRLS),
						sv("********"), nullable(r.ValidUntil), relOptions(r.Config)})
				}
			}
			return out
		}},
	// The base layout is 16's (an oid and the inherit and set options);
	// 14 and 15 have the first four columns only (pgcatalog_major.go).
	{schema: "pg_catalog", name: "pg_auth_members", refuse: refuseRoles, cols: pgc("oid oid, roleid oid, member oid, grantor oid, " +
		"admin_option bool, inherit_option bool, set_option bool"),
		rows: func(cx *pgCatCtx) [][]*string {
			_, members, _ := clusterRoles(cx.tables)
			var out [][]*string
			for _, m := range members {
				out = append(out, []*string{u32(m.OID), u32(m.Role), u32(m.Member), u32(m.Grantor), bv(m.Admin), bv(m.Inherit), bv(m.Set)})
			}
			return out
		}},
}

// shobjDescription is shobj_description(oid, catalog): a role's comment
// (catalog pg_authid) when the roles were read — NULL for a role without
// one or an OID no role has, as PostgreSQL; other shared objects'
// (databases', tablespaces') comments are not read: refused.
func (c *vecCatalog) shobjDescription(args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 2 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function shobj_description with %d arguments does not exist", len(args))
	}
	tables := c.pl.src.Tables()
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID), lplan.T(oidName)}, Result: lplan.T(oidText), Eval: func(v []types.Value) (types.Value, error) {
		if v[0] == nil || v[1] == nil {
			return nil, nil
		}
		if s, _ := v[1].(string); s == "pg_database" {
			return databaseComment(tables, oidValue(v[0])) // pgcatalog_database.go
		} else if s != "pg_authid" {
			return nil, unsupported(-1, "shobj_description of "+s+" (sidecar reads the comments of roles and databases only)")
		}
		roles, _, ok := clusterRoles(tables)
		if !ok {
			return nil, refuseRoles(&pgCatCtx{tables: tables})
		}
		oid := oidValue(v[0])
		for _, r := range roles {
			if r.OID == oid && r.Comment != "" {
				return r.Comment, nil
			}
		}
		return nil, nil
	}}, nil
}
