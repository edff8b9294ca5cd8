// Package preflight checks, before the sidecar follows a PostgreSQL server,
// that the server and the configured role, tables, publication and slot can
// support it, and says for each problem exactly what to change.
//
// `sidecar check` prints the Report and exits 0 when it is Ready, 2 when not;
// `sidecar run` runs the same checks first and refuses to start on a Fail.
package preflight

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Params say what the sidecar will follow.
type Params struct {
	// URL is the connection URL or keyword/value string; it may hold a
	// password, which never appears in the Report.
	URL string
	// Tables are "schema.table" names (either part may be double-quoted;
	// a name without a schema is in public), or ["*"] for every table.
	Tables []string
	// Publication and Slot are the names the sidecar uses; "" skips their
	// check.
	Publication, Slot string
	// Known are the canonical names (schema.table) of the tables the
	// mirror already holds: a configured table that no longer exists but
	// is known was dropped after it was followed, and is a warning (its
	// history stays readable), not a failure.
	Known []string
	// OwnDaemon is the API address of this configuration's daemon when
	// it is running (sidecar check asks its /healthz): a sidecar
	// consuming the slot is then that daemon, which is expected, not a
	// conflict to resolve. Empty when none answered.
	OwnDaemon string
}

// Status is the outcome of one check.
type Status int

// Statuses, in increasing severity.
const (
	OK   Status = iota // nothing to do
	Warn               // works, but something deserves attention (not followed, at risk)
	Fail               // the sidecar cannot run until this is fixed
)

// String is the status as printed in text and JSON: "ok", "warn", "fail".
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// MarshalJSON encodes the status as its String.
func (s Status) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Check is the result of one check.
type Check struct {
	// Name identifies the check; stable, for scripts: "connection",
	// "server_version", "wal_level", "replication_slots", "wal_senders",
	// "replication_role", "replication_connection", "publication_privilege",
	// "table <schema.table>", "tables", "publication", "slot".
	Name   string
	Status Status
	// Detail says what was found, in one sentence.
	Detail string
	// Fix is the exact action to take (SQL, a setting) when Status is not OK.
	Fix string
	// Absent is set, to the table's canonical name, on the check of a
	// configured table that does not exist: `sidecar run` may judge it
	// again with Params.Known once it has opened its mirror.
	Absent string
}

// Report is the outcome of Run, in check order.
type Report struct {
	Checks []Check
	// ServerVersion is the server's server_version as it reports it
	// ("15.8 (Debian 15.8-1.pgdg120+1)"; "" when it could not be read):
	// the SQL front end advertises it, so clients choose the catalog
	// queries of the major the sidecar follows.
	ServerVersion string
}

// Ready reports whether no check failed: the sidecar can run.
func (r Report) Ready() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return false
		}
	}
	return true
}

// WriteText writes one line per check, "OK   name: detail" or
// "FAIL name: detail. Fix: action", then a summary line.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fails, warns := 0, 0
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s %s: %s", strings.ToUpper(c.Status.String()), c.Name, strings.TrimSuffix(c.Detail, "."))
		if c.Fix != "" && c.Status != OK {
			fmt.Fprintf(&b, ". Fix: %s", c.Fix)
		}
		b.WriteByte('\n')
		switch c.Status {
		case Fail:
			fails++
		case Warn:
			warns++
		}
	}
	switch {
	case fails > 0:
		fmt.Fprintf(&b, "not ready: %d check(s) failed, %d warning(s)\n", fails, warns)
	default:
		fmt.Fprintf(&b, "ready (%d warning(s))\n", warns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarshalJSON encodes the report as
//
//	{"ready": bool,
//	 "checks": [{"name": string, "status": "ok"|"warn"|"fail",
//	             "detail": string, "fix": string (omitted when empty)}, ...]}
//
// This shape is a stable contract: fields may be added, never renamed or
// removed.
func (r Report) MarshalJSON() ([]byte, error) {
	type check struct {
		Name   string `json:"name"`
		Status Status `json:"status"`
		Detail string `json:"detail"`
		Fix    string `json:"fix,omitempty"`
	}
	out := struct {
		Ready  bool    `json:"ready"`
		Checks []check `json:"checks"`
	}{Ready: r.Ready(), Checks: make([]check, 0, len(r.Checks))}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, check{c.Name, c.Status, c.Detail, c.Fix})
	}
	return json.Marshal(out)
}
