package sqlfront

import (
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Transaction isolation. Every statement inside BEGIN … COMMIT reads
// the version the transaction's first statement resolved (versionFor
// keeps it per ref in txVers): the reads of one snapshot, PostgreSQL's
// REPEATABLE READ. That is sidecar's default (default_transaction_isolation
// and transaction_isolation say "repeatable read", where PostgreSQL's
// default is read committed: the SHOW answers what sidecar does).
//
// The levels a client asks for are honoured, never ignored:
//   - READ COMMITTED (and READ UNCOMMITTED, which PostgreSQL runs as read
//     committed): each statement of the transaction resolves its own
//     version, as each PostgreSQL statement takes its own snapshot;
//   - REPEATABLE READ: one version for the transaction;
//   - SERIALIZABLE: refused with 0A000 as PostgreSQL's hot standby refuses
//     it (sidecar serves as one: in_hot_standby is on).
//
// As in PostgreSQL, a transaction's level can change only before its
// first query (25001 after), SET TRANSACTION outside a transaction block
// warns 25P01 and changes nothing, and SET SESSION CHARACTERISTICS /
// default_transaction_isolation set the level of the transactions that
// follow.

// setTransactionIsolation is the setting name planSet gives SET
// TRANSACTION ISOLATION LEVEL (it warns outside a transaction block,
// where SET transaction_isolation does not).
const setTransactionIsolation = "set transaction isolation"

// isolationLevels are the values PostgreSQL accepts, in its hint's order.
var isolationLevels = []string{"serializable", "repeatable read", "read committed", "read uncommitted"}

// isolationSetName maps a SET TRANSACTION / SET SESSION CHARACTERISTICS
// statement naming an isolation level to the setting it sets and the
// level ("" when the statement names none).
func isolationSetName(vs *pg.VariableSetStmt) (name, level string) {
	for _, a := range vs.Args {
		de := a.GetDefElem()
		if de == nil || de.Defname != "transaction_isolation" {
			continue
		}
		if c := de.Arg.GetAConst(); c != nil && c.GetSval() != nil {
			level = c.GetSval().Sval
		}
	}
	if level == "" {
		return "", ""
	}
	if strings.EqualFold(vs.Name, "session characteristics") {
		return "default_transaction_isolation", level
	}
	return setTransactionIsolation, level
}

// beginIsolation is the isolation level a BEGIN / START TRANSACTION names
// in its options ("" none).
func beginIsolation(ts *pg.TransactionStmt) string {
	for _, o := range ts.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "transaction_isolation" {
			if c := de.Arg.GetAConst(); c != nil && c.GetSval() != nil {
				return c.GetSval().Sval
			}
		}
	}
	return ""
}

// isolationLevel validates a level as the setting name's value.
func isolationLevel(name, v string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(v))
	for _, k := range isolationLevels {
		if l == k {
			if k == "serializable" {
				return "", serializableRefused(name)
			}
			return k, nil
		}
	}
	if name == setTransactionIsolation {
		name = "transaction_isolation"
	}
	return "", errf(codeInvalidParam, -1, "invalid value for parameter \"%s\": \"%s\"", name, v).
		hint("Available values: " + strings.Join(isolationLevels, ", ") + ".")
}

// serializableRefused is PostgreSQL's hot standby's refusal of
// SERIALIZABLE (for the default, sidecar refuses the SET where a standby
// accepts it and fails every transaction after).
func serializableRefused(name string) error {
	if name == "default_transaction_isolation" {
		return errf(codeUnsupported, -1, "cannot use serializable mode in a hot standby").
			hint("You can use \"SET default_transaction_isolation = 'repeatable read'\" to change the default.")
	}
	return errf(codeUnsupported, -1, "cannot use serializable mode in a hot standby").hint("You can use REPEATABLE READ instead.")
}

// setIsolation runs SET [SESSION CHARACTERISTICS AS] TRANSACTION
// ISOLATION LEVEL, SET (or RESET) transaction_isolation and
// default_transaction_isolation.
func (s *session) setIsolation(name string, val *string) error {
	level := "repeatable read" // RESET default_transaction_isolation: sidecar's default
	if name != "default_transaction_isolation" {
		level = s.settings["default_transaction_isolation"]
	}
	if val != nil {
		var err error
		if level, err = isolationLevel(name, *val); err != nil {
			return err
		}
	}
	if name == "default_transaction_isolation" {
		s.settings[name] = level
		if s.tx == 'I' {
			s.settings["transaction_isolation"] = level
		}
		return nil
	}
	if s.tx == 'I' {
		// Each statement is its own transaction: nothing to change.
		if name == setTransactionIsolation {
			s.be.Send(&pgproto3.NoticeResponse{Severity: "WARNING", SeverityUnlocalized: "WARNING", Code: "25P01",
				Message: "SET TRANSACTION can only be used in transaction blocks"})
		}
		return nil
	}
	if level != s.settings["transaction_isolation"] && s.txSnapshot {
		return errf("25001", -1, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	}
	s.settings["transaction_isolation"] = level
	return nil
}

// readsPerStatement says whether the open transaction reads a version
// per statement (read committed) instead of one for the transaction.
func (s *session) readsPerStatement() bool {
	l := s.settings["transaction_isolation"]
	return l == "read committed" || l == "read uncommitted"
}

// startTx begins a transaction at the session's default level, or at
// level (BEGIN ISOLATION LEVEL …) when given.
func (s *session) startTx(level string) error {
	s.txSnapshot = false
	s.settings["transaction_isolation"] = s.settings["default_transaction_isolation"]
	if level == "" {
		return nil
	}
	return s.setIsolation("transaction_isolation", &level)
}

// endIsolation is the level after COMMIT or ROLLBACK: the default.
func (s *session) endIsolation() {
	s.txSnapshot = false
	s.settings["transaction_isolation"] = s.settings["default_transaction_isolation"]
}

// tookSnapshot records that a statement of the open transaction read
// (its level is fixed from then on, as PostgreSQL's after its first
// snapshot).
func (s *session) tookSnapshot(p *plan) {
	if s.tx == 'T' && (p.kind == "select" || p.kind == "declare" || p.kind == "fetch" || p.kind == "copy") {
		s.txSnapshot = true
	}
}
