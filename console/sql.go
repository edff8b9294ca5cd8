package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The console's SQL box: POST /api/sql runs a query text on a session of
// the daemon's own SQL front end (the SQL port's planner and executor,
// read-only by construction: writes and DDL are refused with 25006 there)
// at HEAD or AS OF a version, and answers its rows as JSON. A browser
// must not be able to take the daemon down through it, so every answer
// is bounded: a statement_timeout, a row cap and a byte cap (past a cap
// the rest is not read: the session is closed, which cancels the
// statement), and a hard deadline on the whole request that closes the
// session even if the query text changed its statement_timeout.

// Sessions opens in-process sessions of the SQL front end
// (sqlfront.Server.Local).
type Sessions interface {
	Local(ctx context.Context, params map[string]string) (conn net.Conn, wait func())
}

// SQLRequest is the body of POST /api/sql.
type SQLRequest struct {
	// Query is the SQL text (one statement, or several separated by
	// semicolons, run as PostgreSQL's simple query protocol runs them).
	Query string `json:"query"`
	// AsOf is the version read: any ref the SQL port takes for
	// sidecar.as_of (HEAD, HEAD~N, an LSN, @time, a tag or a branch); ""
	// is HEAD. A table's own `AS OF 'ref'` in the text still wins.
	AsOf string `json:"as_of,omitempty"`
	// MaxRows caps the rows answered over all result sets (0:
	// DefaultSQLRows; at most MaxSQLRows).
	MaxRows int `json:"max_rows,omitempty"`
}

// SQLResponse is the answer of POST /api/sql: the result sets of the
// statements that ran, then the error that stopped them, if any.
type SQLResponse struct {
	AsOf    string      `json:"as_of"` // as asked ("" = HEAD)
	Results []SQLResult `json:"results"`
	Error   *SQLError   `json:"error,omitempty"`
	// Truncated says a cap (rows or bytes) was reached: the last result
	// set holds what came before it; the rest was not read.
	Truncated bool `json:"truncated,omitempty"`
	// Limits are the caps the answer was read under.
	MaxRows        int     `json:"max_rows"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

// SQLResult is one statement's result: its columns and rows (PostgreSQL's
// text output, null as null) and its command tag ("SELECT 3").
type SQLResult struct {
	Columns []SQLColumn `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows,omitempty"`
	Command string      `json:"command,omitempty"`
}

// SQLColumn is an output column.
type SQLColumn struct {
	Name    string `json:"name"`
	TypeOID uint32 `json:"type_oid"`
}

// SQLError is the error a statement ended with, as PostgreSQL reports it.
type SQLError struct {
	Severity string `json:"severity"`
	Code     string `json:"code"` // SQLSTATE
	Message  string `json:"message"`
	Detail   string `json:"detail,omitempty"`
	Hint     string `json:"hint,omitempty"`
	Position int32  `json:"position,omitempty"` // 1-based character in the query text
}

// The SQL box's caps.
const (
	DefaultSQLRows = 1000
	MaxSQLRows     = 10000
	// MaxSQLBytes bounds the answer's cell text (the JSON is somewhat
	// larger), whatever the row count.
	MaxSQLBytes = 16 << 20
	// MaxSQLTimeout bounds a statement; a smaller sql.statement_timeout
	// applies as set.
	MaxSQLTimeout = 30 * time.Second
	// maxSQLText bounds the query text.
	maxSQLText = 1 << 20
)

// SQLHandler serves POST /api/sql on sessions (nil: the SQL front end is
// off, and the box says so). statementTimeout is sql.statement_timeout
// (0: none); the box uses it when smaller than MaxSQLTimeout.
func SQLHandler(sessions Sessions, statementTimeout time.Duration) http.HandlerFunc {
	timeout := MaxSQLTimeout
	if statementTimeout > 0 && statementTimeout < timeout {
		timeout = statementTimeout
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var req SQLRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, maxSQLText+4096))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("sql: the body is not a SQL request: %w", err))
			return
		}
		if req.Query == "" {
			writeError(w, http.StatusBadRequest, errors.New("sql: query is empty"))
			return
		}
		if sessions == nil {
			writeError(w, http.StatusServiceUnavailable, errors.New("sql: the SQL front end is off (sql.listen is empty); the SQL box runs on it"))
			return
		}
		maxRows := req.MaxRows
		if maxRows <= 0 {
			maxRows = DefaultSQLRows
		}
		maxRows = min(maxRows, MaxSQLRows)
		resp := runSQL(r.Context(), sessions, req, maxRows, timeout)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(resp)
	}
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

// runSQL runs req on a fresh local session and reads its answer up to
// the caps. The session is closed when it returns.
func runSQL(ctx context.Context, sessions Sessions, req SQLRequest, maxRows int, timeout time.Duration) *SQLResponse {
	start := time.Now()
	resp := &SQLResponse{AsOf: req.AsOf, Results: []SQLResult{}, MaxRows: maxRows, TimeoutSeconds: timeout.Seconds()}
	// The whole request's deadline: a statement_timeout the query text
	// turned off (SET statement_timeout = 0) does not outlive it.
	ctx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	params := map[string]string{"user": "console", "database": "console", "application_name": "sidecar console",
		"options": "-c statement_timeout=" + strconv.FormatInt(timeout.Milliseconds(), 10)}
	if req.AsOf != "" {
		params["sidecar.as_of"] = req.AsOf
	}
	conn, wait := sessions.Local(ctx, params)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer func() {
		stop()
		conn.Close()
		wait()
		resp.ElapsedSeconds = time.Since(start).Seconds()
	}()
	fe := pgproto3.NewFrontend(conn, conn)
	fe.SetMaxBodyLen(MaxSQLBytes + 1<<20)
	fail := func(err error) *SQLResponse {
		if ctx.Err() != nil {
			resp.Error = &SQLError{Severity: "ERROR", Code: "57014", Message: fmt.Sprintf("canceling statement: the SQL box's time limit (%s) passed", timeout+5*time.Second)}
		} else if resp.Error == nil {
			resp.Error = &SQLError{Severity: "ERROR", Code: "08006", Message: "sql: the session ended: " + err.Error()}
		}
		return resp
	}
	// The greeting: ParameterStatus… then ReadyForQuery, or FATAL (a
	// refused as_of).
	for ready := false; !ready; {
		msg, err := fe.Receive()
		if err != nil {
			return fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			resp.Error = sqlError(m)
			return resp
		case *pgproto3.ReadyForQuery:
			ready = true
		}
	}
	fe.Send(&pgproto3.Query{String: req.Query})
	if err := fe.Flush(); err != nil {
		return fail(err)
	}
	var cur *SQLResult
	rows, bytes := 0, 0
	flush := func() {
		if cur != nil {
			resp.Results = append(resp.Results, *cur)
			cur = nil
		}
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			flush()
			return fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			flush()
			cur = &SQLResult{Columns: make([]SQLColumn, len(m.Fields)), Rows: [][]*string{}}
			for i, f := range m.Fields {
				cur.Columns[i] = SQLColumn{Name: string(f.Name), TypeOID: f.DataTypeOID}
			}
		case *pgproto3.DataRow:
			if cur == nil {
				cur = &SQLResult{Rows: [][]*string{}}
			}
			row := make([]*string, len(m.Values))
			for i, v := range m.Values {
				if v != nil {
					s := string(v) // copied: the frontend reuses its buffer
					row[i] = &s
					bytes += len(v)
				}
			}
			rows++
			if rows > maxRows || bytes > MaxSQLBytes {
				// The cap: stop reading; closing the session cancels
				// the statement.
				resp.Truncated = true
				flush()
				return resp
			}
			cur.Rows = append(cur.Rows, row)
		case *pgproto3.CommandComplete:
			if cur == nil {
				cur = &SQLResult{}
			}
			cur.Command = string(m.CommandTag)
			flush()
		case *pgproto3.ErrorResponse:
			flush()
			resp.Error = sqlError(m)
		case *pgproto3.ReadyForQuery:
			flush()
			return resp
		}
	}
}

func sqlError(m *pgproto3.ErrorResponse) *SQLError {
	return &SQLError{Severity: m.Severity, Code: m.Code, Message: m.Message, Detail: m.Detail, Hint: m.Hint, Position: m.Position}
}
