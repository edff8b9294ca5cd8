package builtin

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// OID is a pg_type.oid (the type catalog's).
type OID = types.OID

// Pseudo-types a signature may name (pg_type's OIDs).
const (
	Any        OID = 2276 // "any": any type, passed as it is
	AnyElement OID = 2283 // anyelement: any type; the result may be it
)

// Volatility is pg_proc.provolatile.
type Volatility byte

// The volatility classes.
const (
	Immutable Volatility = 'i'
	Stable    Volatility = 's'
	Volatile  Volatility = 'v'
)

// Impl computes a function's value. args are of the types in params (the
// call's resolved parameter types, one per argument, variadics expanded;
// for "any" the argument's own type). A strict function never sees a nil
// argument.
type Impl func(c *Context, args []types.Value, params []OID) (types.Value, error)

// Func is one overload: pg_proc's facts and its implementation.
type Func struct {
	Name       string
	Args       []OID // declared argument types; with Variadic the last repeats
	Variadic   bool
	Result     OID // AnyElement: the type the anyelement argument has
	Strict     bool
	Volatility Volatility
	impl       Impl
}

// Signature is the overload as PostgreSQL prints it: name(type, …).
func (f *Func) Signature() string {
	names := make([]string, len(f.Args))
	for i, a := range f.Args {
		names[i] = typeName(a)
		if f.Variadic && i == len(f.Args)-1 {
			names[i] = "VARIADIC " + names[i] + "[]"
		}
	}
	return f.Name + "(" + strings.Join(names, ", ") + ")"
}

// Registry is the function library: name → overloads. It is immutable
// once built, so one Registry may serve every session.
type Registry struct {
	funcs map[string][]*Func
	// ops and prefix map binary and prefix operators to the functions
	// (pg_operator.oprcode) whose overloads implement them.
	ops, prefix map[string][]string
	// missing are functions PostgreSQL has and the library does not:
	// calls are refused with 0A000, not 42883 (which would say
	// PostgreSQL has no such function either).
	missing map[string]bool
	// partialOps are operators the library has for some types while
	// PostgreSQL has them for others too (@> on arrays, ranges, …): no
	// overload matching is 0A000 there, not 42883.
	partialOps map[string]bool
	// partialFuncs are functions the library has some overloads of
	// while PostgreSQL has others too (width_bucket(anyelement,
	// anyarray)): no overload matching is 0A000 there, not 42883.
	partialFuncs map[string]bool
	// version is the server_version_num whose behaviour the functions
	// follow where majors differ (dialect.go).
	version int
	// zones are the tz database zones AT TIME ZONE and the zone
	// arguments have read (tz.go).
	zones zoneCache
	// sessAbbrevs are the abbreviations of the session zones AT TIME
	// ZONE has been called under, from PostgreSQL 18 (tz18.go).
	sessAbbrevs abbrevCache
}

// New builds the library for a server whose PostgreSQL major is not
// known: where the majors answer differently it refuses (dialect.go).
func New() *Registry { return build(unknownMajor) }

// build builds the library for server_version_num version.
func build(version int) *Registry {
	r := &Registry{funcs: map[string][]*Func{}, ops: map[string][]string{}, prefix: map[string][]string{}, missing: map[string]bool{}, partialOps: map[string]bool{}, partialFuncs: map[string]bool{"width_bucket": true}, version: version}
	for _, n := range strings.Fields(postgresOnly) {
		r.missing[n] = true
	}
	r.addMath()
	r.addStrings()
	r.addDateTime()
	r.addTimeZone() // tz.go
	if yes, known := r.atLeast(170000); yes || !known {
		r.partialFuncs["random"] = true // random(min, max), 17's, is not the library's: 0A000, not 42883
	}
	r.addRegex()
	r.addJSON()
	r.addInterval()    // interval.go
	r.addUUID()        // uuid.go
	r.addBytea()       // bytea.go
	r.addHyperbolic()  // hyperbolic.go
	r.addUnistr()      // unistr.go
	r.addConvert()     // convert.go
	r.addStringArray() // strarray.go
	r.addFactorial()   // factorial.go
	r.addNumNulls()    // numnulls.go
	r.addJSONObject()  // jsonobject.go
	r.addInet()        // inet.go
	r.addMacaddr()     // inet.go
	r.addMoney()       // moneybit.go
	r.addBit()         // moneybit.go
	r.addSleep()       // sleep.go
	r.addRanges()      // ranges.go
	r.addNumScale()    // numscale.go
	r.gateBySince()    // dialect.go: 15's functions on 14
	return r
}

// Names lists the functions the registry has, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.funcs))
	for n := range r.funcs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Has says whether name is a function of the registry.
func (r *Registry) Has(name string) bool { return len(r.funcs[name]) > 0 }

// Overloads lists name's overloads.
func (r *Registry) Overloads(name string) []*Func { return r.funcs[name] }

// HasOperator says whether the registry implements operator op (binary,
// or prefix when prefix is set).
func (r *Registry) HasOperator(op string, prefix bool) bool {
	if prefix {
		return len(r.prefix[op]) > 0
	}
	return len(r.ops[op]) > 0
}

// ResolveOperator resolves an operator call as PostgreSQL's
// oper_select_candidate does (the same rules as functions) among the
// overloads of the functions implementing it; 42883 names the operator.
func (r *Registry) ResolveOperator(op string, args []OID) (*Call, error) {
	names := r.ops[op]
	if len(args) == 1 {
		names = r.prefix[op]
	}
	var fs []*Func
	for _, n := range names {
		fs = append(fs, r.funcs[n]...)
	}
	c, err := resolveAmong(fs, op, args)
	if e, ok := err.(*Error); ok && e.Code == CodeUndefinedFunction {
		msg := op + " " + typeName(args[0])
		if len(args) == 2 {
			msg = typeName(args[0]) + " " + op + " " + typeName(args[1])
		}
		if r.partialOps[op] {
			return nil, &Error{Code: CodeFeatureNotSupported, Message: "sidecar does not support the operator " + msg}
		}
		return nil, &Error{Code: CodeUndefinedFunction, Message: "operator does not exist: " + msg,
			Hint: "No operator matches the given name and argument types. You might need to add explicit type casts."}
	}
	return c, err
}

// def registers an overload: strict and immutable unless changed on the
// returned Func.
func (r *Registry) def(name string, result OID, impl Impl, args ...OID) *Func {
	f := &Func{Name: name, Args: args, Result: result, Strict: true, Volatility: Immutable, impl: impl}
	r.funcs[name] = append(r.funcs[name], f)
	return f
}

// alias registers every overload of name under another name too.
func (r *Registry) alias(name, to string) {
	for _, f := range r.funcs[to] {
		g := *f
		g.Name = name
		r.funcs[name] = append(r.funcs[name], &g)
	}
}

func (f *Func) nonStrict() *Func { f.Strict = false; return f }
func (f *Func) variadic() *Func  { f.Variadic = true; return f }
func (f *Func) stable() *Func    { f.Volatility = Stable; return f }
func (f *Func) volatile() *Func  { f.Volatility = Volatile; return f }

// Call is a resolved call: the overload and the type each argument must
// be coerced to before Eval.
type Call struct {
	Func *Func
	// Params is the type per argument (variadic arguments expanded; for
	// "any" and anyelement the argument's own type, text for an unknown
	// literal).
	Params []OID
	// Result is the call's result type.
	Result OID
	// Args are the argument types the call was resolved for.
	Args []OID
	// Spread: the call was written with VARIADIC; its last argument is
	// the array whose elements are the variadic arguments (variadic.go).
	Spread bool
}

// Eval computes the call over argument values of the types in Args (an
// argument of an unknown type must already be of its Params type): each
// is converted to its parameter's type by the type catalog's cast.
func (c *Call) Eval(ctx *Context, args []types.Value) (types.Value, error) {
	var conv []types.Value
	for i, a := range args {
		if a == nil {
			if c.Func.Strict {
				return nil, nil
			}
			continue
		}
		if from := c.Args[i]; from != c.Params[i] && from != types.Unknown {
			if conv == nil {
				conv = slices.Clone(args)
			}
			v, err := types.ConvertIn(a, from, c.Params[i], -1, zoneOf(ctx)) // tz.go
			if err != nil {
				return nil, err
			}
			conv[i] = v
		}
	}
	if conv != nil {
		args = conv
	}
	params := c.Params
	if c.Spread {
		var ok bool
		var err error
		if args, params, ok, err = c.spread(args, params); !ok || err != nil {
			return nil, err
		}
	}
	if z := zoneOf(ctx); !z.IsUTC() {
		var err error
		if args, params, err = printAnyIn(c, args, params, z); err != nil { // tz.go
			return nil, err
		}
	}
	v, err := c.Func.impl(ctx, args, params)
	return canonicalNaN(v), err
}

// pgNaN is the NaN PostgreSQL's get_float8_nan gives (its binary send
// sends these bits; Go's math.NaN has others).
var pgNaN = math.Float64frombits(0x7ff8000000000000)

// canonicalNaN replaces a NaN Go's math library made (math.NaN(): a
// payload of 1) by PostgreSQL's get_float8_nan(). Any other NaN keeps its
// bits: PostgreSQL's C functions pass a NaN argument through (ceil, sqrt,
// exp, …: 0xfff8… from inf - inf stays so in binary format), and the
// functions that answer get_float8_nan() for a NaN argument (power, sind,
// …) return pgNaN themselves.
func canonicalNaN(v types.Value) types.Value {
	if f, ok := v.(float64); ok && math.Float64bits(f)&^(1<<63) == 0x7ff8000000000001 {
		return pgNaN
	}
	return v
}

// expand is f's parameter list for n arguments (nil when f does not take
// n): a variadic function takes at least one variadic argument, as
// PostgreSQL's FuncnameGetCandidates expands it.
func (f *Func) expand(n int) []OID {
	if !f.Variadic {
		if len(f.Args) != n {
			return nil
		}
		if f.Args == nil {
			return []OID{}
		}
		return f.Args
	}
	if n < len(f.Args) {
		return nil
	}
	out := make([]OID, n)
	copy(out, f.Args)
	for i := len(f.Args) - 1; i < n; i++ {
		out[i] = f.Args[len(f.Args)-1]
	}
	return out
}

type candidate struct {
	f    *Func
	args []OID
}

// canCoerce is can_coerce_type for one argument in an implicit context.
func canCoerce(from, to OID) bool {
	switch {
	case from == to, to == Any, to == AnyElement:
		return true
	case from == types.Unknown:
		return true
	}
	return types.CastContext(from, to) == types.CastImplicit
}

// category and preferred are pg_type.typcategory / typispreferred
// (pseudo-types: 'P', not preferred).
func category(t OID) types.Category {
	if t == Any || t == AnyElement {
		return 'P'
	}
	if tt, ok := types.Lookup(t); ok {
		return tt.Category
	}
	return types.CatUser
}

func preferred(t OID) bool {
	if tt, ok := types.Lookup(t); ok {
		return tt.Preferred
	}
	return false
}

// Resolve picks the overload of name for arguments of the given types
// (types.Unknown for an untyped literal or parameter) as PostgreSQL's
// func_get_detail does: an exact match, else the candidates every
// argument coerces to implicitly, narrowed by func_select_candidate's
// rules. No candidate is 42883; several that the rules cannot choose
// between are 42725.
func (r *Registry) Resolve(name string, args []OID) (*Call, error) {
	if len(r.funcs[name]) == 0 && r.missing[name] {
		return nil, unsupported("the function %s", name)
	}
	c, err := resolveAmong(r.funcs[name], name, args)
	var e *Error
	if err != nil && r.partialFuncs[name] && errors.As(err, &e) && e.Code == CodeUndefinedFunction {
		return nil, unsupported("the function %s over these argument types", name)
	}
	return c, err
}

// resolveAmong is Resolve among the overloads fs of name.
func resolveAmong(fs []*Func, name string, args []OID) (*Call, error) {
	var cands []candidate
	for _, f := range fs {
		if p := f.expand(len(args)); p != nil {
			cands = append(cands, candidate{f, p})
		}
	}
	var best *candidate
	for i := range cands {
		if slices.Equal(cands[i].args, args) {
			best = &cands[i]
			break
		}
	}
	if best == nil {
		var match []candidate
		for _, c := range cands {
			ok := true
			for i, a := range args {
				if !canCoerce(a, c.args[i]) {
					ok = false
					break
				}
			}
			if ok {
				match = append(match, c)
			}
		}
		switch len(match) {
		case 0:
			return nil, &Error{Code: CodeUndefinedFunction, Message: fmt.Sprintf("function %s does not exist", callString(name, args)),
				Hint: "No function matches the given name and argument types. You might need to add explicit type casts."}
		case 1:
			best = &match[0]
		default:
			best = selectCandidate(match, args)
			if best == nil {
				return nil, &Error{Code: CodeAmbiguousFunction, Message: fmt.Sprintf("function %s is not unique", callString(name, args)),
					Hint: "Could not choose a best candidate function. You might need to add explicit type casts."}
			}
		}
	}
	call := &Call{Func: best.f, Params: slices.Clone(best.args), Result: best.f.Result, Args: slices.Clone(args)}
	var elem OID
	for i, p := range call.Params {
		if p != Any && p != AnyElement {
			continue
		}
		a := args[i]
		if a == types.Unknown {
			a = types.Text
		}
		call.Params[i] = a
		if p == AnyElement {
			if elem != 0 && elem != a {
				return nil, &Error{Code: CodeDatatypeMismatch, Message: fmt.Sprintf("arguments declared \"anyelement\" are not all alike")}
			}
			elem = a
		}
	}
	if call.Result == AnyElement {
		call.Result = elem
	}
	return call, nil
}

// selectCandidate is PostgreSQL's func_select_candidate: nil when it
// cannot choose.
func selectCandidate(cands []candidate, args []OID) *candidate {
	keepMax := func(score func(c candidate) int) {
		best := -1
		var kept []candidate
		for _, c := range cands {
			switch s := score(c); {
			case s > best:
				best, kept = s, []candidate{c}
			case s == best:
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	// Most exact matches of known argument types.
	keepMax(func(c candidate) int {
		n := 0
		for i, a := range args {
			if a != types.Unknown && c.args[i] == a {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return &cands[0]
	}
	// Most exact-or-preferred (in the argument's own category) matches.
	keepMax(func(c candidate) int {
		n := 0
		for i, a := range args {
			if a != types.Unknown && (c.args[i] == a || preferred(c.args[i]) && category(c.args[i]) == category(a)) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return &cands[0]
	}
	unknowns := 0
	for _, a := range args {
		if a == types.Unknown {
			unknowns++
		}
	}
	if unknowns == 0 {
		return nil
	}
	// Unknown arguments: the category the candidates accept there (string
	// wins a conflict), and its preferred type when one accepts it.
	slotCat := make([]types.Category, len(args))
	slotPref := make([]bool, len(args))
	resolved := true
	for i, a := range args {
		if a != types.Unknown {
			continue
		}
		slotCat[i] = 0
		conflict := false
		for _, c := range cands {
			cat, pref := category(c.args[i]), preferred(c.args[i])
			switch {
			case slotCat[i] == 0:
				slotCat[i], slotPref[i] = cat, pref
			case cat == slotCat[i]:
				slotPref[i] = slotPref[i] || pref
			case cat == types.CatString:
				slotCat[i], slotPref[i] = cat, pref
			default:
				conflict = true
			}
		}
		if conflict && slotCat[i] != types.CatString {
			resolved = false
			break
		}
	}
	if resolved {
		var kept []candidate
		for _, c := range cands {
			keep := true
			for i, a := range args {
				if a != types.Unknown {
					continue
				}
				if category(c.args[i]) != slotCat[i] || slotPref[i] && !preferred(c.args[i]) {
					keep = false
					break
				}
			}
			if keep {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			cands = kept
		}
		if len(cands) == 1 {
			return &cands[0]
		}
	}
	// Last gasp: all known arguments of one type, taken for the unknowns.
	if unknowns < len(args) {
		known := types.Unknown
		for _, a := range args {
			if a == types.Unknown {
				continue
			}
			if known == types.Unknown {
				known = a
			} else if known != a {
				known = types.Unknown
				break
			}
		}
		if known != types.Unknown {
			var only *candidate
			n := 0
			for i := range cands {
				ok := true
				for j := range args {
					if !canCoerce(known, cands[i].args[j]) {
						ok = false
						break
					}
				}
				if ok {
					n++
					only = &cands[i]
				}
			}
			if n == 1 {
				return only
			}
		}
	}
	return nil
}

// typeName is format_type's name of t.
func typeName(t OID) string {
	switch t {
	case Any:
		return `"any"`
	case AnyElement:
		return "anyelement"
	}
	return types.NameOf(t)
}

// callString is name(type, …) as PostgreSQL's func_signature_string
// prints a call.
func callString(name string, args []OID) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = typeName(a)
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

// postgresOnly are functions of PostgreSQL's catalog (and aggregates
// the evaluator does not compute) the library does not have yet.
const postgresOnly = `setseed random_normal to_date generate_series
generate_subscripts unnest array_length array_to_string string_to_table array_append array_prepend array_cat
array_dims array_lower array_upper array_position array_positions array_remove array_replace array_fill array_ndims cardinality
encode decode convert convert_from convert_to sha224 sha256 sha384 sha512 get_byte set_byte get_bit set_bit bit_count crc32 crc32c
justify_days justify_hours justify_interval make_interval make_time make_timestamptz date_bin isfinite
pg_typeof string_agg array_agg stddev stddev_samp stddev_pop variance var_samp var_pop corr covar_pop
covar_samp regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy percentile_cont
percentile_disc mode json_agg jsonb_agg json_object_agg jsonb_object_agg xmlagg row_number rank dense_rank
percent_rank cume_dist ntile lag lead first_value last_value nth_value
row_to_json array_to_json
jsonb_set jsonb_insert
jsonb_each jsonb_each_text json_each json_each_text jsonb_object_keys json_object_keys
jsonb_array_elements jsonb_array_elements_text json_array_elements json_array_elements_text gen_random_uuid normalize
is_normalized parse_ident txid_current pg_backend_pid inet_client_addr inet_server_addr statement_timestamp timeofday
isempty lower_inc upper_inc range_merge bit_length_bytea string_agg_bytea localtime current_time make_timestamptz
to_ascii text_pattern_ops sind cosd
range_agg range_intersect_agg multirange int4multirange int8multirange nummultirange datemultirange tsmultirange tstzmultirange`
