package sqlfront

import (
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The session's functions on sql/exec: current_user, session_user
// (CURRENT_USER, USER, CURRENT_ROLE, SESSION_USER bind to them),
// current_database (CURRENT_CATALOG), version, pg_is_in_recovery,
// pg_backend_pid and current_setting —
// the values the flat path answers (funcs.go) and the session's
// settings say (in_hot_standby is on: a mirror is read-only, as a
// standby).

// sessionFuncs are the functions sessionFunc answers.
var sessionFuncs = map[string]bool{"current_user": true, "session_user": true, "current_database": true, "version": true, "pg_is_in_recovery": true, "current_setting": true,
	"pg_backend_pid": true}

// sessionFunc is the session function name of no arguments.
func (c *vecCatalog) sessionFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	if name == "current_setting" {
		return c.currentSetting(args)
	}
	if len(args) != 0 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	var v types.Value
	t := lplan.T(types.Name)
	switch name {
	case "current_user", "session_user":
		v = c.pl.sess.user
	case "current_database":
		v = c.pl.sess.database
	case "version":
		v, t = "PostgreSQL "+c.pl.sess.settings["server_version"]+" on sidecar", lplan.T(types.Text) // as funcs.go: the advertised version
	case "pg_is_in_recovery":
		v, t = true, lplan.T(types.Bool)
	case "pg_backend_pid":
		// The process ID the session's BackendKeyData gave the client
		// (what a CancelRequest names), as PostgreSQL's is its backend's.
		v, t = int64(c.pl.sess.pid), lplan.T(types.Int4)
		c.sessionBound = true // another session's plan would answer this one's
	}
	return &lplan.ExtFunc{Result: t, NullOK: true, Eval: func([]types.Value) (types.Value, error) { return v, nil }}, nil
}

// currentSetting is current_setting(name [, missing_ok]): the value SHOW
// gives, read when the call runs (a simple query's statements are all
// planned before the first runs: SET …; SELECT current_setting(…)).
// Strict; an unknown name fails 42704 unless missing_ok, as PostgreSQL.
func (c *vecCatalog) currentSetting(args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 && len(args) != 2 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function current_setting with %d arguments does not exist", len(args))
	}
	ts := []lplan.Type{lplan.T(types.Text), lplan.T(types.Bool)}[:len(args)]
	sess := c.pl.sess
	c.sessionBound = true // it reads sess's settings: another session's plan would read this one's
	return &lplan.ExtFunc{Args: ts, Result: lplan.T(types.Text), Eval: func(v []types.Value) (types.Value, error) {
		name := v[0].(string)
		val, ok, err := sess.showSetting(strings.ToLower(name)) // pgcatalog_settings.go
		if err != nil {
			return nil, err
		}
		if !ok {
			if len(v) == 2 && v[1].(bool) {
				return nil, nil
			}
			return nil, errf(codeUndefinedObject, -1, "unrecognized configuration parameter \"%s\"", name)
		}
		return val, nil
	}}, nil
}
