// Package types is the one catalog of the PostgreSQL types the sidecar
// knows: for each type its pg_type facts, its text input and output
// functions, binary send/receive, comparison and hashing, the casts
// between types and the result types of operators and aggregates. Every
// other package (heap, rowenc, query, the SQL layers) takes its type facts
// from here; adding a column type means adding it here and to this
// package's tests.
//
// It is a leaf: it imports nothing of the sidecar's.
//
// # Catalog
//
//	t, ok := types.Lookup(types.Int4)       // *Type by OID
//	t, mod, err := types.Parse("numeric(12,2)") // a type name as SQL writes it
//	t.Name        // pg_type.typname: "int4"
//	t.SQLName     // format_type without modifier: "integer"
//	t.Format(mod) // format_type(oid, typmod): "numeric(12,2)"
//	t.Array, t.Elem // typarray / typelem
//	t.Category, t.Preferred // typcategory / typispreferred
//	t.Physical    // how the heap stores a column of the type (PhysText, PhysInt4, …)
//
// OIDs are the constants Bool, Int2, Int4, …; Lookup of an OID the catalog
// does not know gives ok=false: callers carry such values as their text and
// compare them only for equality (Unknown semantics).
//
// # Values
//
// A Value is the Go form of one non-NULL datum (NULL is nil):
//
//	bool                    bool
//	int2, int4, int8, oid   int64
//	float4, float8          float64 (a float4 holds a float32's value)
//	numeric                 *Decimal
//	text, varchar, bpchar, name, "char", json, jsonb, unknown   string
//	bytea                   []byte
//	date                    Date (days since 2000-01-01; ±infinity at the int32 bounds)
//	time                    Time (microseconds since midnight)
//	timetz                  TimeTZ
//	timestamp, timestamptz  Timestamp (microseconds since 2000-01-01 00:00 [UTC]; ±infinity at the int64 bounds)
//	interval                Interval
//	uuid                    UUID
//
// Text I/O is exactly PostgreSQL's input and output functions under the
// session settings the mirror pins (rowenc.SessionParams: TimeZone=UTC,
// DateStyle=ISO, IntervalStyle=postgres, extra_float_digits=3,
// bytea_output=hex):
//
//	v, err := types.In(types.Numeric, mod, " 1.5e3 ")  // numeric_in + typmod coercion
//	s := types.Out(types.Numeric, v)                    // numeric_out: "1500"
//	b := types.AppendOut(dst, oid, v)
//
// so Out(In(x)) is PostgreSQL's x::type::text. Input PostgreSQL accepts but
// the catalog does not read (rare date/time spellings) is refused with
// SQLSTATE 0A000 naming what is missing, never read differently.
//
// Binary format (what pgproto3 clients ask for with format code 1):
//
//	b, err := types.Send(oid, v) ;  v, err := types.Recv(oid, mod, b)
//
// Ordering and hashing follow the type's default btree / hash opclass
// (text bytewise, as COLLATE "C"; NaN above every number and equal to
// itself; numeric by value, so 1.5 = 1.50 and they hash alike):
//
//	types.Compare(oid, a, b) int ;  types.Hash(oid, v) uint64
//
// # Casts, operators, aggregates
//
//	types.CastContext(from, to)        // CastImplicit / CastAssignment / CastExplicit / CastNone, as pg_cast
//	types.Convert(v, from, to, mod)    // the cast itself, with PostgreSQL's errors
//	types.Neg, Add, Sub, Mul, Div, Mod // arithmetic with PostgreSQL's overflow, division and NaN rules
//	types.ArithResult(op, l, r)        // result type of l op r after the usual promotion
//	types.AggResult("sum", types.Int4) // Int8: PostgreSQL's aggregate result types, written once
//
// # Errors
//
// Every error is an *Error carrying PostgreSQL's SQLSTATE (22P02 invalid
// text, 22003 out of range, 22012 division by zero, 0A000 not supported,
// …) and PostgreSQL's message text.
package types
