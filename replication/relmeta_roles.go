package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readRoles reads the cluster's roles and role memberships (pg_roles,
// pg_auth_members) for the SQL port's pg_roles, pg_auth_members, pg_user
// and pg_get_userbyid (psql's \du): PUBLIC may read both by default;
// when the follow user may not (a hardened cluster) or the cluster has
// more than wal.MaxRoles roles, nothing is recorded and the port refuses
// them. rolvaliduntil is read in UTC (the port prints it in the
// session's zone).
func readRoles(ctx context.Context, conn *pgx.Conn, version int) (roles []wal.RoleFacts, members []wal.MemberFacts, ok bool, err error) {
	var may bool
	var n int64
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.has_table_privilege('pg_catalog.pg_roles', 'SELECT')
			AND pg_catalog.has_table_privilege('pg_catalog.pg_auth_members', 'SELECT')`).Scan(&may); err != nil {
		return nil, nil, false, fmt.Errorf("roles: %w", err)
	}
	if !may {
		return nil, nil, false, nil
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_roles`).Scan(&n); err != nil {
		return nil, nil, false, fmt.Errorf("roles: %w", err)
	}
	if n > wal.MaxRoles {
		return nil, nil, false, nil
	}
	rows, err := conn.Query(ctx, `SELECT r.oid::int8, r.rolname::text, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin,
			r.rolreplication, r.rolbypassrls, r.rolconnlimit,
			coalesce(CASE WHEN pg_catalog.isfinite(r.rolvaliduntil)
				THEN pg_catalog.to_char(r.rolvaliduntil AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'
				ELSE r.rolvaliduntil::text END, ''), r.rolconfig,
			coalesce(pg_catalog.shobj_description(r.oid, 'pg_authid'), '')
		FROM pg_catalog.pg_roles r ORDER BY 1`)
	if err != nil {
		return nil, nil, false, fmt.Errorf("roles: %w", err)
	}
	var oid int64
	var r wal.RoleFacts
	var config []string
	_, err = pgx.ForEachRow(rows, []any{&oid, &r.Name, &r.Super, &r.Inherit, &r.CreateRole, &r.CreateDB, &r.CanLogin, &r.Replication,
		&r.BypassRLS, &r.ConnLimit, &r.ValidUntil, &config, &r.Comment}, func() error {
		x := r
		x.OID, x.Config = uint32(oid), config
		if config != nil && len(config) == 0 {
			x.Config = []string{}
		}
		roles = append(roles, x)
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("roles: %w", err)
	}
	// pg_auth_members has an oid and the inherit and set options from 16.
	q := `SELECT 0::int8, roleid::int8, member::int8, grantor::int8, admin_option, false, false FROM pg_catalog.pg_auth_members ORDER BY 2, 3, 4`
	if version >= 160000 {
		q = `SELECT oid::int8, roleid::int8, member::int8, grantor::int8, admin_option, inherit_option, set_option FROM pg_catalog.pg_auth_members ORDER BY 1`
	}
	rows, err = conn.Query(ctx, q)
	if err != nil {
		return nil, nil, false, fmt.Errorf("role memberships: %w", err)
	}
	var m wal.MemberFacts
	var moid, role, member, grantor int64
	_, err = pgx.ForEachRow(rows, []any{&moid, &role, &member, &grantor, &m.Admin, &m.Inherit, &m.Set}, func() error {
		x := m
		x.OID, x.Role, x.Member, x.Grantor = uint32(moid), uint32(role), uint32(member), uint32(grantor)
		members = append(members, x)
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("role memberships: %w", err)
	}
	return roles, members, true, nil
}
