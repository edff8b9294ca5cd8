package types

import "fmt"

// SQLSTATEs the catalog's errors carry.
const (
	CodeInvalidText     = "22P02" // invalid_text_representation
	CodeOutOfRange      = "22003" // numeric_value_out_of_range
	CodeDivByZero       = "22012" // division_by_zero
	CodeStringTooLong   = "22001" // string_data_right_truncation
	CodeDatetimeField   = "22008" // datetime_field_overflow
	CodeDatetimeFormat  = "22007" // invalid_datetime_format
	CodeInvalidParam    = "22023" // invalid_parameter_value
	CodeCannotCoerce    = "42846" // cannot_coerce
	CodeUndefinedFunc   = "42883" // undefined_function
	CodeUndefinedObject = "42704" // undefined_object
	CodeSyntax          = "42601" // syntax_error
	CodeUnsupported     = "0A000" // feature_not_supported
	CodeCharNotInRep    = "22021" // character_not_in_repertoire
	CodeInvalidBinary   = "22P03" // invalid_binary_representation
	CodeInvalidEscape   = "22025" // invalid_escape_sequence
)

// Error is an error with PostgreSQL's SQLSTATE, message and the
// optional DETAIL and HINT lines the client is sent with it.
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

// syntaxErr is PostgreSQL's "invalid input syntax for type X" error.
func syntaxErr(oid OID, text string) *Error {
	return errorf(CodeInvalidText, "invalid input syntax for type %s: \"%s\"", NameOf(oid), text)
}

// rangeErr is PostgreSQL's `value "x" is out of range for type X` error.
func rangeErr(oid OID, text string) *Error {
	return errorf(CodeOutOfRange, "value \"%s\" is out of range for type %s", text, NameOf(oid))
}

// Detail is PostgreSQL's DETAIL line, when the error has one.
func (e *Error) detail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}
