package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// json_to_record, jsonb_to_record, json_to_recordset and
// jsonb_to_recordset in FROM with a column definition list
// (… AS x(a int, b text)): one row (or one per array element) whose
// columns are the object's keys of the same names, each read by its
// column type's input function (builtin.JSONToRecordRows). Columns of
// scalar types the library reads; arrays, composites, domains and the
// functions' other forms (populate_record over a row type, ROWS FROM,
// WITH ORDINALITY) stay refused.

// jsonToRecordArg is each function's argument type.
var jsonToRecordArg = map[string]OID{"json_to_record": JSON, "jsonb_to_record": JSONB, "json_to_recordset": JSON, "jsonb_to_recordset": JSONB}

// jsonToRecord binds rf when it is one of the functions with a column
// definition list (ok); ok false leaves rf to rangeFunction's refusals.
func (b *binder) jsonToRecord(rf *pg.RangeFunction, sc *scope) (Rel, *item, bool, error) {
	if rf.IsRowsfrom || rf.Ordinality || len(rf.Functions) != 1 || len(rf.Coldeflist) == 0 {
		return nil, nil, false, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil || len(items) > 1 && items[1] != nil && nodeNotNil(items[1]) {
		return nil, nil, false, nil
	}
	fc := items[0].GetFuncCall()
	name := strings.ToLower(opName(fc.Funcname))
	arg, known := jsonToRecordArg[name]
	if !known || len(fc.Funcname) > 2 || fc.AggStar || fc.AggDistinct || fc.Over != nil || fc.FuncVariadic || len(fc.Args) != 1 ||
		fc.Args[0].GetNamedArgExpr() != nil {
		return nil, nil, false, nil
	}
	var names []string
	var ts []Type
	for _, n := range rf.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil || cd.TypeName == nil {
			return nil, nil, true, unsupported("this column definition", -1)
		}
		t, err := TypeOf(cd.TypeName)
		if err != nil {
			return nil, nil, true, err
		}
		if IsArray(t) || t.OID == Record || t.OID == Unknown {
			return nil, nil, true, unsupported(name+" of a column of type "+t.String()+" (arrays and records)", cd.Location)
		}
		names, ts = append(names, cd.Colname), append(ts, t)
	}
	// Its argument may read the FROM items before it (LATERAL).
	lat := b.latScope(sc)
	e, err := b.expr(fc.Args[0], lat, &exprCtx{clause: "functions in FROM"})
	if err != nil {
		return nil, nil, true, err
	}
	b.lat.refs.AddSet(ColumnsOf(e))
	sc.outer.AddSet(lat.outer)
	e = coerce(e, T(arg))
	if t := e.Type(); t.OID != arg {
		return nil, nil, true, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, t).at(fc.Location)
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		if len(rf.Alias.Colnames) > 0 {
			return nil, nil, true, unsupported("column aliases beside a column definition list", -1)
		}
	}
	var cols []ColumnID
	for i, n := range names {
		cols = append(cols, b.md.Add(ColumnMeta{Name: n, Table: alias, Type: ts[i]}))
	}
	return &FuncScan{Name: name, Args: []Scalar{e}, Cols: cols}, newItem(alias, b.scopeCols(cols, names)), true, nil
}
