package wal

import "slices"

// RoleFacts is one pg_roles row of the source cluster (roles are the
// cluster's, not the database's: one table of each read — the copy's,
// the catalog poll's — carries the list, read with the schemas).
type RoleFacts struct {
	OID  uint32
	Name string
	// Super … BypassRLS are rolsuper, rolinherit, rolcreaterole,
	// rolcreatedb, rolcanlogin, rolreplication, rolbypassrls.
	Super, Inherit, CreateRole, CreateDB, CanLogin, Replication, BypassRLS bool
	ConnLimit                                                              int32 // rolconnlimit
	// ValidUntil is rolvaliduntil in UTC as timestamptz input text
	// ("2030-01-01 00:00:00+00", "infinity"; "" NULL).
	ValidUntil string
	// Config is rolconfig (nil: NULL).
	Config []string
	// Comment is shobj_description(oid, 'pg_authid') ("" none).
	Comment string
}

// MemberFacts is one pg_auth_members row: Member is a member of Role.
type MemberFacts struct {
	OID                 uint32 // pg_auth_members.oid (16+; 0 before)
	Role, Member        uint32 // roleid, member
	Grantor             uint32
	Admin, Inherit, Set bool // admin_option, inherit_option and set_option (16+)
}

// MaxRoles bounds the roles read: a cluster with more is recorded
// without them (RolesRead false: the SQL port refuses pg_roles rather
// than hold and scan a list that size).
const MaxRoles = 1000

func (r RoleFacts) equal(o RoleFacts) bool {
	return r.OID == o.OID && r.Name == o.Name && r.Super == o.Super && r.Inherit == o.Inherit && r.CreateRole == o.CreateRole &&
		r.CreateDB == o.CreateDB && r.CanLogin == o.CanLogin && r.Replication == o.Replication && r.BypassRLS == o.BypassRLS &&
		r.ConnLimit == o.ConnLimit && r.ValidUntil == o.ValidUntil && r.Comment == o.Comment && slices.Equal(r.Config, o.Config) && (r.Config == nil) == (o.Config == nil)
}

// rolesEqual reports whether s and o read the same roles.
func (s *SchemaFacts) rolesEqual(o *SchemaFacts) bool {
	return s.RolesRead == o.RolesRead && slices.EqualFunc(s.Roles, o.Roles, RoleFacts.equal) && slices.Equal(s.Members, o.Members)
}
