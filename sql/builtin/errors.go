package builtin

import (
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/types"
)

// SQLSTATEs the library's errors carry (besides the type catalog's).
const (
	CodeUndefinedFunction   = "42883"
	CodeAmbiguousFunction   = "42725"
	CodeDatatypeMismatch    = "42804"
	CodeFeatureNotSupported = "0A000"
	CodeInvalidParameter    = "22023"
	CodeOutOfRange          = "22003"
	CodeDivisionByZero      = "22012"
	CodeInvalidPower        = "2201F" // invalid_argument_for_power_function
	CodeInvalidLog          = "2201E" // invalid_argument_for_logarithm
	CodeInvalidWidthBucket  = "2201G" // invalid_argument_for_width_bucket_function
	CodeSubstringError      = "22011" // substring_error
	CodeProgramLimit        = "54000" // program_limit_exceeded
	CodeNullNotAllowed      = "22004" // null_value_not_allowed
	CodeInvalidEscape       = "22025" // invalid_escape_sequence
	CodeDatetimeOverflow    = "22008" // datetime_field_overflow
	CodeInvalidDatetime     = "22007" // invalid_datetime_format
	CodeCharNotInRepertoire = "22021"
	CodeInvalidRegex        = "2201B" // invalid_regular_expression
)

// Error is an error with PostgreSQL's SQLSTATE, message, detail and hint.
type Error struct {
	Code    string
	Message string
	Detail  string
	Hint    string
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// unsupported is 0A000 naming what sidecar does not compute.
func unsupported(format string, args ...any) *Error {
	return &Error{Code: CodeFeatureNotSupported, Message: "sidecar does not support " + fmt.Sprintf(format, args...)}
}

// AsError gives err's SQLSTATE, message, detail and hint whether it is
// the library's or the type catalog's (ok=false for other errors).
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	var te *types.Error
	if errors.As(err, &te) {
		return &Error{Code: te.Code, Message: te.Message, Detail: te.Detail}, true
	}
	return nil, false
}

// outOfRange is PostgreSQL's "<type> out of range" (22003).
func outOfRange(t OID) *Error { return errorf(CodeOutOfRange, "%s out of range", types.NameOf(t)) }

var (
	errOverflow  = errorf(CodeOutOfRange, "value out of range: overflow")
	errUnderflow = errorf(CodeOutOfRange, "value out of range: underflow")
)
