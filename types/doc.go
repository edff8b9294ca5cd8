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
//	numeric                 *Decimal (exact; NaN and ±Infinity)
//	text, varchar, bpchar, name, "char", json, unknown   string
//	jsonb                   string (its normalized output text)
//	bytea                   []byte
//	date                    DateVal (days since 2000-01-01; ±infinity at the int32 bounds)
//	time                    TimeVal (microseconds since midnight)
//	timetz                  TimeTZVal
//	timestamp, timestamptz  TimestampVal (microseconds since 2000-01-01 00:00 [UTC]; ±infinity at the int64 bounds)
//	interval                IntervalVal
//	uuid                    UUIDVal
//	inet, cidr              InetVal (family, mask length, address; inet.go)
//	macaddr, macaddr8       MacaddrVal, Macaddr8Val (macaddr.go)
//	arrays (int4[], text[], …) *Array (one dimension, lower bound 1; '{}' has none)
//
// Text I/O is PostgreSQL's input and output functions under the session
// settings the mirror pins (rowenc.SessionParams: TimeZone=UTC,
// DateStyle=ISO, IntervalStyle=postgres, extra_float_digits=3,
// bytea_output=hex):
//
//	v, err := types.In(types.Numeric, mod, " 1.5e3 ")  // numeric_in + typmod coercion
//	s := types.Out(types.Numeric, v)                    // numeric_out: "1500"
//	b := types.AppendOut(dst, oid, v)
//	v, err = types.ApplyMod(oid, mod, v, explicit)      // varchar(n), numeric(p,s), timestamp(p) coercion
//
// so Out(In(x)) is PostgreSQL's output for 'x'::type. Input PostgreSQL
// accepts but the catalog does not read (non-ISO date/time spellings,
// ISO 8601 intervals, relative words like 'now') is refused with SQLSTATE
// 0A000 naming what is missing, never read differently.
//
// Binary format (what pgproto3 clients ask for with format code 1),
// checked byte for byte against PostgreSQL's send functions:
//
//	b, err := types.Send(oid, v) ;  v, err := types.Recv(oid, mod, b)
//
// Ordering and hashing follow the type's default btree / hash opclass
// (text bytewise, as COLLATE "C"; bpchar without trailing blanks; NaN
// above every number and equal to itself; numeric by value, so 1.5 = 1.50
// and they hash alike). Orderable says which types Compare orders (not
// json, jsonb):
//
//	types.Compare(oid, a, b) int ;  types.Hash(seed, oid, v) uint64 ;  types.Orderable(oid)
//
// # Casts, operators, aggregates
//
//	types.CastContext(from, to)        // CastImplicit / CastAssignment / CastExplicit / CastNone, as pg_cast + I/O casts
//	types.Convert(v, from, to, mod)    // the explicit cast itself (true::text is "true"), with PostgreSQL's errors
//	types.ArithResult(op, l, r)        // result type of l op r (int2+int4 → int4, float4+numeric → float8, …)
//	types.Arith(op, t, a, b)           // + - * / % in type t: overflow 22003, division by zero 22012, NaN / 0 = NaN, float4 in float32
//	types.Neg(t, v)                    // unary minus (-int4 min is 22003)
//	types.AggResult("sum", types.Int4) // Int8: PostgreSQL's aggregate result types, written once
//	types.Float4Sum(acc, x)            // sum(real)'s step (float4pl)
//
// # Majors
//
// Where PostgreSQL 14–18 differ (integer literal forms, "char", numeric
// typmods, bytea casts), Dialect{Version: server_version_num} gives the
// followed server's behaviour; the package-level functions are the
// newest major's.
//
// # Errors
//
// Every error is an *Error carrying PostgreSQL's SQLSTATE (22P02 invalid
// text, 22003 out of range, 22012 division by zero, 22008 date/time
// field, 0A000 not supported, …) and PostgreSQL's message text.
package types
