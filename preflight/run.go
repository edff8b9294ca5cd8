package preflight

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/replication"
)

// connectTimeout bounds each connection attempt when the URL sets none.
const connectTimeout = 10 * time.Second

// Run connects with p.URL and runs every check. It never fails as a
// function: a connection or query failure is itself a failed Check. No text
// in the Report contains the URL's password.
func Run(ctx context.Context, p Params) Report {
	red := newRedactor(p.URL)
	var r Report
	add := func(cs ...Check) {
		for _, c := range cs {
			c.Detail, c.Fix = red.clean(c.Detail), red.clean(c.Fix)
			r.Checks = append(r.Checks, c)
		}
	}

	cfg, err := pgx.ParseConfig(p.URL)
	if err != nil {
		add(Check{Name: "connection", Status: Fail,
			Detail: "the connection URL is not valid: " + err.Error(),
			Fix:    "fix postgres.url: postgres://USER@HOST:PORT/DATABASE?sslmode=prefer (password from PGPASSWORD or postgres.password_file)"})
		return r
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	cfg.RuntimeParams["application_name"] = "sidecar check"
	where := target(&cfg.Config)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		add(Check{Name: "connection", Status: Fail,
			Detail: fmt.Sprintf("cannot connect to %s: %v", where, connErrText(err)),
			Fix:    "check postgres.url (host, port, database, user) and the password; on the server, listen_addresses and a pg_hba.conf line for this role and host"})
		return r
	}
	defer conn.Close(context.WithoutCancel(ctx))
	add(Check{Name: "connection", Detail: "connected to " + where})

	f, err := readServerFacts(ctx, conn, p)
	if err != nil {
		add(Check{Name: "server", Status: Fail, Detail: "could not read server settings: " + err.Error(),
			Fix: "run sidecar check with a role that can read pg_settings, pg_roles and pg_replication_slots"})
		return r
	}
	r.ServerVersion = f.version
	add(checkVersion(f), checkWALLevel(f), checkReplicationRole(f))
	if (f.superuser || f.replication) && f.walLevel == "logical" && f.maxSenders > f.activeSenders {
		add(checkReplicationConnection(ctx, cfg, where))
	}
	add(checkSlots(f), checkSenders(f))

	allTables := len(p.Tables) == 1 && p.Tables[0] == "*"
	var tables []tableFacts
	switch {
	case len(p.Tables) == 0:
		add(Check{Name: "tables", Status: Fail, Detail: "no tables configured",
			Fix: `list the tables to follow in tables, as "schema.table", or ["*"] for every table with a primary key`})
	case allTables:
		tables, err = readAllTables(ctx, conn)
		if err != nil {
			add(Check{Name: "tables", Status: Fail, Detail: "could not list tables: " + err.Error()})
		} else {
			add(checkAllTables(tables, f.role)...)
		}
	default:
		for _, name := range p.Tables {
			t := readTable(ctx, conn, name)
			t.known = !t.found && slices.Contains(p.Known, t.given)
			tables = append(tables, t)
			add(checkTable(t, f.role))
		}
	}

	if p.Publication != "" {
		pub, err := readPublication(ctx, conn, p.Publication)
		if err != nil {
			add(Check{Name: "publication", Status: Fail, Detail: "could not read publication " + p.Publication + ": " + err.Error()})
		} else {
			add(checkPublicationPrivilege(f, pub.exists, allTables, tables), checkPublication(p.Publication, pub, allTables, tables))
		}
	}
	if p.Slot != "" {
		s, err := readSlot(ctx, conn, p.Slot)
		if err != nil {
			add(Check{Name: "slot", Status: Fail, Detail: "could not read slot " + p.Slot + ": " + err.Error()})
		} else {
			s.ownDaemon = p.OwnDaemon
			add(checkSlot(p.Slot, f.database, s))
		}
	}
	return r
}

// connErrText is the useful part of a connection error. pgconn wraps the
// server's message (e.g. "password authentication failed for user ...") in
// text naming the host and user, which the caller prints separately.
//
// pgconn tries each host (and with sslmode=prefer, TLS then plain) and
// reports one line per attempt; the report has one line per check, so the
// lines are de-duplicated and joined.
func connErrText(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "failed to connect to `") {
		if i := strings.Index(msg, "`:"); i >= 0 {
			msg = msg[i+2:]
		}
	}
	var parts []string
	seen := map[string]bool{}
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !seen[line] {
			seen[line] = true
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, "; ")
}

// checkReplicationConnection opens a logical replication connection and runs
// IDENTIFY_SYSTEM: the end-to-end proof that pg_hba.conf, the role and a free
// WAL sender allow what `sidecar run` will do.
func checkReplicationConnection(ctx context.Context, cfg *pgx.ConnConfig, where string) Check {
	c := Check{Name: "replication_connection"}
	rcfg := cfg.Config.Copy()
	rcfg.RuntimeParams["replication"] = "database"
	conn, err := pgconn.ConnectConfig(ctx, rcfg)
	if err != nil {
		c.Status = Fail
		c.Detail = fmt.Sprintf("cannot open a replication connection to %s: %v", where, connErrText(err))
		c.Fix = "allow this role and host in pg_hba.conf (a line for the database, as for normal connections)"
		return c
	}
	defer conn.Close(context.WithoutCancel(ctx))
	sys, err := pglogrepl.IdentifySystem(ctx, conn)
	if err != nil {
		c.Status = Fail
		c.Detail = "IDENTIFY_SYSTEM failed on a replication connection: " + connErrText(err)
		return c
	}
	c.Detail = fmt.Sprintf("replication connection works (system %s, timeline %d, WAL at %s)", sys.SystemID, sys.Timeline, sys.XLogPos)
	return c
}

func readServerFacts(ctx context.Context, conn *pgx.Conn, p Params) (serverFacts, error) {
	f := serverFacts{slotName: p.Slot, publicationName: p.Publication}
	err := conn.QueryRow(ctx, `
SELECT current_setting('server_version_num')::int,
       current_setting('server_version'),
       current_setting('wal_level'),
       current_setting('max_replication_slots')::int,
       (SELECT count(*) FROM pg_replication_slots)::int,
       current_setting('max_wal_senders')::int,
       (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender')::int,
       current_user, r.rolsuper, r.rolreplication,
       current_database(),
       has_database_privilege(current_database(), 'CREATE'),
       EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1),
       pg_is_in_recovery()
FROM pg_roles r WHERE r.rolname = current_user`, p.Slot).Scan(
		&f.versionNum, &f.version, &f.walLevel, &f.maxSlots, &f.usedSlots, &f.maxSenders, &f.activeSenders,
		&f.role, &f.superuser, &f.replication, &f.database, &f.createOnDB, &f.slotExists, &f.standby)
	if err != nil {
		return f, fmt.Errorf("read server settings: %w", err)
	}
	return f, nil
}

// tableColumns reads tableFacts from pg_class c, pg_namespace n.
const tableColumns = `
SELECT format('%I.%I', n.nspname, c.relname), c.relkind::text, c.relreplident::text,
       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary),
       coalesce((SELECT ic.relname::text FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
                 WHERE i.indrelid = c.oid AND i.indisreplident), ''),
       coalesce((SELECT ic.relname::text FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
                 WHERE i.indrelid = c.oid AND i.indisunique AND i.indimmediate AND i.indisvalid
                   AND i.indpred IS NULL AND i.indexprs IS NULL
                   AND NOT EXISTS (SELECT 1 FROM pg_attribute a
                                   WHERE a.attrelid = c.oid AND a.attnum = ANY (i.indkey) AND NOT a.attnotnull)
                 ORDER BY i.indisprimary DESC, ic.relname LIMIT 1), ''),
       pg_has_role(c.relowner, 'USAGE'),
       has_table_privilege(c.oid, 'SELECT'),
       coalesce((SELECT string_agg(leaf, ', ' ORDER BY leaf) FROM (
                   SELECT format('%I.%I', ln.nspname, l.relname) AS leaf
                   FROM pg_partition_tree(c.oid) pt JOIN pg_class l ON l.oid = pt.relid
                   JOIN pg_namespace ln ON ln.oid = l.relnamespace
                   WHERE c.relkind = 'p' AND pt.isleaf AND NOT (l.relreplident = 'f' OR l.relreplident <> 'n' AND EXISTS (
                     SELECT 1 FROM pg_index li WHERE li.indrelid = l.oid
                       AND (li.indisprimary OR l.relreplident = 'i' AND li.indisreplident)))) x), ''),
       NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`

func scanTable(row pgx.Row, t *tableFacts) error {
	return row.Scan(&t.qualified, &t.relkind, &t.replident, &t.hasPK, &t.identIndex, &t.candidate, &t.owned, &t.selectable, &t.keylessLeaves, &t.noColumns)
}

// readTable looks one configured table up. The name is parsed here and
// handed to the server as two bind parameters quoted by format('%I.%I'),
// so no name, however hostile, becomes SQL.
func readTable(ctx context.Context, conn *pgx.Conn, given string) tableFacts {
	t := tableFacts{given: given}
	name, err := pgident.ParseTable(given)
	if err != nil {
		t.nameProblem = err.Error()
		return t
	}
	t.given = name.String()
	err = scanTable(conn.QueryRow(ctx, tableColumns+`
WHERE c.oid = to_regclass(format('%I.%I', $1::text, $2::text))`, name.Schema, name.Name), &t)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		t.lookupFailed = err.Error()
	default:
		t.found = true
	}
	return t
}

// readAllTables lists the tables "*" means: ordinary and partitioned tables
// outside the system schemas; partitions are covered by their root.
func readAllTables(ctx context.Context, conn *pgx.Conn) ([]tableFacts, error) {
	rows, err := conn.Query(ctx, tableColumns+`
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_'
ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableFacts, error) {
		t := tableFacts{found: true}
		err := scanTable(r, &t)
		t.given = t.qualified
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	return ts, nil
}

func readPublication(ctx context.Context, conn *pgx.Conn, name string) (pubFacts, error) {
	p := pubFacts{covered: map[string]bool{}}
	var comment string
	err := conn.QueryRow(ctx, `SELECT puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, coalesce(obj_description(oid, 'pg_publication'), '')
FROM pg_publication WHERE pubname = $1`, name).Scan(&p.allTables, &p.insert, &p.update, &p.delete, &p.truncate, &comment)
	p.managed = strings.HasPrefix(comment, replication.ManagedPublicationComment)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read publication: %w", err)
	}
	p.exists = true
	// pg_publication_tables lists a partitioned table's leaves unless the
	// publication publishes via the root; count the root covered when any
	// of its partitions is.
	rows, err := conn.Query(ctx, `
SELECT DISTINCT format('%I.%I', rn.nspname, r.relname)
FROM pg_publication_tables pt
JOIN pg_namespace n ON n.nspname = pt.schemaname
JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
CROSS JOIN LATERAL (SELECT coalesce(pg_partition_root(c.oid), c.oid) AS root) x
JOIN pg_class r ON r.oid = x.root
JOIN pg_namespace rn ON rn.oid = r.relnamespace
WHERE pt.pubname = $1`, name)
	if err != nil {
		return p, fmt.Errorf("read publication tables: %w", err)
	}
	covered, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return p, fmt.Errorf("read publication tables: %w", err)
	}
	for _, t := range covered {
		p.covered[t] = true
	}
	return p, nil
}

func readSlot(ctx context.Context, conn *pgx.Conn, name string) (slotFacts, error) {
	var s slotFacts
	var plugin, database, walStatus *string
	var pid *int32
	var app, client *string
	err := conn.QueryRow(ctx, `SELECT s.slot_type, s.plugin, s.database, s.wal_status, s.active_pid, a.application_name, host(a.client_addr)
FROM pg_replication_slots s LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid
WHERE s.slot_name = $1`, name).Scan(&s.slotType, &plugin, &database, &walStatus, &pid, &app, &client)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read slot: %w", err)
	}
	s.exists = true
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	s.plugin, s.database, s.walStatus = deref(plugin), deref(database), deref(walStatus)
	s.activeApp, s.activeClient = deref(app), deref(client)
	if pid != nil {
		s.activePID = int(*pid)
	}
	return s, nil
}
