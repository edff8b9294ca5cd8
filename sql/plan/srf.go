package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// srfInFrom binds the set-returning functions in FROM that
// rangeFunction (from.go) does not: unnest(array), generate_series over
// numeric and timestamp (with an interval step), and any of them WITH
// ORDINALITY. ok is false for what rangeFunction binds itself (integer
// generate_series without ORDINALITY) and for what it refuses.
func (b *binder) srfInFrom(rf *pg.RangeFunction, sc *scope) (Rel, *item, bool, error) {
	if len(rf.Coldeflist) > 0 || len(rf.Functions) == 0 {
		return nil, nil, false, nil
	}
	var calls []*pg.FuncCall
	for _, fn := range rf.Functions {
		items := fn.GetList().GetItems()
		if len(items) == 0 || items[0].GetFuncCall() == nil || (len(items) > 1 && items[1] != nil && nodeNotNil(items[1])) {
			return nil, nil, false, nil // a column definition list
		}
		fc := items[0].GetFuncCall()
		if !srfNames[strings.ToLower(opName(fc.Funcname))] || len(fc.Funcname) > 2 || fc.AggStar || fc.AggDistinct || fc.Over != nil || fc.FuncVariadic {
			return nil, nil, false, nil
		}
		fc, err := b.positionalArgs(strings.ToLower(opName(fc.Funcname)), fc) // namedargs.go
		if err != nil {
			return nil, nil, true, err
		}
		calls = append(calls, fc)
	}
	// A function in FROM is LATERAL: its arguments may read the items
	// before it (noted in b.lat.refs) and the enclosing query levels.
	lat := b.latScope(sc)
	var fss []*FuncScan
	var ts []Type       // fss' result types
	var outs [][]string // per function: its columns' names (nil: one, named by it or the alias)
	for _, fc := range calls {
		name := strings.ToLower(opName(fc.Funcname))
		var args []Scalar
		for _, a := range fc.Args {
			e, err := b.expr(a, lat, &exprCtx{clause: "functions in FROM"})
			if err != nil {
				return nil, nil, true, err
			}
			b.lat.refs.AddSet(ColumnsOf(e))
			args = append(args, e)
		}
		var group []*FuncScan
		if name == "unnest" && len(args) > 1 && !rf.IsRowsfrom {
			// unnest(a, b, …) in FROM is ROWS FROM (unnest(a), unnest(b), …).
			for _, a := range args {
				group = append(group, &FuncScan{Name: name, Args: []Scalar{a}})
			}
		} else {
			group = []*FuncScan{{Name: name, Args: args}}
		}
		for _, fs := range group {
			if on, cts, found, err := jsonSRFType(fs, fc.Location); found || err != nil {
				if err != nil {
					return nil, nil, true, err // jsonsrf.go
				}
				fss, ts, outs = append(fss, fs), append(ts, cts...), append(outs, on)
				continue
			}
			res, ok, err := srfType(fs, fc.Location)
			if !ok || err != nil {
				return nil, nil, ok, err
			}
			fss, ts, outs = append(fss, fs), append(ts, res), append(outs, nil)
		}
	}
	sc.outer.AddSet(lat.outer)
	name := strings.ToLower(opName(calls[0].Funcname))
	alias := name
	var colAliases []*pg.Node
	if rf.Alias != nil {
		alias, colAliases = rf.Alias.Aliasname, rf.Alias.Colnames
	}
	var names []string
	for i, fs := range fss {
		if outs[i] == nil {
			names = append(names, fs.Name)
			continue
		}
		if len(outs[i]) > 1 && len(fss) > 1 {
			return nil, nil, true, unsupported(fs.Name+" beside other functions in ROWS FROM", calls[0].Location)
		}
		names = append(names, outs[i]...)
	}
	if len(fss) == 1 && outs[0] == nil {
		names[0] = alias // one function's column is named by the alias
	}
	if rf.Ordinality {
		names, ts = append(names, "ordinality"), append(ts, T(Int8))
	}
	if len(colAliases) > len(names) {
		return nil, nil, true, errorf(CodeSyntax, "too many column aliases specified for function %s", name)
	}
	for i, n := range colAliases {
		names[i] = n.GetString_().Sval
	}
	var cols []ColumnID
	for i, n := range names {
		cols = append(cols, b.md.Add(ColumnMeta{Name: n, Table: alias, Type: ts[i]}))
	}
	it := newItem(alias, b.scopeCols(cols, names))
	if len(fss) == 1 {
		fss[0].Cols, fss[0].Ordinality = cols, rf.Ordinality // the value columns, then the ordinality
		return fss[0], it, true, nil
	}
	r := &RowsFrom{Funcs: fss}
	for i, fs := range fss {
		fs.Cols = []ColumnID{cols[i]}
	}
	if rf.Ordinality {
		r.Ord = cols[len(cols)-1]
	}
	return r, it, true, nil
}

// srfNames are the set-returning functions the planner binds, in FROM
// and in select lists (projectset.go).
var srfNames = map[string]bool{"unnest": true, "generate_series": true, "generate_subscripts": true,
	"regexp_matches": true, "regexp_split_to_table": true, "string_to_table": true}

// srfType types a set-returning function over its bound arguments (one
// result column). ok is false for an argument count no function of the
// name takes (the caller's refusal stands).
func srfType(fs *FuncScan, loc int32) (Type, bool, error) {
	if _, ts, found, err := jsonSRFType(fs, loc); found || err != nil {
		if err != nil {
			return Type{}, true, err
		}
		if len(ts) > 1 {
			return T(Record), true, nil // jsonb_each: (key,value) records (JSONSRFFields)
		}
		return ts[0], true, nil
	}
	switch fs.Name {
	case "unnest":
		if len(fs.Args) != 1 {
			return Type{}, true, unsupported("unnest with several arguments", loc)
		}
		t := fs.Args[0].Type()
		if t.OID == Unknown {
			// unnest(anyarray) and unnest(tsvector) both take it.
			return Type{}, true, errorf("42725", "function unnest(unknown) is not unique").at(loc)
		}
		if !IsArray(t) {
			return Type{}, true, errorf(CodeUndefinedFunction, "function unnest(%s) does not exist", t).at(loc)
		}
		return T(ElemType(t).OID), true, nil
	case "generate_subscripts":
		if len(fs.Args) != 2 && len(fs.Args) != 3 {
			return Type{}, false, nil
		}
		t := fs.Args[0].Type()
		if !IsArray(t) {
			return Type{}, true, errorf(CodeUndefinedFunction, "function generate_subscripts(%s, %s) does not exist", t, fs.Args[1].Type()).at(loc)
		}
		fs.Args[1] = coerce(fs.Args[1], T(Int4))
		if fs.Args[1].Type().OID != Int4 {
			return Type{}, true, errorf(CodeUndefinedFunction, "function generate_subscripts(%s, %s) does not exist", t, fs.Args[1].Type()).at(loc)
		}
		if len(fs.Args) == 3 {
			if fs.Args[2] = coerce(fs.Args[2], T(Bool)); fs.Args[2].Type().OID != Bool {
				return Type{}, true, errorf(CodeUndefinedFunction, "function generate_subscripts(%s, integer, %s) does not exist", t, fs.Args[2].Type()).at(loc)
			}
		}
		return T(Int4), true, nil
	case "generate_series":
		if len(fs.Args) != 2 && len(fs.Args) != 3 {
			return Type{}, false, nil
		}
		res, err := seriesType(fs, loc)
		return res, true, err
	case "regexp_matches", "regexp_split_to_table", "string_to_table":
		// (text, text [, text]): the set of matches' text[] or of the
		// pieces between matches (sql/builtin's regexp functions), or
		// string_to_array's elements as rows (string_to_table).
		if len(fs.Args) != 2 && len(fs.Args) != 3 {
			return Type{}, false, nil
		}
		var ts []string
		for i := range fs.Args {
			fs.Args[i] = coerce(fs.Args[i], T(Text))
			ts = append(ts, fs.Args[i].Type().String())
		}
		for i, a := range fs.Args {
			if t := a.Type().OID; t == Varchar || t == Bpchar || t == Name {
				fs.Args[i] = &Cast{Arg: a, T: T(Text)}
			} else if t != Text {
				return Type{}, true, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", fs.Name, strings.Join(ts, ", ")).at(loc)
			}
		}
		if fs.Name == "regexp_matches" {
			return T(types.ArrayOf(Text)), true, nil
		}
		return T(Text), true, nil
	}
	return Type{}, false, nil
}

// seriesType types generate_series' arguments in fs: integers,
// numeric, or timestamp with an
// interval step. A series over timestamptz or dates (PostgreSQL takes
// those as timestamptz, whose steps depend on TimeZone) is refused.
func seriesType(fs *FuncScan, loc int32) (Type, error) {
	var ts []Type
	for _, a := range fs.Args {
		ts = append(ts, a.Type())
	}
	if t, ok := tzSeries(fs, ts); ok {
		return t, nil // generate_series(timestamptz, timestamptz, interval)
	}
	if len(ts) == 3 && ts[2].OID == Interval || len(ts) == 3 && ts[2].OID == Unknown && (ts[0].OID == Timestamp || ts[1].OID == Timestamp) {
		for i := range fs.Args[:2] {
			fs.Args[i] = coerce(fs.Args[i], T(Timestamp))
			if fs.Args[i].Type().OID != Timestamp {
				return Type{}, unsupported("generate_series over "+fs.Args[i].Type().String()+" (PostgreSQL takes it as timestamp with time zone)", loc)
			}
		}
		fs.Args[2] = coerce(fs.Args[2], T(Interval))
		if fs.Args[2].Type().OID != Interval {
			return Type{}, unsupported("generate_series with this step", loc)
		}
		return T(Timestamp), nil
	}
	numeric := false
	for _, t := range ts {
		switch t.OID {
		case Unknown, Int2, Int4, Int8:
		case Numeric:
			numeric = true
		default:
			return Type{}, unsupported("generate_series over "+t.String(), loc)
		}
	}
	for i := range fs.Args {
		fs.Args[i] = coerce(fs.Args[i], T(map[bool]OID{true: Numeric, false: Int4}[numeric]))
	}
	if !numeric {
		for _, a := range fs.Args {
			if a.Type().OID == Int8 {
				return T(Int8), nil
			}
		}
		return T(Int4), nil
	}
	for i := range fs.Args {
		if fs.Args[i].Type().OID != Numeric {
			fs.Args[i] = &Cast{Arg: fs.Args[i], T: T(Numeric)}
		}
	}
	return T(Numeric), nil
}

// tzSeries types generate_series over timestamptz: both bounds
// timestamptz, date or untyped (PostgreSQL's preferred datetime type is
// timestamptz; a timestamp bound takes the timestamp overload) and an
// interval or untyped step. The steps are added in the session's zone
// (sql/exec's srf.go).
func tzSeries(fs *FuncScan, ts []Type) (Type, bool) {
	if len(ts) != 3 || ts[2].OID != Interval && ts[2].OID != Unknown {
		return Type{}, false
	}
	tz := false
	for _, t := range ts[:2] {
		switch t.OID {
		case Timestamptz, Date:
			tz = true
		case Unknown:
		default:
			return Type{}, false
		}
	}
	if !tz && ts[2].OID != Interval {
		return Type{}, false
	}
	for i := range fs.Args[:2] {
		fs.Args[i] = cast(fs.Args[i], T(Timestamptz))
	}
	fs.Args[2] = coerce(fs.Args[2], T(Interval))
	return T(Timestamptz), true
}
