package daemon

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// sqlTempFileLimit caps one statement's temporary files (a spilling
// sort's runs): past it the statement fails with 53400, as PostgreSQL's
// temp_file_limit, so no query can fill the data directory's disk.
const sqlTempFileLimit = 8 << 30

// listenSQL binds the SQL front end (sql.listen; nil when off). An
// address already in use is logged and SQL is not served (replication
// goes on: the mirror is what must not stop); bad TLS or users files
// are fatal. model is the in-memory HEAD the front end reads at HEAD.
func (d *daemon) listenSQL(model *head.Model) (*sqlfront.Server, error) {
	c := d.cfg.SQL
	if c.Listen == "" {
		return nil, nil
	}
	opts := sqlfront.Options{Addr: c.Listen, MaxConnections: c.MaxConnections, StatementTimeout: c.StatementTimeout,
		MaxMessageSize: c.MaxMessageBytes(), Metrics: d.met.Registry, QueryMemory: d.mem.query, Source: &sqlfront.HistorySource{H: d.hist, M: d.m, Head: model, HeadLoading: d.head.loading}, Logger: d.log,
		ZoneOffsets: d.zoneOffsets, // timezone.go
		// A session starts at the server's TimeZone and DateStyle, as
		// a psql session of PostgreSQL does (sessiondefaults.go).
		SessionDefaults: d.sessionDefaults.get,
		// Clients choose their catalog queries by the version: the
		// followed server's, not one sidecar made up.
		ServerVersion: d.serverVersion}
	// Sorts past memory.query spill under the data directory (the
	// statement's files are removed when it ends; what a crash left is
	// removed here).
	opts.TempDir, opts.TempFileLimit = filepath.Join(d.cfg.DataDir, "tmp"), sqlTempFileLimit
	if err := os.RemoveAll(opts.TempDir); err != nil {
		return nil, fmt.Errorf("sql temporary directory: %w", err)
	}
	if err := os.MkdirAll(opts.TempDir, 0o700); err != nil {
		return nil, fmt.Errorf("sql temporary directory: %w", err)
	}
	if c.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("sql.tls_cert/sql.tls_key: %w", err)
		}
		opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if c.UsersFile != "" {
		users, err := sqlfront.LoadUsers(c.UsersFile)
		if err != nil {
			return nil, err
		}
		opts.Users = users
	}
	srv, err := sqlfront.Listen(opts)
	if errors.Is(err, syscall.EADDRINUSE) {
		d.log.Error("SQL front end not started: its address is in use; set sql.listen to another address (or \"\" to turn it off)", "sql_listen", c.Listen, "err", err)
		return nil, nil
	}
	return srv, err
}
