package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Problem is one reason the server or the configuration is not ready for
// replication, with the way to fix it.
type Problem struct {
	Check  string // short name: "server version", "wal_level", ...
	Detail string // what is wrong
	Fix    string // what to do about it
}

func (p Problem) String() string { return p.Check + ": " + p.Detail + " (fix: " + p.Fix + ")" }

// minServerVersion: protocol 2 streaming of in-progress transactions and
// TID range scans both arrived in PostgreSQL 14.
const minServerVersion = 140000

// Preflight checks everything replication needs before anything is
// created: server version, wal_level, free replication slots and WAL
// senders, the role's privileges, the tables and their keys, an existing
// publication and slot. It returns every problem found (none: ready); the
// error is for checks that could not run at all. It changes nothing. This
// is what `sidecar check` reports.
func Preflight(ctx context.Context, conn *pgx.Conn, spec PublicationSpec, slot string) ([]Problem, error) {
	var probs []Problem
	add := func(check, detail, fix string) { probs = append(probs, Problem{check, detail, fix}) }

	var version int
	var walLevel, user string
	var maxSlots, usedSlots, maxSenders, usedSenders int
	var super, repl, createDB bool
	err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, current_setting('wal_level'),
		current_setting('max_replication_slots')::int, (SELECT count(*) FROM pg_catalog.pg_replication_slots)::int,
		current_setting('max_wal_senders')::int, (SELECT count(*) FROM pg_catalog.pg_stat_replication)::int,
		current_user::text, r.rolsuper, r.rolreplication,
		has_database_privilege(current_database(), 'CREATE')
		FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`).Scan(
		&version, &walLevel, &maxSlots, &usedSlots, &maxSenders, &usedSenders, &user, &super, &repl, &createDB)
	if err != nil {
		return nil, fmt.Errorf("preflight: read server settings: %w", err)
	}
	if version < minServerVersion {
		add("server version", fmt.Sprintf("PostgreSQL %d.%d", version/10000, version%10000/100),
			"upgrade to PostgreSQL 14 or later (15 is what sidecar is tested with)")
	}
	if walLevel != "logical" {
		add("wal_level", fmt.Sprintf("wal_level is %q", walLevel),
			"ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL")
	}
	if !super && !repl {
		add("privileges", fmt.Sprintf("role %q has no REPLICATION attribute", user),
			"ALTER ROLE "+QuoteIdent(user)+" REPLICATION")
	}

	// One permanent slot, plus a temporary one during a resync; one WAL
	// sender each.
	info, err := SlotStatus(ctx, conn.PgConn(), slot)
	if err != nil {
		return nil, fmt.Errorf("preflight: %w", err)
	}
	needSlots := 2
	if info.Exists {
		needSlots = 1
		if err := checkSlotUsable(info); err != nil {
			add("slot", err.Error(), "`sidecar run --resync` drops it and starts over, or choose another `slot` name")
		} else if info.Active {
			add("slot", fmt.Sprintf("slot %q is in use by another consumer", slot),
				"stop the other consumer (another sidecar?) or choose another `slot` name")
		} else if info.Database != "" {
			var db string
			if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err == nil && db != info.Database {
				add("slot", fmt.Sprintf("slot %q belongs to database %q, not %q", slot, info.Database, db),
					"choose another `slot` name")
			}
		}
	}
	if free := maxSlots - usedSlots; free < needSlots {
		add("replication slots", fmt.Sprintf("%d of max_replication_slots = %d in use, %d needed", usedSlots, maxSlots, needSlots),
			"raise max_replication_slots (restart needed) or drop unused slots (SELECT slot_name, active FROM pg_replication_slots)")
	}
	if free := maxSenders - usedSenders; free < 2 {
		add("WAL senders", fmt.Sprintf("%d of max_wal_senders = %d in use, 2 needed", usedSenders, maxSenders),
			"raise max_wal_senders (restart needed)")
	}

	pub, err := resolvePublication(ctx, conn, spec)
	if err != nil {
		add("tables", err.Error(), "fix `tables` in the configuration or the tables' keys")
		return probs, nil
	}
	exists, err := checkExistingPublication(ctx, conn, pub)
	if err != nil {
		add("publication", err.Error(), "see the message")
	}
	for _, t := range pub.Tables {
		var canRead, owns bool
		err := conn.QueryRow(ctx, `SELECT has_table_privilege(c.oid, 'SELECT'), pg_has_role(c.relowner, 'USAGE')
			FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2`, t.Schema, t.Name).Scan(&canRead, &owns)
		if err != nil {
			return nil, fmt.Errorf("preflight: privileges on %s: %w", t, err)
		}
		if !canRead {
			add("privileges", fmt.Sprintf("role %q cannot SELECT %s (needed by the copy)", user, t),
				"GRANT SELECT ON "+t.Quoted()+" TO "+QuoteIdent(user))
		}
		if !exists && !owns && !super {
			add("privileges", fmt.Sprintf("role %q does not own %s, so it cannot create the publication", user, t),
				"create the publication as the owner: CREATE PUBLICATION "+QuoteIdent(pub.Name)+" FOR TABLE ...")
		}
	}
	if !exists && !createDB && !super {
		add("privileges", fmt.Sprintf("role %q lacks CREATE on the database, needed for CREATE PUBLICATION", user),
			"GRANT CREATE ON DATABASE ... TO "+QuoteIdent(user)+", or create the publication beforehand")
	}
	return probs, nil
}
