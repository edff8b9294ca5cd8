package sqlfront

import (
	"context"
	"maps"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/types"
)

// Settings belong to transactions, as PostgreSQL's GUCs do:
//
//   - a SET made in a transaction that rolls back is undone: an explicit
//     ROLLBACK (or COMMIT of a failed one), the implicit transaction of a
//     simple query holding several statements when one of them fails,
//     and ROLLBACK TO a savepoint made before it;
//   - SET LOCAL lasts until the transaction ends (outside a transaction
//     block: WARNING 25P01 and no lasting effect); a plain SET of the same
//     name later in the transaction makes its value the session's again;
//   - SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO [SAVEPOINT] mark and
//     restore the settings and drop the cursors declared after the mark
//     (nothing else is written on a read-only mirror);
//   - DISCARD ALL resets every setting, closes cursors and prepared
//     statements (what a pooler sends between clients).
//
// Before, a SET stayed after ROLLBACK: `BEGIN; SET TimeZone …; <error>;
// ROLLBACK` left the session printing timestamps in that zone, and DISCARD
// ALL kept the previous client's settings.

// settingsState is every session field a SET changes.
type settingsState struct {
	settings    map[string]string
	zone        *types.Zone
	zoneUnknown string
	timeout     *time.Duration
	asOf        string
}

// savepoint is a SAVEPOINT's name and what ROLLBACK TO restores.
type savepoint struct {
	name    string
	state   settingsState
	local   map[string]settingsState
	cursors map[string]bool // cursors open at the mark
}

// reportedSettings are those PostgreSQL reports in ParameterStatus when
// they change (the ones the session reports on SET).
var reportedSettings = []struct{ key, name string }{
	{"application_name", "application_name"},
	{"timezone", "TimeZone"},
	{"standard_conforming_strings", "standard_conforming_strings"},
}

func (s *session) saveSettings() settingsState {
	return settingsState{settings: maps.Clone(s.settings), zone: s.zone, zoneUnknown: s.zoneUnknown, timeout: s.timeout, asOf: s.asOf}
}

// restoreSetting puts back one setting of st (and what it derives).
func (s *session) restoreSetting(st settingsState, name string) {
	if v, ok := st.settings[name]; ok {
		s.settings[name] = v
	} else {
		delete(s.settings, name)
	}
	switch name {
	case "timezone":
		s.zone, s.zoneUnknown = st.zone, st.zoneUnknown
	case "statement_timeout":
		s.timeout = st.timeout
	case "sidecar.as_of":
		s.asOf = st.asOf
	}
}

// restoreAllSettings puts back every setting of st but the open
// transaction's isolation level (fixed for the transaction).
func (s *session) restoreAllSettings(st settingsState) {
	iso, ok := s.settings["transaction_isolation"]
	s.settings = maps.Clone(st.settings)
	s.zone, s.zoneUnknown, s.timeout, s.asOf = st.zone, st.zoneUnknown, st.timeout, st.asOf
	if ok {
		s.settings["transaction_isolation"] = iso
	}
}

// reportChanged sends ParameterStatus for each reported setting whose
// value differs from before.
func (s *session) reportChanged(before map[string]string) {
	for _, r := range reportedSettings {
		if v := s.settings[r.key]; v != before[r.key] {
			s.be.Send(&pgproto3.ParameterStatus{Name: r.name, Value: v})
		}
	}
}

// txBegin starts a transaction's settings mark (BEGIN, or the implicit
// transaction of a multi-statement simple query). A BEGIN inside an
// implicit transaction keeps its mark: PostgreSQL turns the implicit
// block into the explicit one.
func (s *session) txBegin(implicit bool) {
	if s.txMark == nil {
		st := s.saveSettings()
		s.txMark, s.txLocal = &st, map[string]settingsState{}
	}
	s.implicitTx = implicit
}

// txEnd ends the transaction's settings: commit keeps the SETs and undoes
// the SET LOCALs, else everything goes back to the mark.
func (s *session) txEnd(commit bool) {
	if s.txMark == nil {
		return
	}
	before := maps.Clone(s.settings)
	if commit {
		for name, st := range s.txLocal {
			s.restoreSetting(st, name)
		}
	} else {
		s.restoreAllSettings(*s.txMark)
	}
	s.txMark, s.txLocal, s.savepoints, s.implicitTx = nil, nil, nil, false
	s.reportChanged(before)
}

// inTxBlock says whether a transaction (explicit or implicit) is open.
func (s *session) inTxBlock() bool { return s.tx != 'I' || s.implicitTx }

// runSet runs SET/RESET with its transaction bookkeeping.
func (s *session) runSet(ctx context.Context, p *plan) error {
	if p.setLocal && !s.inTxBlock() {
		// PostgreSQL warns and runs it in a transaction that ends at once.
		s.be.Send(&pgproto3.NoticeResponse{Severity: "WARNING", SeverityUnlocalized: "WARNING", Code: "25P01", Message: "SET LOCAL can only be used in transaction blocks"})
		st := s.saveSettings()
		if err := s.set(ctx, p.setName, p.setVal); err != nil {
			return err
		}
		s.restoreSetting(st, p.setName)
		return nil
	}
	if s.txLocal != nil {
		if p.setLocal {
			if _, ok := s.txLocal[p.setName]; !ok {
				s.txLocal[p.setName] = s.saveSettings()
			}
		} else if p.setName == "all" {
			clear(s.txLocal)
		} else {
			delete(s.txLocal, p.setName)
		}
	}
	return s.set(ctx, p.setName, p.setVal)
}

// runSavepoint runs SAVEPOINT, RELEASE and ROLLBACK TO.
func (s *session) runSavepoint(p *plan) error {
	if s.tx == 'I' {
		what := map[string]string{"savepoint": "SAVEPOINT", "release": "RELEASE SAVEPOINT", "rollback_to": "ROLLBACK TO SAVEPOINT"}[p.kind]
		return errf(codeNoActiveTx, -1, "%s can only be used in transaction blocks", what)
	}
	if p.kind == "savepoint" {
		sp := savepoint{name: p.setName, state: s.saveSettings(), local: maps.Clone(s.txLocal), cursors: map[string]bool{}}
		for n := range s.cursors {
			sp.cursors[n] = true
		}
		s.savepoints = append(s.savepoints, sp)
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	}
	i := len(s.savepoints) - 1
	for i >= 0 && s.savepoints[i].name != p.setName {
		i--
	}
	if i < 0 {
		return errf(codeInvalidSavepoint, -1, "savepoint \"%s\" does not exist", p.setName)
	}
	if p.kind == "release" {
		s.savepoints = s.savepoints[:i]
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	}
	sp := s.savepoints[i]
	s.savepoints = s.savepoints[:i+1] // ROLLBACK TO keeps the savepoint
	before := maps.Clone(s.settings)
	s.restoreAllSettings(sp.state)
	s.txLocal = maps.Clone(sp.local)
	if s.txLocal == nil {
		s.txLocal = map[string]settingsState{}
	}
	for name, c := range s.cursors {
		if !sp.cursors[name] {
			c.drop()
			delete(s.cursors, name)
		}
	}
	s.tx = 'T'
	s.reportChanged(before)
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
	return nil
}

// discardAll is DISCARD ALL: RESET ALL, every cursor and prepared
// statement closed (PostgreSQL refuses it in a transaction block).
func (s *session) discardAll(ctx context.Context) error {
	if s.tx != 'I' || s.implicitTx {
		return errf(codeActiveTx, -1, "DISCARD ALL cannot run inside a transaction block")
	}
	before := maps.Clone(s.settings)
	if err := s.set(ctx, "all", nil); err != nil {
		return err
	}
	s.closeCursors()
	s.dropAllPrepared() // prepare_sql.go
	s.reportChanged(before)
	return nil
}
