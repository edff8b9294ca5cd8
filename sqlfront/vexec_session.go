package sqlfront

import (
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The session's functions on sql/exec: current_user, session_user
// (CURRENT_USER, USER, CURRENT_ROLE, SESSION_USER bind to them),
// current_database (CURRENT_CATALOG), version and pg_is_in_recovery —
// the values the flat path answers (funcs.go) and the session's
// settings say (in_hot_standby is on: a mirror is read-only, as a
// standby).

// sessionFuncs are the functions sessionFunc answers.
var sessionFuncs = map[string]bool{"current_user": true, "session_user": true, "current_database": true, "version": true, "pg_is_in_recovery": true}

// sessionFunc is the session function name of no arguments.
func (c *vecCatalog) sessionFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
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
	}
	return &lplan.ExtFunc{Result: t, NullOK: true, Eval: func([]types.Value) (types.Value, error) { return v, nil }}, nil
}
