package preflight

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/replication"
)

const restart = "; then restart PostgreSQL"

// serverFacts are the server-wide facts the checks judge, read in one query.
type serverFacts struct {
	versionNum      int    // server_version_num
	version         string // server_version
	walLevel        string
	maxSlots        int
	usedSlots       int
	maxSenders      int
	activeSenders   int
	role            string
	superuser       bool
	replication     bool
	database        string
	createOnDB      bool
	slotExists      bool // the configured slot exists (it needs no free slot)
	standby         bool // pg_is_in_recovery(): a physical standby
	slotName        string
	publicationName string
}

func checkVersion(f serverFacts) Check {
	c := Check{Name: "server_version", Detail: fmt.Sprintf("PostgreSQL %s", f.version)}
	switch {
	case f.versionNum < replication.MinServerVersion:
		c.Status = Fail
		c.Detail = fmt.Sprintf("PostgreSQL %s is too old: the sidecar needs 14 or later (pgoutput protocol 2 streaming and logical messages)", f.version)
		c.Fix = "upgrade PostgreSQL to version 14 or later"
	case f.standby && f.versionNum < minStandbyVersion:
		c.Status = Fail
		c.Detail = fmt.Sprintf("PostgreSQL %s is a standby, and logical decoding on a standby needs 16 or later", f.version)
		c.Fix = "point postgres.url at the primary (or upgrade to 16 or later to follow the standby)"
	case f.standby:
		c.Detail += " (a standby: the slot is created here; create the publication on the primary, and run SELECT pg_log_standby_snapshot() there to make slot creation immediate)"
	}
	return c
}

// minStandbyVersion is the oldest PostgreSQL that decodes on a standby.
const minStandbyVersion = 160000

func checkWALLevel(f serverFacts) Check {
	c := Check{Name: "wal_level", Detail: "wal_level = logical"}
	if f.walLevel != "logical" {
		c.Status = Fail
		c.Detail = fmt.Sprintf("wal_level = %s, but logical decoding needs wal_level = logical", f.walLevel)
		c.Fix = "ALTER SYSTEM SET wal_level = logical" + restart
	}
	return c
}

// checkSlots wants a slot for the sidecar (unless it exists already) and one
// spare for a per-table resync, which streams from a temporary slot.
func checkSlots(f serverFacts) Check {
	free := f.maxSlots - f.usedSlots
	need := 1
	if f.slotExists {
		need = 0
	}
	c := Check{Name: "replication_slots", Detail: fmt.Sprintf("%d of max_replication_slots = %d free", free, f.maxSlots)}
	if f.slotExists {
		c.Detail += fmt.Sprintf(" (slot %s exists)", f.slotName)
	}
	raise := fmt.Sprintf("ALTER SYSTEM SET max_replication_slots = %d%s (or drop an unused slot: SELECT slot_name FROM pg_replication_slots; SELECT pg_drop_replication_slot('name'))", f.usedSlots+need+1, restart)
	switch {
	case free < need:
		c.Status = Fail
		c.Detail = fmt.Sprintf("no free replication slot: all %d of max_replication_slots = %d are used", f.usedSlots, f.maxSlots)
		c.Fix = raise
	case free < need+1:
		c.Status = Warn
		c.Detail += "; none spare for a per-table resync, which needs a temporary slot"
		c.Fix = raise
	}
	return c
}

// checkSenders wants a WAL sender for the stream and one spare for a resync.
func checkSenders(f serverFacts) Check {
	free := f.maxSenders - f.activeSenders
	c := Check{Name: "wal_senders", Detail: fmt.Sprintf("%d of max_wal_senders = %d free", free, f.maxSenders)}
	raise := fmt.Sprintf("ALTER SYSTEM SET max_wal_senders = %d%s", f.activeSenders+2, restart)
	switch {
	case free < 1:
		c.Status = Fail
		c.Detail = fmt.Sprintf("no free WAL sender: %d of max_wal_senders = %d are in use", f.activeSenders, f.maxSenders)
		c.Fix = raise
	case free < 2:
		c.Status = Warn
		c.Detail += "; none spare for a per-table resync"
		c.Fix = raise
	}
	return c
}

func checkReplicationRole(f serverFacts) Check {
	c := Check{Name: "replication_role", Detail: fmt.Sprintf("role %s may replicate", f.role)}
	switch {
	case f.superuser:
		c.Detail += " (superuser)"
	case f.replication:
		c.Detail += " (REPLICATION)"
	default:
		c.Status = Fail
		c.Detail = fmt.Sprintf("role %s has neither REPLICATION nor SUPERUSER, so it cannot open a replication connection", f.role)
		c.Fix = fmt.Sprintf("ALTER ROLE %s WITH REPLICATION;", pgident.Quote(f.role))
	}
	return c
}

// tableFacts describe one table, as read from pg_class.
type tableFacts struct {
	given      string // the name as configured, or the qualified name for "*"
	found      bool
	known      bool   // the mirror holds it (Params.Known)
	qualified  string // quoted schema.table
	relkind    string // 'r' table, 'p' partitioned, 'v' view, ...
	replident  string // 'd' default (PK), 'i' index, 'f' full, 'n' nothing
	hasPK      bool
	identIndex string // index of REPLICA IDENTITY USING INDEX, or ""
	candidate  string // a unique index on NOT NULL columns, or ""
	owned      bool   // the role owns it (may add it to a publication)
	selectable bool   // the role may SELECT it (initial copy)
	// keylessLeaves lists the partitions of a partitioned table that have
	// neither a key nor REPLICA IDENTITY FULL (partitions do not inherit
	// their root's REPLICA IDENTITY), or "".
	keylessLeaves string
	// noColumns: the table has no column pgoutput publishes (none, or
	// only dropped or generated ones; CREATE TABLE t ()). It cannot be
	// followed: its rows carry no value to key, store or tell apart.
	noColumns    bool
	nameProblem  string // set when the name could not be parsed
	lookupFailed string // set when the lookup query failed
}

var relkinds = map[string]string{
	"r": "table", "p": "partitioned table", "v": "view", "m": "materialized view",
	"f": "foreign table", "S": "sequence", "i": "index", "I": "partitioned index",
	"c": "composite type", "t": "TOAST table",
}

// hasKey reports whether the sidecar can follow the table: by its
// primary key, by its REPLICA IDENTITY USING INDEX index, or, under
// REPLICA IDENTITY FULL, as a multiset of whole rows (a table without a
// key may hold identical rows; the stream names a row by all its values).
func (t tableFacts) hasKey() bool {
	return t.keylessLeaves == "" && (t.replident == "f" || t.replident != "n" && (t.hasPK || t.replident == "i" && t.identIndex != ""))
}

// keyFix is the SQL that lets the sidecar follow t: a key, or REPLICA
// IDENTITY FULL, which makes PostgreSQL log every UPDATE's and DELETE's
// whole old row and the sidecar keep the table as a multiset.
func (t tableFacts) keyFix() string {
	full := fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY FULL; (followed as a multiset of whole rows; PostgreSQL then logs each UPDATE's and DELETE's whole old row)", t.qualified)
	if t.candidate != "" {
		return fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY USING INDEX %s; or ALTER TABLE %s ADD PRIMARY KEY (...); or %s",
			t.qualified, pgident.Quote(t.candidate), t.qualified, full)
	}
	return fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (column, ...); or %s", t.qualified, full)
}

// keyProblem says why t cannot be followed, for a table without a key
// (REPLICA IDENTITY NOTHING aside), and the fix.
func (t tableFacts) keyProblem() (problem, fix string) {
	if t.keylessLeaves != "" {
		var fixes []string
		for _, l := range strings.Split(t.keylessLeaves, ", ") {
			fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY FULL;", l))
		}
		return fmt.Sprintf("partitions %s of %s have no primary key nor REPLICA IDENTITY FULL (a partition does not inherit its root's REPLICA IDENTITY): once published, PostgreSQL rejects their UPDATEs and DELETEs", t.keylessLeaves, t.qualified),
			strings.Join(fixes, " ")
	}
	return fmt.Sprintf("%s has no primary key (nor REPLICA IDENTITY USING INDEX or FULL): rows cannot be identified", t.qualified), t.keyFix()
}

// noColumnsProblem says why a table without any column cannot be
// followed (the stream and the copy say the same, replication.NoColumnsProblem).
func (t tableFacts) noColumnsProblem() string {
	return fmt.Sprintf("%s has no column: PostgreSQL counts its rows, but a row carries no value the sidecar could key, store or tell apart", t.qualified)
}

func (t tableFacts) noColumnsFix() string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN ...; or remove it from tables in the config", t.qualified)
}

// checkTable judges a configured table: it must exist, be a table, have a
// key and be readable by the role.
func checkTable(t tableFacts, role string) Check {
	c := Check{Name: "table " + t.given}
	switch {
	case t.nameProblem != "":
		c.Status, c.Detail = Fail, t.nameProblem
		c.Fix = `write tables as schema.table; double-quote names with capitals or other characters: "My Schema"."My Table"`
		return c
	case t.lookupFailed != "":
		c.Status, c.Detail = Fail, "could not look the table up: "+t.lookupFailed
		return c
	case !t.found && t.known:
		c.Status, c.Absent = Warn, t.given
		c.Detail = fmt.Sprintf("table %s does not exist any more, but the mirror holds it: it was dropped after it was followed; its history stays readable and the other tables are followed", t.given)
		c.Fix = fmt.Sprintf("remove %s from tables in the config once its history is no longer needed", t.given)
		return c
	case !t.found:
		c.Status, c.Absent = Fail, t.given
		c.Detail = fmt.Sprintf("table %s does not exist (unquoted names are folded to lower case)", t.given)
		c.Fix = fmt.Sprintf("create %s, or remove it from tables in the config", t.given)
		return c
	case t.relkind != "r" && t.relkind != "p":
		kind := relkinds[t.relkind]
		if kind == "" {
			kind = "relation of kind " + t.relkind
		}
		c.Status = Fail
		c.Detail = fmt.Sprintf("%s is a %s; only tables can be followed", t.qualified, kind)
		c.Fix = fmt.Sprintf("remove %s from tables in the config", t.given)
		return c
	}
	var problems, fixes []string
	switch {
	case t.noColumns:
		problems = append(problems, t.noColumnsProblem())
		fixes = append(fixes, t.noColumnsFix())
	case t.replident == "n":
		problems = append(problems, fmt.Sprintf("%s has REPLICA IDENTITY NOTHING: once published, PostgreSQL rejects its UPDATEs and DELETEs", t.qualified))
		fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY DEFAULT;", t.qualified))
		if !t.hasPK {
			fixes = append(fixes, t.keyFix())
		}
	case !t.hasKey():
		p, f := t.keyProblem()
		problems, fixes = append(problems, p), append(fixes, f)
	}
	if !t.selectable {
		problems = append(problems, fmt.Sprintf("role %s may not SELECT %s (the initial copy reads it)", role, t.qualified))
		fixes = append(fixes, fmt.Sprintf("GRANT SELECT ON %s TO %s;", t.qualified, pgident.Quote(role)))
	}
	if len(problems) > 0 {
		c.Status, c.Detail, c.Fix = Fail, strings.Join(problems, "; "), strings.Join(fixes, " ")
		return c
	}
	switch {
	case t.replident == "f" && !t.hasPK:
		c.Detail = fmt.Sprintf("%s has no primary key but REPLICA IDENTITY FULL: followed as a multiset of whole rows (get by key is refused; scan, diff and verify work)", t.qualified)
	case t.hasPK:
		c.Detail = fmt.Sprintf("%s has a primary key", t.qualified)
	default:
		c.Detail = fmt.Sprintf("%s is keyed by its replica identity index %s", t.qualified, pgident.Quote(t.identIndex))
	}
	return c
}

// checkAllTables judges "*": every table with a key is followed; those
// without are listed as warnings, since they will not be.
func checkAllTables(ts []tableFacts, role string) []Check {
	keyed := 0
	var out []Check
	for _, t := range ts {
		if t.noColumns {
			out = append(out, Check{Name: "table " + t.qualified, Status: Warn, Detail: t.noColumnsProblem() + "; it will not be followed", Fix: t.noColumnsFix()})
			continue
		}
		if t.hasKey() {
			keyed++
			if !t.selectable {
				out = append(out, checkTable(t, role))
			}
			continue
		}
		p, f := t.keyProblem()
		out = append(out, Check{Name: "table " + t.qualified, Status: Warn, Detail: p + "; it will not be followed", Fix: f})
	}
	sum := Check{Name: "tables", Detail: fmt.Sprintf(`tables = ["*"]: %d of %d tables have a key (or REPLICA IDENTITY FULL) and will be followed`, keyed, len(ts))}
	if keyed == 0 {
		sum.Status = Warn
		sum.Detail = `tables = ["*"], but no table has a primary key (or REPLICA IDENTITY USING INDEX or FULL): nothing would be followed`
		sum.Fix = "add primary keys to the tables to follow (or ALTER TABLE … REPLICA IDENTITY FULL), or list them in tables"
	}
	return append([]Check{sum}, out...)
}

// checkPublicationPrivilege judges whether the role can create the
// publication when it does not exist yet: CREATE on the database, and
// ownership of each table (FOR TABLE) or superuser (FOR ALL TABLES).
func checkPublicationPrivilege(f serverFacts, exists, allTables bool, tables []tableFacts) Check {
	c := Check{Name: "publication_privilege"}
	pub := pgident.Quote(f.publicationName)
	switch {
	case exists:
		c.Detail = fmt.Sprintf("publication %s exists; nothing to create", f.publicationName)
		return c
	case f.standby:
		c.Status = Fail
		c.Detail = fmt.Sprintf("publication %s does not exist, and a standby is read-only: the sidecar cannot create it here", f.publicationName)
		c.Fix = fmt.Sprintf("on the primary: CREATE PUBLICATION %s FOR TABLE …; (it reaches the standby with the WAL)", pub)
		return c
	case f.superuser:
		c.Detail = fmt.Sprintf("role %s is a superuser and can create publication %s", f.role, f.publicationName)
		return c
	}
	// What creating it takes: CREATE on the database and ownership of
	// every table. Both are named at once, with one fix that does it all
	// (an administrator creating the publication for every followed
	// table), so doing what the report says is enough the first time.
	var listed, notOwned []string
	for _, t := range tables {
		if t.found && t.hasKey() {
			listed = append(listed, t.qualified)
			if !t.owned {
				notOwned = append(notOwned, t.qualified)
			}
		}
	}
	var problems []string
	if !f.createOnDB {
		problems = append(problems, fmt.Sprintf("lacks CREATE on database %s", f.database))
	}
	if len(notOwned) > 0 {
		problems = append(problems, fmt.Sprintf("does not own %s (only a table's owner or a superuser can add it to a publication)", strings.Join(notOwned, ", ")))
	}
	if len(problems) == 0 {
		c.Detail = fmt.Sprintf("role %s owns the tables and can create publication %s", f.role, f.publicationName)
		return c
	}
	c.Status = Fail
	c.Detail = fmt.Sprintf("role %s %s, so it cannot create publication %s", f.role, strings.Join(problems, " and "), f.publicationName)
	switch {
	case len(notOwned) == 0:
		c.Fix = fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s;", pgident.Quote(f.database), pgident.Quote(f.role))
	case allTables:
		c.Fix = fmt.Sprintf("as a superuser: CREATE PUBLICATION %s FOR ALL TABLES; (the sidecar then needs neither CREATE nor ownership)", pub)
	default:
		c.Fix = fmt.Sprintf("as a superuser (or a role with CREATE on the database owning every table listed): CREATE PUBLICATION %s FOR TABLE %s; (the sidecar then needs neither CREATE nor ownership)",
			pub, strings.Join(listed, ", "))
	}
	return c
}

// pubFacts describe the configured publication.
type pubFacts struct {
	exists                           bool
	allTables                        bool
	insert, update, delete, truncate bool
	// managed: the sidecar created it (its comment says so); with
	// tables ["*"] it adds tables created later to it.
	managed bool
	covered map[string]bool // quoted schema.table
}

// checkPublication judges an existing publication: it must publish every
// kind of change and cover the followed tables.
func checkPublication(name string, p pubFacts, allTables bool, tables []tableFacts) Check {
	c := Check{Name: "publication"}
	if !p.exists {
		c.Detail = fmt.Sprintf("publication %s does not exist yet; sidecar run creates it", name)
		return c
	}
	var problems, fixes []string
	var missingOps []string
	for _, op := range []struct {
		name string
		on   bool
	}{{"insert", p.insert}, {"update", p.update}, {"delete", p.delete}, {"truncate", p.truncate}} {
		if !op.on {
			missingOps = append(missingOps, op.name)
		}
	}
	if len(missingOps) > 0 {
		problems = append(problems, fmt.Sprintf("publication %s does not publish %s, so the mirror would miss those changes", name, strings.Join(missingOps, ", ")))
		fixes = append(fixes, fmt.Sprintf("ALTER PUBLICATION %s SET (publish = 'insert, update, delete, truncate');", pgident.Quote(name)))
	}
	var missing []string
	if !p.allTables {
		for _, t := range tables {
			if t.found && t.hasKey() && !p.covered[t.qualified] {
				missing = append(missing, t.qualified)
			}
		}
	}
	var adds string
	if len(missing) > 0 && allTables && p.managed {
		// The sidecar's own publication: sidecar run adds them.
		adds = fmt.Sprintf("; sidecar run adds %s to it and follows them", strings.Join(missing, ", "))
		missing = nil
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("publication %s does not cover %s", name, strings.Join(missing, ", ")))
		fixes = append(fixes, fmt.Sprintf("ALTER PUBLICATION %s ADD TABLE %s;", pgident.Quote(name), strings.Join(missing, ", ")))
	}
	if len(problems) == 0 {
		c.Detail = fmt.Sprintf("publication %s exists and covers the followed tables", name)
		if p.allTables {
			c.Detail = fmt.Sprintf("publication %s exists (FOR ALL TABLES)", name)
		}
		c.Detail += adds
		return c
	}
	c.Status = Fail
	if len(missingOps) == 0 && allTables {
		// with "*", a table the user's publication does not cover is
		// simply not followed
		c.Status = Warn
		problems[len(problems)-1] += " (a publication the sidecar did not create: the tables it publishes are followed, including ones added to it later)"
	}
	if adds != "" {
		problems[len(problems)-1] += adds
	}
	c.Detail, c.Fix = strings.Join(problems, "; "), strings.Join(fixes, " ")
	return c
}

// slotFacts describe the configured slot.
type slotFacts struct {
	exists    bool
	slotType  string // "logical" or "physical"
	plugin    string
	database  string
	walStatus string // reserved, extended, unreserved, lost
	activePID int    // 0 when not active
	// activeApp and activeClient describe the active consumer's session
	// (pg_stat_activity.application_name, client_addr); the sidecar's
	// replication connections call themselves "sidecar".
	activeApp, activeClient string
	// ownDaemon is Params.OwnDaemon: the API address of this
	// configuration's daemon when it answered, so a sidecar consuming the
	// slot is expected to be that one.
	ownDaemon string
}

// checkSlot judges an existing slot: logical, pgoutput, in our database, and
// not lost.
func checkSlot(name, database string, s slotFacts) Check {
	c := Check{Name: "slot"}
	lit := quoteLiteral(name)
	drop := fmt.Sprintf("SELECT pg_drop_replication_slot(%s);", lit)
	switch {
	case !s.exists:
		c.Detail = fmt.Sprintf("slot %s does not exist yet; sidecar run creates it (with an initial copy of the tables)", name)
	case s.slotType != "logical":
		c.Status = Fail
		c.Detail = fmt.Sprintf("slot %s is a %s slot, not a logical one", name, s.slotType)
		c.Fix = fmt.Sprintf("configure another slot name, or if slot %s is unused: %s", name, drop)
	case s.plugin != "pgoutput":
		c.Status = Fail
		c.Detail = fmt.Sprintf("slot %s uses output plugin %s; the sidecar needs pgoutput", name, s.plugin)
		c.Fix = fmt.Sprintf("configure another slot name, or if slot %s is unused: %s", name, drop)
	case s.database != database:
		c.Status = Fail
		c.Detail = fmt.Sprintf("slot %s belongs to database %s, not %s", name, s.database, database)
		c.Fix = fmt.Sprintf("configure another slot name, or connect to database %s", s.database)
	case s.walStatus == "lost":
		c.Status = Fail
		c.Detail = fmt.Sprintf("slot %s has lost WAL it needs (wal_status = lost): changes since the sidecar last read it are gone", name)
		c.Fix = fmt.Sprintf("start over with a fresh copy: %s then sidecar run --resync (and raise max_slot_wal_keep_size so it does not happen again)", drop)
	case s.walStatus == "unreserved":
		c.Status = Warn
		c.Detail = fmt.Sprintf("slot %s is about to lose WAL it needs (wal_status = unreserved)", name)
		c.Fix = "start sidecar run now so it catches up, or raise max_slot_wal_keep_size"
	case s.activePID != 0 && s.activeApp == "sidecar" && s.ownDaemon != "":
		c.Detail = fmt.Sprintf("slot %s is in use by this configuration's running sidecar (its API answers at %s; walsender pid %d): expected while it runs",
			name, s.ownDaemon, s.activePID)
	case s.activePID != 0 && s.activeApp == "sidecar":
		c.Status = Warn
		c.Detail = fmt.Sprintf("slot %s is in use by another sidecar (walsender pid %d%s), and none answers at this configuration's listen address; a slot has one consumer at a time",
			name, s.activePID, fromClient(s.activeClient))
		c.Fix = fmt.Sprintf("stop that sidecar before starting this one, or give this one a slot of its own (slot: in the config); only if that sidecar is gone and its connection is stuck: SELECT pg_terminate_backend(%d);", s.activePID)
	case s.activePID != 0:
		c.Status = Warn
		app := ""
		if s.activeApp != "" {
			app = ", application_name " + quoteLiteral(s.activeApp)
		}
		c.Detail = fmt.Sprintf("slot %s is in use by process %d%s%s, not a sidecar", name, s.activePID, app, fromClient(s.activeClient))
		c.Fix = fmt.Sprintf("configure another slot name, or stop that consumer; if it is stuck: SELECT pg_terminate_backend(%d);", s.activePID)
	default:
		c.Detail = fmt.Sprintf("slot %s exists (pgoutput, wal_status = %s); sidecar run resumes from it", name, s.walStatus)
	}
	return c
}

// fromClient is ", from ADDR" for a consumer's client address, or "" for
// a local (Unix socket) or hidden one.
func fromClient(addr string) string {
	if addr == "" {
		return ""
	}
	return ", from " + addr
}
