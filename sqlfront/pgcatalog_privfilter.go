package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// information_schema's privilege filter (issue 23, session 25).
// PostgreSQL's information_schema views list only the objects the
// current role may see: a relation it owns (pg_has_role(relowner,
// 'USAGE'): it or a role whose privileges it inherits) or holds a
// privilege on, a schema it owns or may use. sidecar listed every
// relation whatever the session's role, so a client connected as a role
// of the followed server that owns nothing and was granted nothing got
// every table and column where PostgreSQL answers none: a wrong answer
// (`SELECT table_name, column_name FROM information_schema.columns`
// listed six columns for PostgreSQL's none; with SELECT on one table
// and one column of another, six for three).
//
// Privileges are not evaluated yet; the answer stands when it cannot
// differ: the session's user is not a role of the followed server (a
// user of sidecar's own users file: as before, every relation is
// listed), or is a superuser there, or owns — itself or through roles
// whose privileges it inherits — every relation of the database (the
// relation list, facts section 'w'). Otherwise a statement reading an
// information_schema view is refused 0A000 naming the role; so is
// information_schema.schemata (pg_catalog's and pg_toast's owner is the
// bootstrap superuser), and any view when the roles or the relation
// list were not read.

// infoSchemaPrivilegeRefusal is the 0A000 of a statement reading
// information_schema.view for the session of cx, nil when the rows
// listed are the ones PostgreSQL lists for its role.
func infoSchemaPrivilegeRefusal(cx *pgCatCtx, view string) error {
	roles, members, ok := clusterRoles(cx.tables) // pgcatalog_roles.go
	if !ok {
		return nil // not read: as before (the documented assumption)
	}
	user := uint32(0)
	for _, r := range roles {
		if r.Name == cx.user {
			if r.Super {
				return nil
			}
			user = r.OID
		}
	}
	if user == 0 {
		return nil // not a role of the server: sidecar's own user
	}
	refusal := func(why string) error {
		return unsupported(-1, "information_schema."+view+" for the role "+cx.user+" ("+why+
			"; PostgreSQL lists only the objects a role owns or holds a privilege on, and sidecar does not evaluate privileges)")
	}
	if view == "schemata" {
		return refusal("not a superuser")
	}
	l := relationList(cx.tables) // pgcatalog_relations.go
	if l == nil || l.Relations == nil {
		return refusal("the database's relations were not read")
	}
	have := inheritedRoles(user, roles, members)
	for _, r := range l.Relations {
		if !have[r.Owner] {
			return refusal("it does not own every relation of the database")
		}
	}
	return nil
}

// inheritedRoles are the roles whose privileges user has without SET
// ROLE: itself and, transitively, the roles it is a member of with
// inheritance — the membership's inherit_option on 16+ (pg_auth_members
// has an oid from 16), the member's rolinherit before. Conservative: a
// membership whose inheritance is not known is left out (a refusal, not
// a wrong answer).
func inheritedRoles(user uint32, roles []wal.RoleFacts, members []wal.MemberFacts) map[uint32]bool {
	inherit := map[uint32]bool{}
	for _, r := range roles {
		inherit[r.OID] = r.Inherit
	}
	have := map[uint32]bool{user: true}
	for grew := true; grew; {
		grew = false
		for _, m := range members {
			if !have[m.Member] || have[m.Role] {
				continue
			}
			if m.OID != 0 && m.Inherit || m.OID == 0 && inherit[m.Member] {
				have[m.Role], grew = true, true
			}
		}
	}
	return have
}
