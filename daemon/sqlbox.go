package daemon

import (
	"github.com/sidecar-dev/sidecar/console"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// routeSQLBox serves the web console's SQL box (POST /api/sql) on the SQL
// front end's own sessions: the same planner, read-only refusals, memory
// and connection limit as the SQL port, behind the API's token. With SQL
// off (sqlSrv nil) the route answers 503 saying so.
func (d *daemon) routeSQLBox(srv *server.Server, sqlSrv *sqlfront.Server) {
	var sessions console.Sessions
	if sqlSrv != nil {
		sessions = sqlSrv
	}
	srv.HandleAPI("POST /api/sql", console.SQLHandler(sessions, d.cfg.SQL.StatementTimeout))
}
