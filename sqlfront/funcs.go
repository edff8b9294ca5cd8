package sqlfront

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// virtual is a relation the front end computes: a catalog relation or the
// rows of a sidecar.* function, as canonical text rows.
type virtual struct {
	cols []Column
	rows func(ex *execCtx) ([][]*string, error)
	// dbList marks pg_database: its rows need a restriction to the
	// current database (restrictDatabases, catalog.go).
	dbList bool
}

func col(name string, t uint32) Column { return Column{Name: name, TypeOID: t, TypeMod: -1} }

func strp(s string) *string { return &s }

// constArgs evaluates the arguments of a set-returning function, which
// must be constants (they decide its columns).
func (pl *planner) constArgs(f *pg.FuncCall) ([]string, error) {
	var out []string
	for _, a := range f.Args {
		e, err := pl.compile(a)
		if err != nil {
			return nil, err
		}
		c, ok := e.(*constExpr)
		if !ok || c.v == nil {
			return nil, errf(codeInvalidParam, nodeLoc(a), "arguments of %s must be constants", qualName(f.Funcname))
		}
		s, _ := render(c.v, c.t)
		out = append(out, s)
	}
	return out, nil
}

// rangeFunction plans sidecar.diff, diff_stat, log and tags in FROM.
func (pl *planner) rangeFunction(rf *pg.RangeFunction) (*virtual, string, error) {
	if rf.Lateral || rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, "", unsupported(-1, "this function in FROM")
	}
	items := rf.Functions[0].GetList().GetItems()
	f := items[0].GetFuncCall()
	if f == nil {
		return nil, "", unsupported(nodeLoc(items[0]), nodeName(items[0]))
	}
	name := qualName(f.Funcname)
	switch name {
	case "generate_series", "unnest", "pg_catalog.generate_series", "pg_catalog.unnest",
		"regexp_split_to_table", "regexp_matches", "pg_catalog.regexp_split_to_table", "pg_catalog.regexp_matches":
		// sql/exec runs them (vexec.go), reading other FROM items' columns too.
		return nil, "", unsupported(int(f.Location), "the function "+name+" in FROM")
	}
	if !strings.HasPrefix(name, "sidecar.") {
		// PostgreSQL's other set-returning functions (string_to_table,
		// a user's): not sidecar's to answer here, whatever the arguments
		// (a NULL one failed 22023 "must be constants").
		return nil, "", unsupported(int(f.Location), "the function "+name+" in FROM")
	}
	alias := strs(f.Funcname)[len(f.Funcname)-1]
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	args, err := pl.constArgs(f)
	if err != nil {
		return nil, "", err
	}
	pos := int(f.Location)
	bad := func(usage string) error {
		return errf(codeUndefinedFunc, pos, "function %s with %d arguments does not exist", name, len(args)).hint("usage: " + usage)
	}
	switch name {
	case "sidecar.diff":
		if len(args) != 3 {
			return nil, "", bad("sidecar.diff('table', 'from ref', 'to ref')")
		}
		v, err := pl.diffRelation(args[0], args[1], args[2], pos)
		return v, alias, err
	case "sidecar.diff_stat":
		if len(args) != 2 && len(args) != 3 {
			return nil, "", bad("sidecar.diff_stat('from ref', 'to ref' [, 'table'])")
		}
		return diffStatRelation(args), alias, nil
	case "sidecar.log":
		if len(args) > 2 {
			return nil, "", bad("sidecar.log([table [, n]])")
		}
		return logRelation(args), alias, nil
	case "sidecar.tags":
		if len(args) != 0 {
			return nil, "", bad("sidecar.tags()")
		}
		return tagsRelation(), alias, nil
	}
	return nil, "", errf(codeUndefinedFunc, pos, "function %s does not exist", name).hint("sidecar's set-returning functions: sidecar.diff, sidecar.diff_stat, sidecar.log, sidecar.tags")
}

// refError maps a resolver or history error to 22023 / 42P01.
func refError(err error, pos int) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	if nc := (*mirror.NotCopiedYetError)(nil); errors.As(err, &nc) {
		e := notCopiedYet(nc) // errors.go: the table may have existed then
		e.Pos = pos
		return e
	}
	if strings.Contains(err.Error(), history.ErrUnknownTable.Error()) {
		return errf(codeUndefinedTable, pos, "%v", err)
	}
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err
	}
	return errf(codeInvalidParam, pos, "%v", err)
}

func (pl *planner) diffRelation(table, from, to string, pos int) (*virtual, error) {
	var t *Table
	for _, x := range pl.src.Tables() {
		if x.Name == table || x.Rel == table && x.Schema == "public" {
			t = &x
		}
	}
	if t == nil {
		return nil, errf(codeUndefinedTable, pos, "relation \"%s\" does not exist", table)
	}
	cols := []Column{col("diff_type", oidText)}
	for _, k := range t.KeyCols {
		cols = append(cols, valueColumn(t, k, t.Columns[k].Name))
	}
	for _, pre := range []string{"from_", "to_"} {
		for i, c := range t.Columns {
			cols = append(cols, valueColumn(t, i, pre+c.Name))
		}
	}
	name := t.Name
	return &virtual{cols: cols, rows: func(ex *execCtx) ([][]*string, error) {
		var out [][]*string
		_, err := ex.src.History().Diff(ex.ctx, history.DiffRequest{From: from, To: to, Tables: []string{name}}, func(e *history.Event) error {
			if e.Type != history.EventRow {
				return nil
			}
			row := make([]*string, len(cols))
			row[0] = strp(e.Op)
			i := 1
			for _, k := range t.KeyCols {
				kv := e.To
				if kv == nil {
					kv = e.From
				}
				if kv != nil {
					row[i], _ = kv.Get(t.Columns[k].Name)
				}
				i++
			}
			for _, r := range []*history.Row{e.From, e.To} {
				for _, c := range t.Columns {
					if r != nil {
						row[i], _ = r.Get(c.Name)
					}
					i++
				}
			}
			out = append(out, row)
			return nil
		})
		return out, refError(err, pos)
	}}, nil
}

func diffStatRelation(args []string) *virtual {
	cols := []Column{col("table_name", oidText), col("rows_added", oidInt8), col("rows_removed", oidInt8), col("rows_changed", oidInt8)}
	return &virtual{cols: cols, rows: func(ex *execCtx) ([][]*string, error) {
		req := history.DiffRequest{From: args[0], To: args[1], Stat: true}
		if len(args) == 3 {
			req.Tables = []string{args[2]}
		}
		var out [][]*string
		_, err := ex.src.History().Diff(ex.ctx, req, func(e *history.Event) error {
			if e.Type != history.EventStat {
				return nil
			}
			n := func(p *int64) *string {
				if p == nil {
					return strp("0")
				}
				return strp(strconv.FormatInt(*p, 10))
			}
			out = append(out, []*string{strp(e.Table), n(e.RowsAdded), n(e.RowsRemoved), n(e.RowsChanged)})
			return nil
		})
		return out, refError(err, -1)
	}}
}

func tsText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.999999") + "+00" }

func logRelation(args []string) *virtual {
	cols := []Column{col("lsn", oidText), col("commit_lsn", oidText), col("commit_time", oidTimestamptz), col("xid", oidInt8),
		col("tables", oidText), col("rows", oidInt8), col("tags", oidText)}
	return &virtual{cols: cols, rows: func(ex *execCtx) ([][]*string, error) {
		req := history.LogRequest{}
		if len(args) > 0 {
			req.Table = args[0]
		}
		if len(args) > 1 {
			n, err := strconv.Atoi(args[1])
			if err != nil {
				return nil, errf(codeInvalidParam, -1, "sidecar.log: n must be an integer, not %q", args[1])
			}
			req.Limit = n
		}
		var out [][]*string
		err := ex.src.History().Log(ex.ctx, req, func(e history.LogEntry) error {
			var names []string
			var rows int64
			for _, t := range e.Tables {
				names = append(names, t.Table)
				rows += t.Rows
			}
			var tags *string
			if len(e.Tags) > 0 {
				tags = strp(strings.Join(e.Tags, ","))
			}
			out = append(out, []*string{strp(e.LSN), strp(e.CommitLSN), strp(tsText(e.CommitTime)), strp(strconv.FormatUint(uint64(e.Xid), 10)),
				strp(strings.Join(names, ",")), strp(strconv.FormatInt(rows, 10)), tags})
			return nil
		})
		return out, refError(err, -1)
	}}
}

func tagsRelation() *virtual {
	cols := []Column{col("name", oidText), col("lsn", oidText), col("created", oidTimestamptz)}
	return &virtual{cols: cols, rows: func(ex *execCtx) ([][]*string, error) {
		tags, err := ex.src.History().Tags(ex.ctx)
		if err != nil {
			return nil, err
		}
		var out [][]*string
		for _, t := range tags {
			out = append(out, []*string{strp(t.Name), strp(t.LSN), strp(tsText(t.Created))})
		}
		return out, nil
	}}
}

// scalarFunc compiles the scalar functions the evaluator knows.
func (pl *planner) scalarFunc(name string, args []expr, f *pg.FuncCall) (expr, error) {
	pos := int(f.Location)
	argc := func(n int) error {
		if len(args) != n {
			return errf(codeUndefinedFunc, pos, "function %s with %d arguments does not exist", name, len(args))
		}
		return nil
	}
	textArgs := func() error {
		for i := range args {
			var err error
			if args[i], err = pl.coerce(args[i], oidText, pos); err != nil {
				return err
			}
		}
		return nil
	}
	switch name {
	case "sidecar.version":
		if err := argc(0); err != nil {
			return nil, err
		}
		return &funcExpr{t: oidText, fn: func(e *env, _ []Value) (Value, error) {
			v, err := e.ex.sess.versionFor(e.ex.ctx, "")
			if err != nil {
				return nil, err
			}
			return v.LSN, nil
		}}, nil
	case "sidecar.resolve":
		if err := argc(1); err != nil {
			return nil, err
		}
		if err := textArgs(); err != nil {
			return nil, err
		}
		return &funcExpr{args: args, t: oidText, strict: true, fn: func(e *env, a []Value) (Value, error) {
			v, err := e.ex.src.Resolve(e.ex.ctx, a[0].(string))
			if err != nil {
				return nil, refError(err, pos)
			}
			return v.LSN, nil
		}}, nil
	case "version":
		if err := argc(0); err != nil {
			return nil, err
		}
		return &constExpr{v: "PostgreSQL " + pl.sess.settings["server_version"] + " on sidecar", t: oidText}, nil
	case "current_database":
		return &funcExpr{t: oidName, fn: func(e *env, _ []Value) (Value, error) { return e.ex.sess.database, nil }}, argc(0)
	case "set_config":
		// set_config(name, value, is_local): SET from an expression, so
		// that a parameter can set sidecar.as_of ($1 cannot stand in SET).
		if err := argc(3); err != nil {
			return nil, err
		}
		for i, t := range []uint32{oidText, oidText, oidBool} {
			var err error
			if args[i], err = pl.coerce(args[i], t, pos); err != nil {
				return nil, err
			}
		}
		return &funcExpr{args: args, t: oidText, fn: func(e *env, a []Value) (Value, error) {
			if a[0] == nil {
				return nil, errf(codeInvalidParam, pos, "SET requires parameter name")
			}
			val, _ := a[1].(string)
			return e.ex.sess.setConfig(e.ex.ctx, a[0].(string), val, a[2] == true) // settings_params.go
		}}, nil
	case "current_setting":
		if len(args) != 1 && len(args) != 2 {
			return nil, errf(codeUndefinedFunc, pos, "function current_setting with %d arguments does not exist", len(args))
		}
		if err := textArgs(); err != nil {
			return nil, err
		}
		return &funcExpr{args: args, t: oidText, strict: true, fn: func(e *env, a []Value) (Value, error) {
			v, ok, err := e.ex.sess.showSetting(strings.ToLower(a[0].(string))) // pgcatalog_settings.go
			if err != nil {
				return nil, err
			}
			if !ok {
				if len(a) == 2 {
					if missingOK, _ := parseAs(oidBool, a[1].(string)); missingOK == true {
						return nil, nil
					}
				}
				return nil, errf(codeUndefinedObject, pos, "unrecognized configuration parameter \"%s\"", a[0].(string))
			}
			return v, nil
		}}, nil
	case "current_schema":
		if !pl.pathIsPublic() { // searchpath.go; sql/exec's catalog answers it
			return nil, unsupported(pos, "current_schema under a search_path not starting at public on this path")
		}
		return &constExpr{v: "public", t: oidName}, argc(0)
	case "current_schemas":
		return nil, unsupported(pos, "current_schemas on this path") // an array: sql/exec answers it (pgcatalog_arrays.go)
	case "current_user", "session_user":
		return &funcExpr{t: oidName, fn: func(e *env, _ []Value) (Value, error) { return e.ex.sess.user, nil }}, argc(0)
	case "lower", "upper", "initcap":
		if err := argc(1); err != nil {
			return nil, err
		}
		if err := textArgs(); err != nil {
			return nil, err
		}
		cm, refuse, err := pl.flatCaseMap(pos, name, args[0]) // vexec_casemap.go
		if err != nil {
			return nil, err
		}
		mapCase := map[string]func(*builtin.CaseMap, string) (string, error){
			"lower": (*builtin.CaseMap).Lower, "upper": (*builtin.CaseMap).Upper, "initcap": (*builtin.CaseMap).Initcap}[name]
		return &funcExpr{args: args, t: oidText, strict: true, fn: func(_ *env, a []Value) (Value, error) {
			s, err := mapCase(cm, a[0].(string))
			if err != nil && refuse != nil {
				return nil, refuse
			}
			if err != nil {
				return nil, builtinErr(err, -1) // raised as it runs: no position
			}
			return s, nil
		}}, nil
	}
	if strings.HasPrefix(name, "sidecar.") {
		return nil, errf(codeUndefinedFunc, pos, "function %s does not exist", name).
			hint("sidecar's functions: sidecar.version, sidecar.resolve; in FROM: sidecar.diff, sidecar.diff_stat, sidecar.log, sidecar.tags")
	}
	if name == "pg_get_viewdef" {
		// Answered on sql/exec from the views' facts (views_def.go).
		return nil, unsupported(pos, "a view (pg_get_viewdef)")
	}
	return pl.builtinCall(name, args, f)
}

func zeroOf(t uint32) Value {
	switch {
	case isIntType(t):
		return int64(0)
	case isFloatType(t):
		return float64(0)
	}
	return numFromInt(0)
}
