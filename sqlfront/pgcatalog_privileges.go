package sqlfront

import (
	"errors"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// PostgreSQL's privilege checks for a session's role (issue 23, session
// 27), evaluated over what the copy and each catalog poll read (up to
// one poll stale after GRANT, REVOKE, ALTER … OWNER, CREATE/ALTER ROLE):
// relacl (the relation list, facts section 'w'), attacl (section 'D'),
// nspacl (section 'v'), the roles and memberships and the database's
// owner. It is aclchk.c's and acl.c's logic, ACLMASK_ANY (any of the
// privileges asked suffices):
//
//   - a superuser has every privilege;
//   - a role has a privilege when an ACL entry grants it to PUBLIC, to
//     the role, or to a role whose privileges it has (has_privs_of_role:
//     itself and, transitively, the roles it is a member of through
//     inheriting memberships — the member's rolinherit on 14 and 15,
//     each membership's inherit_option from 16 — and pg_database_owner
//     when it is, or has the privileges of, the database's owner);
//   - a NULL ACL is the default: the owner holds every privilege of the
//     object's kind, nobody else any (columns: none);
//   - pg_read_all_data gives SELECT on every relation and USAGE on every
//     schema, pg_write_all_data INSERT, UPDATE, DELETE and USAGE.
//
// What cannot be evaluated from the facts (an ACL entry naming a role
// not read, facts not read, a grant option asked) is refused 0A000 by
// the caller, never answered otherwise.

// Privilege bits (acl.h's ACL_* order is irrelevant here: only the
// letters aclitemout prints matter).
const (
	privSelect uint32 = 1 << iota
	privInsert
	privUpdate
	privDelete
	privTruncate
	privReferences
	privTrigger
	privMaintain
	privUsage
	privCreate
	privTemp
	privConnect
	privExecute
	privSet
	privAlterSystem
)

// aclLetters are aclitemout's letters.
var aclLetters = map[byte]uint32{'r': privSelect, 'a': privInsert, 'w': privUpdate, 'd': privDelete, 'D': privTruncate,
	'x': privReferences, 't': privTrigger, 'm': privMaintain, 'U': privUsage, 'C': privCreate, 'T': privTemp, 'c': privConnect,
	'X': privExecute, 's': privSet, 'A': privAlterSystem}

// privEval evaluates privilege checks for one role.
type privEval struct {
	cx     *pgCatCtx
	user   uint32
	super  bool
	major  int
	byName map[string]uint32
	privs  map[uint32]bool // has_privs_of_role(user, r)
	member map[uint32]bool // is_member_of_role(user, r)
	rels   map[uint32]*wal.RelationDetail
	named  map[[2]string]*wal.RelationDetail // by schema and relation name
	spaces map[string]wal.NamespaceOwner
	cols   map[uint32]map[string][]string // nil: the column ACLs were not read
}

// errPrivUnknown is the refusal of a check whose answer the facts do
// not determine.
func errPrivUnknown(what string) error {
	return errors.New(what + " is not known (sidecar evaluates privileges from the catalog facts the copy and each poll read)")
}

// newPrivEval is the evaluator of role (a name); known false when the
// role is not a role of the server (a user of sidecar's own users file)
// or the roles were not read — then no privilege is evaluated and the
// catalog lists everything, as before (the documented assumption).
func newPrivEval(cx *pgCatCtx, role string) (e *privEval, known bool, err error) {
	roles, members, ok := clusterRoles(cx.tables) // pgcatalog_roles.go
	if !ok {
		return nil, false, nil
	}
	e = &privEval{cx: cx, byName: map[string]uint32{}, major: serverVersion(cx.tables) / 10000}
	inherit := map[uint32]bool{}
	for _, r := range roles {
		e.byName[r.Name] = r.OID
		inherit[r.OID] = r.Inherit
		if r.Name == role {
			e.user, e.super = r.OID, r.Super
		}
	}
	if e.user == 0 {
		return nil, false, nil
	}
	if e.super {
		return e, true, nil
	}
	if e.major == 0 {
		return nil, true, errPrivUnknown("the server's major")
	}
	dba, dbaKnown := uint32(0), false
	if dbs, ok := clusterDatabases(cx.tables); ok { // pgcatalog_database.go
		cur := sourceDatabaseOID(cx.tables)
		for _, d := range dbs {
			if d.OID == cur && cur != 0 {
				dba, dbaKnown = d.Owner, true
			}
		}
	}
	if !dbaKnown {
		return nil, true, errPrivUnknown("the database's owner (pg_database_owner's member)")
	}
	e.privs = e.rolesOf(true, members, inherit, dba)
	e.member = e.rolesOf(false, members, inherit, dba)
	return e, true, nil
}

// rolesOf is roles_is_member_of(user): with privs, ROLERECURSE_PRIVS
// (the roles whose privileges it has), else ROLERECURSE_MEMBERS.
func (e *privEval) rolesOf(privs bool, members []wal.MemberFacts, inherit map[uint32]bool, dba uint32) map[uint32]bool {
	list := []uint32{e.user}
	have := map[uint32]bool{e.user: true}
	add := func(r uint32) {
		if !have[r] {
			have[r] = true
			list = append(list, r)
		}
	}
	dbOwnerRole, hasDBOwnerRole := e.byName["pg_database_owner"]
	for i := 0; i < len(list); i++ {
		m := list[i]
		if privs && e.major < 16 && !inherit[m] {
			continue // 14, 15: a NOINHERIT role's memberships give no privileges
		}
		for _, x := range members {
			if x.Member != m || privs && e.major >= 16 && !x.Inherit {
				continue
			}
			add(x.Role)
		}
		if m == dba && dba != 0 && hasDBOwnerRole {
			add(dbOwnerRole)
		}
	}
	return have
}

// hasPrivsOf is has_privs_of_role(user, role).
func (e *privEval) hasPrivsOf(role uint32) bool { return e.super || e.privs[role] }

// isMemberOf is is_member_of_role(user, role).
func (e *privEval) isMemberOf(role uint32) bool { return e.super || e.member[role] }

// aclGrants says whether acl grants any privilege of mask to the user
// (directly, to PUBLIC or to a role whose privileges it has).
func (e *privEval) aclGrants(acl []string, mask uint32) (bool, error) {
	for _, item := range acl {
		grantee, bits, err := parseACLItem(item)
		if err != nil {
			return false, err
		}
		if bits&mask == 0 {
			continue
		}
		if grantee == "" {
			return true, nil // PUBLIC
		}
		oid, ok := e.byName[grantee]
		if !ok {
			n, err := strconv.ParseUint(grantee, 10, 32) // aclitemout prints a dropped role's OID
			if err != nil {
				return false, errPrivUnknown("an ACL entry of the role " + grantee + ", not among the roles read")
			}
			oid = uint32(n)
		}
		if e.hasPrivsOf(oid) {
			return true, nil
		}
	}
	return false, nil
}

// parseACLItem splits aclitemout's text grantee=privs/grantor (grantee
// "" for PUBLIC, double-quoted when it needs quoting) into the grantee's
// name and the privileges' bits (grant options ignored: ACLMASK_ANY of
// privileges).
func parseACLItem(s string) (grantee string, bits uint32, err error) {
	bad := func() (string, uint32, error) {
		return "", 0, errors.New("the ACL entry " + strconv.Quote(s) + " is not in aclitemout's form")
	}
	i := 0
	var name strings.Builder
	if strings.HasPrefix(s, `"`) {
		for i = 1; ; i++ {
			if i >= len(s) {
				return bad()
			}
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					name.WriteByte('"')
					i++
					continue
				}
				i++
				break
			}
			name.WriteByte(s[i])
		}
	} else {
		for ; i < len(s) && s[i] != '='; i++ {
			name.WriteByte(s[i])
		}
	}
	if i >= len(s) || s[i] != '=' {
		return bad()
	}
	for i++; i < len(s) && s[i] != '/'; i++ {
		if s[i] == '*' {
			continue
		}
		b, ok := aclLetters[s[i]]
		if !ok {
			return bad()
		}
		bits |= b
	}
	return name.String(), bits, nil
}

// relations indexes the relation list (refusing when it was not read).
func (e *privEval) relations() error {
	if e.rels != nil {
		return nil
	}
	l := relationList(e.cx.tables) // pgcatalog_relations.go
	if l == nil || l.Relations == nil {
		return errPrivUnknown("the database's relations and their ACLs")
	}
	e.rels, e.named, e.spaces = map[uint32]*wal.RelationDetail{}, map[[2]string]*wal.RelationDetail{}, map[string]wal.NamespaceOwner{}
	nsName := map[uint32]string{}
	for _, n := range l.Namespaces {
		nsName[n.OID] = n.Name
		e.spaces[n.Name] = n
	}
	for i := range l.Relations {
		r := &l.Relations[i]
		e.rels[r.OID] = r
		e.named[[2]string{nsName[r.Namespace], r.Name}] = r
	}
	return nil
}

// relationNamed is the relation schema.name of an information_schema
// row (refused when unknown).
func (e *privEval) relationNamed(schema, name *string) (*wal.RelationDetail, error) {
	if err := e.relations(); err != nil {
		return nil, err
	}
	if schema == nil || name == nil || schema == pgUnknown || name == pgUnknown || schema == pgStandIn || name == pgStandIn {
		return nil, errPrivUnknown("a relation whose name is not known")
	}
	r, ok := e.named[[2]string{*schema, *name}]
	if !ok {
		return nil, errPrivUnknown("the relation " + *schema + "." + *name + ", not in the relation list read")
	}
	return r, nil
}

// owns is pg_has_role(owner, 'USAGE').
func (e *privEval) owns(owner uint32) bool { return e.hasPrivsOf(owner) }

// relationPrivilege is has_table_privilege (and has_sequence_privilege)
// of r for any privilege of mask: pg_class_aclmask.
func (e *privEval) relationPrivilege(r *wal.RelationDetail, mask uint32) (bool, error) {
	if e.super {
		return true, nil
	}
	var ok bool
	if !r.HasACL {
		all := privSelect | privInsert | privUpdate | privDelete | privTruncate | privReferences | privTrigger
		if e.major >= 17 {
			all |= privMaintain
		}
		if r.Kind == 'S' {
			all = privUsage | privSelect | privUpdate
		}
		ok = all&mask != 0 && e.hasPrivsOf(r.Owner)
	} else {
		var err error
		if ok, err = e.aclGrants(r.ACL, mask); err != nil {
			return false, err
		}
	}
	if !ok && mask&privSelect != 0 && e.hasPrivsOfNamed("pg_read_all_data") {
		ok = true
	}
	if !ok && mask&(privInsert|privUpdate|privDelete) != 0 && e.hasPrivsOfNamed("pg_write_all_data") {
		ok = true
	}
	if !ok && mask&privMaintain != 0 && e.major >= 17 && e.hasPrivsOfNamed("pg_maintain") {
		ok = true
	}
	return ok, nil
}

// hasPrivsOfNamed is has_privs_of_role of a predefined role by name
// (false when the server has no such role).
func (e *privEval) hasPrivsOfNamed(name string) bool {
	oid, ok := e.byName[name]
	return ok && e.hasPrivsOf(oid)
}

// columnACLs indexes section 'D' (refusing when it was not read).
func (e *privEval) columnACLs() error {
	if e.cols != nil {
		return nil
	}
	p := carriedSection(e.cx.tables, func(s *wal.SchemaFacts) *wal.PrivilegeFacts { return s.Privileges }, (*wal.PrivilegeFacts).Equal) // pgcatalog_extensions.go
	if p == nil || p.ColumnACLs == nil {
		return errPrivUnknown("the database's column privileges")
	}
	e.cols = map[uint32]map[string][]string{}
	for _, c := range p.ColumnACLs {
		if e.cols[c.Rel] == nil {
			e.cols[c.Rel] = map[string][]string{}
		}
		e.cols[c.Rel][c.Column] = c.ACL
	}
	return nil
}

// columnPrivilege is has_column_privilege(r, column, mask): the table's
// privilege, else the column's own ACL (NULL: none).
func (e *privEval) columnPrivilege(r *wal.RelationDetail, column string, mask uint32) (bool, error) {
	if ok, err := e.relationPrivilege(r, mask); ok || err != nil {
		return ok, err
	}
	if err := e.columnACLs(); err != nil {
		return false, err
	}
	return e.aclGrants(e.cols[r.OID][column], mask)
}

// anyColumnPrivilege is has_any_column_privilege(r, mask).
func (e *privEval) anyColumnPrivilege(r *wal.RelationDetail, mask uint32) (bool, error) {
	if ok, err := e.relationPrivilege(r, mask); ok || err != nil {
		return ok, err
	}
	if err := e.columnACLs(); err != nil {
		return false, err
	}
	for _, acl := range e.cols[r.OID] {
		if ok, err := e.aclGrants(acl, mask); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// schemaPrivilege is has_schema_privilege(n, mask): pg_namespace_aclmask.
func (e *privEval) schemaPrivilege(oid, owner uint32, mask uint32) (bool, error) {
	if e.super {
		return true, nil
	}
	n, read := namespaceDetail(e.cx.tables, oid) // pgcatalog_nspdetail.go
	if !read {
		return false, errPrivUnknown("the ACL of the schema with OID " + strconv.FormatUint(uint64(oid), 10))
	}
	var ok bool
	if !n.HasACL {
		ok = (privUsage|privCreate)&mask != 0 && e.hasPrivsOf(owner)
	} else {
		var err error
		if ok, err = e.aclGrants(n.ACL, mask); err != nil {
			return false, err
		}
	}
	if !ok && mask&privUsage != 0 && (e.hasPrivsOfNamed("pg_read_all_data") || e.hasPrivsOfNamed("pg_write_all_data")) {
		ok = true
	}
	return ok, nil
}

// privFuncs are the privilege functions vecCatalog.Func answers for the
// session's user or a role named (privilegeFunc).
var privFuncs = map[string]bool{"has_table_privilege": true, "has_sequence_privilege": true, "has_any_column_privilege": true,
	"has_schema_privilege": true, "pg_has_role": true}

// privWords are the privilege names each function accepts
// (convert_*_priv_string), with the bits they ask.
var privWords = map[string]map[string]uint32{
	"has_table_privilege": {"SELECT": privSelect, "INSERT": privInsert, "UPDATE": privUpdate, "DELETE": privDelete, "TRUNCATE": privTruncate,
		"REFERENCES": privReferences, "TRIGGER": privTrigger, "MAINTAIN": privMaintain},
	"has_sequence_privilege":   {"USAGE": privUsage, "SELECT": privSelect, "UPDATE": privUpdate},
	"has_any_column_privilege": {"SELECT": privSelect, "INSERT": privInsert, "UPDATE": privUpdate, "REFERENCES": privReferences},
	"has_schema_privilege":     {"CREATE": privCreate, "USAGE": privUsage},
	"pg_has_role":              {"USAGE": privUsage, "MEMBER": privSelect},
}

// privMask parses a privilege list as PostgreSQL's convert_any_priv_string
// does: comma-separated names, blanks around them ignored, case
// insensitive; an unknown one fails 22023 as PostgreSQL; a grant option
// (WITH GRANT/ADMIN OPTION) or a word of a later major is refused.
func privMask(fn, list string, major int) (uint32, error) {
	var mask uint32
	for _, chunk := range strings.Split(list, ",") {
		chunk = strings.Trim(chunk, " \t\n\r\f\v")
		w := strings.ToUpper(chunk)
		if strings.HasSuffix(w, " WITH GRANT OPTION") || strings.HasSuffix(w, " WITH ADMIN OPTION") || fn == "pg_has_role" && w == "SET" && major >= 16 ||
			fn == "has_table_privilege" && w == "RULE" {
			return 0, unsupported(-1, fn+" of "+strconv.Quote(chunk)+" (sidecar evaluates privileges, not grant options, SET or RULE)")
		}
		bits, ok := privWords[fn][w]
		if !ok || w == "MAINTAIN" && major < 17 {
			return 0, errf(codeInvalidParam, -1, "unrecognized privilege type: \"%s\"", chunk)
		}
		mask |= bits
	}
	return mask, nil
}
