package sqlfront

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/sidecar-dev/sidecar/mirror"
)

// SQLSTATE codes the front end answers with.
const (
	codeSyntax           = "42601"
	codeUndefinedTable   = "42P01"
	codeUndefinedColumn  = "42703"
	codeUndefinedFunc    = "42883"
	codeAmbiguousColumn  = "42702"
	codeDatatype         = "42804"
	codeGrouping         = "42803"
	codeIndetermParam    = "42P18"
	codeUnsupported      = "0A000"
	codeReadOnly         = "25006"
	codeInFailedTx       = "25P02"
	codeNoActiveTx       = "25P01"
	codeActiveTx         = "25001"
	codeInvalidSavepoint = "3B001"
	codeInvalidParam     = "22023"
	codeInvalidText      = "22P02"
	codeOutOfRange       = "22003"
	codeDivByZero        = "22012"
	codeCanceled         = "57014"
	codeTooMany          = "53300"
	codeAuthFailed       = "28P01"
	codeInvalidAuth      = "28000"
	codeProtocol         = "08P01"
	codeInternal         = "XX000"
	codeUndefinedObject  = "42704"
	codeDupPrepared      = "42P05"
	codeNoPrepared       = "26000"
	codeNoCursor         = "34000"
	codeInvalidCount     = "2201W"
	codeInvalidOffset    = "2201X"
)

// Error is an error with a SQLSTATE, sent to the client as an
// ErrorResponse. Pos is a 0-based byte offset into the statement text,
// -1 when unknown; it is reported as PostgreSQL does, 1-based in
// characters.
type Error struct {
	Code, Msg, Detail, Hint string
	Pos                     int
}

func (e *Error) Error() string { return e.Msg }

func errf(code string, pos int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Pos: pos}
}

func (e *Error) hint(h string) *Error { e.Hint = h; return e }

// unsupported is the 0A000 error naming construct, with a hint of what
// the front end supports.
func unsupported(pos int, construct string) *Error {
	return &Error{Code: codeUnsupported, Pos: pos,
		Msg: fmt.Sprintf("%s is not supported by sidecar's SQL front end", construct),
		Hint: "sidecar answers SELECT over followed tables and views (joins, subqueries, WITH, set operations, " +
			"aggregates, windows; FROM t AS OF 'ref') exactly as PostgreSQL would, and refuses what it cannot answer " +
			"identically; the README's SQL section lists what is refused."}
}

// toError turns any error into an Error (internal errors keep their
// message under XX000).
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if corruptData(err) {
		return &Error{Code: codeDataCorrupted, Msg: err.Error(), Pos: -1} // corruptpage.go
	}
	// A version of a table inside a resync window: the mirror holds no
	// state of it there (55000, named by the error).
	var nc *mirror.NotCopiedYetError
	if errors.As(err, &nc) {
		return notCopiedYet(nc)
	}
	var rw *mirror.ResyncWindowError
	if errors.As(err, &rw) {
		return &Error{Code: rw.SQLState(), Msg: err.Error(), Pos: -1,
			Hint: "Read the table AS OF a version before the resync, or at or after the version its copy landed at."}
	}
	return &Error{Code: codeInternal, Msg: err.Error(), Pos: -1}
}

// response renders e as PostgreSQL does for query (positions in
// characters, 1-based).
func (e *Error) response(query string) *pgproto3.ErrorResponse {
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: e.Code, Message: e.Msg, Detail: e.Detail, Hint: e.Hint}
	if e.Pos >= 0 && query != "" {
		p := e.Pos
		if p > len(query) {
			p = len(query)
		}
		r.Position = int32(utf8.RuneCountInString(query[:p]) + 1)
	}
	return r
}

// notCopiedYet is the 55000 refusal of a table read at a version before
// the mirror's copy of it (mirror.NotCopiedYetError).
func notCopiedYet(nc *mirror.NotCopiedYetError) *Error {
	return &Error{Code: nc.SQLState(), Msg: nc.Error(), Pos: -1,
		Hint: "Read the table AS OF a version at or after its copy: `sidecar log` lists the versions."}
}
