package plan

import "fmt"

// SQLSTATE codes the planner reports.
const (
	CodeSyntax              = "42601"
	CodeUndefinedTable      = "42P01"
	CodeUndefinedColumn     = "42703"
	CodeAmbiguousColumn     = "42702"
	CodeDuplicateAlias      = "42712"
	CodeGrouping            = "42803"
	CodeUndefinedFunction   = "42883"
	CodeDatatypeMismatch    = "42804"
	CodeWrongObjectType     = "42809"
	CodeFeatureNotSupported = "0A000"
	CodeInvalidParameter    = "22023"
)

// Error is a planning error with PostgreSQL's SQLSTATE.
type Error struct {
	Code     string
	Message  string
	Detail   string // PostgreSQL's DETAIL line, if any
	Hint     string // PostgreSQL's HINT line, if any
	Position int32  // 1-based character position in the statement; 0: none
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// at sets the error's position (a parse node's 0-based location).
func (e *Error) at(loc int32) *Error {
	if e.Position == 0 && loc >= 0 {
		e.Position = loc + 1
	}
	return e
}

// unsupported is 0A000 naming the construct.
func unsupported(construct string, loc int32) *Error {
	return errorf(CodeFeatureNotSupported, "not supported yet: %s", construct).at(loc)
}
