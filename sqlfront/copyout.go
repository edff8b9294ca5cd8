package sqlfront

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
)

// COPY … TO STDOUT: `COPY table [(cols)] TO STDOUT` and `COPY (query) TO
// STDOUT`, as psql's \copy, psycopg's cursor.copy(), pgx's CopyTo and
// node-pg-copy-streams export. The rows are the query's (a table's
// columns become `SELECT cols FROM ONLY table`, its AS OF kept), planned
// and run as a SELECT is — the same engine, versions, statement_timeout,
// cancel and memory.query — and each row is written in COPY's text, csv
// or binary format as it is produced, one CopyData message per row, as
// PostgreSQL's CopyOneRowTo does. The options are checked as
// PostgreSQL's ProcessCopyOptions checks them, with its messages.
// COPY FROM is refused as a read-only standby refuses it (25006); COPY
// to a server file or a program is refused with 0A000. The wire side is
// in copyout_run.go.

// copyFormat is COPY's FORMAT.
type copyFormat byte

const (
	copyText copyFormat = iota
	copyCSV
	copyBinary
)

// copySpec is a planned COPY … TO STDOUT: the select whose rows it
// writes and the format options, defaults filled in.
type copySpec struct {
	query    *plan
	format   copyFormat
	delim    byte
	null     string
	header   bool
	quote    byte
	escape   byte
	forceAll bool
	force    []bool // by output column
	// err is the COPY's error, answered when it runs (planCopy).
	err error
}

// planCopy plans COPY … TO: the select goes into pl.p as a SELECT's
// plan would (planQueryFrom then wraps it: copyPlan). PostgreSQL checks
// a COPY (its relation, options and query) when it runs it, not at
// Parse: an error here is the plan's, answered at Execute (after
// ParseComplete, BindComplete and NoData, as there), and after the
// statements before it in a simple query.
func (pl *planner) planCopy(cs *pg.CopyStmt, rs *pg.RawStmt, text string) error {
	if err := pl.planCopyStmt(cs, rs, text); err != nil {
		if e, ok := err.(*Error); ok && cs.Relation != nil && e.Code == codeUndefinedTable {
			e.Pos = -1 // COPY opens its relation with no position
		}
		pl.p = &plan{kind: "copy", tag: "COPY", copyOut: &copySpec{err: err}}
	}
	return nil
}

// planCopyStmt is planCopy's checks and select, failing as PostgreSQL's
// DoCopy and BeginCopyTo fail, in their order.
func (pl *planner) planCopyStmt(cs *pg.CopyStmt, rs *pg.RawStmt, text string) error {
	if cs.IsProgram {
		return unsupported(-1, "COPY TO PROGRAM").
			hint("sidecar writes COPY's rows to the client only: COPY … TO STDOUT, or psql's \\copy")
	}
	if cs.Filename != "" {
		return unsupported(-1, "COPY to a file on the server").
			hint("sidecar writes COPY's rows to the client only: COPY … TO STDOUT, or psql's \\copy")
	}
	major := 0
	if pl.sess != nil {
		major = pl.sess.followedVersionNum() / 10000
	}
	var sel *pg.Node
	var relName string
	var relCols []string
	if rv := cs.Relation; rv != nil {
		var err error
		if sel, relCols, err = pl.copyTableSelect(cs, rv); err != nil {
			return err
		}
		relName = rv.Relname
	} else {
		if cs.Query.GetSelectStmt() == nil {
			name := ""
			if m := nodeMsg(cs.Query); m != nil {
				name = string(m.Descriptor().Name())
			}
			if cmd, ok := readOnlyNames[name]; ok {
				return (&Error{Code: codeReadOnly, Pos: -1, Msg: "cannot execute " + cmd + " in a read-only transaction"}).
					hint("sidecar is a read-only mirror; write to the PostgreSQL server it follows")
			}
			return unsupported(nodeLoc(cs.Query), "COPY of a statement other than SELECT")
		}
		sel = cs.Query
	}
	opts, forceNames, err := copyOptions(cs.Options, major, pl.sess)
	if err != nil {
		return err
	}
	if err := copyParamRefusal(sel); err != nil {
		return err
	}
	if err := pl.statement(&pg.RawStmt{Stmt: sel, StmtLocation: rs.StmtLocation, StmtLen: rs.StmtLen}, text); err != nil {
		return err
	}
	if pl.p.kind != "select" {
		return unsupported(-1, "this COPY")
	}
	opts.force = make([]bool, len(pl.p.cols))
	for _, name := range forceNames {
		i := -1
		for j, c := range pl.p.cols {
			if c.name == name {
				i = j
				break
			}
		}
		if i >= 0 {
			opts.force[i] = true
			continue
		}
		switch {
		case relName == "":
			return errf(codeUndefinedColumn, -1, "column \"%s\" does not exist", name)
		case slices.Contains(relCols, name):
			return errf("42P10", -1, "FORCE_QUOTE column \"%s\" not referenced by COPY", name)
		}
		return errf(codeUndefinedColumn, -1, "column \"%s\" of relation \"%s\" does not exist", name, relName)
	}
	pl.p.copyOut = opts
	return nil
}

// copyParamRefusal fails a COPY whose query names a parameter as
// PostgreSQL's does: COPY is a utility statement, its query is analyzed
// when it runs, with no parameters (42P02), even when Bind gave some.
func copyParamRefusal(sel *pg.Node) error {
	var err error
	pgast.Walk(sel.ProtoReflect(), func(m protoreflect.Message) bool {
		if p, ok := m.Interface().(*pg.ParamRef); ok && err == nil {
			err = errf("42P02", int(p.Location), "there is no parameter $%d", p.Number)
		}
		return err == nil
	})
	return err
}

// copyTableSelect is `SELECT cols FROM ONLY table` for COPY table
// [(cols)] TO, after PostgreSQL's checks of the relation and the list:
// a view, a partitioned table (42809) or a missing column (42703) fail
// as they fail there. The relation keeps its location, so its AS OF
// (rewriteAsOf's refs by the table's offset) still applies.
func (pl *planner) copyTableSelect(cs *pg.CopyStmt, rv *pg.RangeVar) (*pg.Node, []string, error) {
	schema := rv.Schemaname
	if schema == "" {
		schema = pl.unqualifiedSchema(rv.Relname)
	}
	if v, _ := pl.views().headView(schema, rv.Relname); v != nil {
		if _, err := pl.table(rv, pl.asOf[int(rv.Location)]); err != nil {
			return nil, nil, (&Error{Code: "42809", Pos: -1, Msg: fmt.Sprintf("cannot copy from view \"%s\"", rv.Relname)}).
				hint("Try the COPY (SELECT ...) TO variant.")
		}
	}
	t, err := pl.table(rv, pl.asOf[int(rv.Location)])
	if err != nil {
		return nil, nil, err
	}
	if t.part != nil {
		return nil, nil, (&Error{Code: "42809", Pos: -1, Msg: fmt.Sprintf("cannot copy from partitioned table \"%s\"", rv.Relname)}).
			hint("Try the COPY (SELECT ...) TO variant.")
	}
	var notCarried []string
	if t.Facts != nil {
		notCarried = t.Facts.NotCarried
	}
	var names, all []string
	for _, c := range t.Columns {
		all = append(all, c.Name) // generated columns: not carried, and COPY leaves them out
	}
	if len(cs.Attlist) == 0 {
		names = all
	}
	for _, n := range cs.Attlist {
		name := n.GetString_().GetSval()
		found := false
		for _, c := range t.Columns {
			found = found || c.Name == name
		}
		for _, g := range notCarried {
			if g == name {
				// 14–18 alike (checked on each: TestCopyOutShapes).
				return nil, nil, (&Error{Code: "42P10", Pos: -1, Msg: fmt.Sprintf("column \"%s\" is a generated column", name),
					Detail: "Generated columns cannot be used in COPY."})
			}
		}
		if !found {
			return nil, nil, errf(codeUndefinedColumn, -1, "column \"%s\" of relation \"%s\" does not exist", name, rv.Relname)
		}
		for _, prev := range names {
			if prev == name {
				return nil, nil, errf("42701", -1, "column \"%s\" specified more than once", name)
			}
		}
		names = append(names, name)
	}
	from := &pg.RangeVar{Catalogname: rv.Catalogname, Schemaname: rv.Schemaname, Relname: rv.Relname,
		Inh: false, Relpersistence: rv.Relpersistence, Location: rv.Location}
	sel := &pg.SelectStmt{FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: from}}},
		Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT} // as the parser makes it
	for _, name := range names {
		ref := &pg.ColumnRef{Fields: []*pg.Node{pg.MakeStrNode(name)}, Location: -1}
		sel.TargetList = append(sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{
			Val: &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: ref}}, Location: -1}}})
	}
	return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, all, nil
}

// copyPlan wraps the planned select of a COPY as its plan.
func copyPlan(sel *plan) *plan {
	c := sel.copyOut
	if c.err != nil {
		return sel // planCopy's error plan
	}
	sel.copyOut = nil
	c.query = sel
	return &plan{kind: "copy", tag: "COPY", params: sel.params, copyOut: c}
}

// copyOptions checks COPY's options as PostgreSQL's ProcessCopyOptions
// (COPY TO) does, in its order and with its errors, and returns them
// with the defaults filled in, and the FORCE_QUOTE column names.
func copyOptions(defs []*pg.Node, major int, sess *session) (*copySpec, []string, error) {
	o := &copySpec{}
	var formatSet, freezeSet, headerSet, encodingSet, forceSet, notNullSet, nullSet bool
	var delim, null, quote, escape *string
	var force []string
	v17 := major >= 17 // PostgreSQL 17 reworded these checks ("COPY %s requires CSV mode", …)
	csvOnly := func(opt, old string) error {
		if v17 {
			return errf(codeUnsupported, -1, "COPY %s requires CSV mode", opt)
		}
		return errf(codeUnsupported, -1, "COPY %s available only in CSV mode", old)
	}
	fromOnly := func(opt, old string) error {
		if v17 {
			return errf(codeInvalidParam, -1, "COPY %s cannot be used with COPY TO", opt)
		}
		return errf(codeUnsupported, -1, "COPY %s only available using COPY FROM", old)
	}
	freeze := false
	conflict := func(d *pg.DefElem) error {
		return errf(codeSyntax, int(d.Location), "conflicting or redundant options")
	}
	for _, n := range defs {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "format":
			f, err := defString(d)
			if err != nil {
				return nil, nil, err
			}
			if formatSet {
				return nil, nil, conflict(d)
			}
			formatSet = true
			switch f {
			case "text":
			case "csv":
				o.format = copyCSV
			case "binary":
				o.format = copyBinary
			default:
				return nil, nil, errf(codeInvalidParam, int(d.Location), "COPY format \"%s\" not recognized", f)
			}
		case "freeze":
			if freezeSet {
				return nil, nil, conflict(d)
			}
			freezeSet = true
			b, err := defBool(d, false)
			if err != nil {
				return nil, nil, err
			}
			freeze = b
		case "delimiter", "null", "quote", "escape":
			p := map[string]**string{"delimiter": &delim, "null": &null, "quote": &quote, "escape": &escape}[d.Defname]
			if *p != nil {
				return nil, nil, conflict(d)
			}
			s, err := defString(d)
			if err != nil {
				return nil, nil, err
			}
			*p = &s
		case "header":
			if headerSet {
				return nil, nil, conflict(d)
			}
			headerSet = true
			b, err := defBool(d, major >= 15)
			if err != nil {
				return nil, nil, err
			}
			o.header = b
		case "force_quote":
			if forceSet {
				return nil, nil, conflict(d)
			}
			forceSet = true
			switch {
			case d.Arg != nil && d.Arg.GetAStar() != nil:
				o.forceAll = true
			case d.Arg != nil && d.Arg.GetList() != nil:
				for _, c := range d.Arg.GetList().Items {
					force = append(force, c.GetString_().GetSval())
				}
			default:
				return nil, nil, errf(codeInvalidParam, int(d.Location), "argument to option \"%s\" must be a list of column names", d.Defname)
			}
		case "force_not_null", "force_null":
			set := map[string]*bool{"force_not_null": &notNullSet, "force_null": &nullSet}[d.Defname]
			if *set {
				return nil, nil, conflict(d)
			}
			if d.Arg == nil || d.Arg.GetList() == nil && !(v17 && d.Arg.GetAStar() != nil) {
				return nil, nil, errf(codeInvalidParam, int(d.Location), "argument to option \"%s\" must be a list of column names", d.Defname)
			}
			*set = true
		case "encoding":
			if encodingSet {
				return nil, nil, conflict(d)
			}
			encodingSet = true
			s, err := defString(d)
			if err != nil {
				return nil, nil, err
			}
			enc, ok := pgEncodings[cleanEncodingName(s)]
			if !ok {
				return nil, nil, errf(codeInvalidParam, int(d.Location), "argument to option \"%s\" must be a valid encoding name", d.Defname)
			}
			client := "UTF8"
			if sess != nil {
				if c, ok := pgEncodings[cleanEncodingName(sess.settings["client_encoding"])]; ok {
					client = c
				}
			}
			if enc != client {
				return nil, nil, unsupported(-1, "COPY ENCODING '"+s+"' (sidecar writes COPY in the client encoding, "+client+")")
			}
		case "on_error":
			if v17 {
				return nil, nil, errf(codeInvalidParam, int(d.Location), "COPY ON_ERROR cannot be used with COPY TO")
			}
			return nil, nil, errf(codeSyntax, int(d.Location), "option \"%s\" not recognized", d.Defname)
		case "default", "log_verbosity", "reject_limit":
			if since := map[string]int{"default": 16, "log_verbosity": 17, "reject_limit": 18}[d.Defname]; major >= since {
				return nil, nil, unsupported(int(d.Location), "COPY option "+strings.ToUpper(d.Defname))
			}
			return nil, nil, errf(codeSyntax, int(d.Location), "option \"%s\" not recognized", d.Defname)
		default:
			return nil, nil, errf(codeSyntax, int(d.Location), "option \"%s\" not recognized", d.Defname)
		}
	}
	if o.format == copyBinary && delim != nil {
		return nil, nil, errf(codeSyntax, -1, "cannot specify DELIMITER in BINARY mode")
	}
	if o.format == copyBinary && null != nil {
		return nil, nil, errf(codeSyntax, -1, "cannot specify NULL in BINARY mode")
	}
	if major >= 15 && o.format == copyBinary && o.header {
		return nil, nil, errf(codeUnsupported, -1, "cannot specify HEADER in BINARY mode")
	}
	csv := o.format == copyCSV
	d := "\t"
	if csv {
		d = ","
	}
	if delim != nil {
		d = *delim
	}
	o.null = `\N`
	if csv {
		o.null = ""
	}
	if null != nil {
		o.null = *null
	}
	q, e := "", ""
	if csv {
		q = `"`
		if quote != nil {
			q = *quote
		}
		e = q
		if escape != nil {
			e = *escape
		}
	}
	if len(d) != 1 {
		return nil, nil, errf(codeUnsupported, -1, "COPY delimiter must be a single one-byte character")
	}
	o.delim = d[0]
	if o.delim == '\r' || o.delim == '\n' {
		return nil, nil, errf(codeInvalidParam, -1, "COPY delimiter cannot be newline or carriage return")
	}
	if strings.ContainsAny(o.null, "\r\n") {
		return nil, nil, errf(codeInvalidParam, -1, "COPY null representation cannot use newline or carriage return")
	}
	if !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, o.delim) >= 0 {
		return nil, nil, errf(codeInvalidParam, -1, "COPY delimiter cannot be \"%s\"", d)
	}
	if major > 0 && major < 15 && !csv && o.header {
		return nil, nil, errf(codeUnsupported, -1, "COPY HEADER available only in CSV mode")
	}
	if !csv && quote != nil {
		return nil, nil, csvOnly("QUOTE", "quote")
	}
	if csv && len(q) != 1 {
		return nil, nil, errf(codeUnsupported, -1, "COPY quote must be a single one-byte character")
	}
	if csv && o.delim == q[0] {
		return nil, nil, errf(codeInvalidParam, -1, "COPY delimiter and quote must be different")
	}
	if !csv && escape != nil {
		return nil, nil, csvOnly("ESCAPE", "escape")
	}
	if csv && len(e) != 1 {
		return nil, nil, errf(codeUnsupported, -1, "COPY escape must be a single one-byte character")
	}
	if !csv && (o.forceAll || force != nil) {
		return nil, nil, csvOnly("FORCE_QUOTE", "force quote")
	}
	if !csv && notNullSet {
		return nil, nil, csvOnly("FORCE_NOT_NULL", "force not null")
	}
	if notNullSet {
		return nil, nil, fromOnly("FORCE_NOT_NULL", "force not null")
	}
	if !csv && nullSet {
		return nil, nil, csvOnly("FORCE_NULL", "force null")
	}
	if nullSet {
		return nil, nil, fromOnly("FORCE_NULL", "force null")
	}
	if o.format != copyBinary && strings.IndexByte(o.null, o.delim) >= 0 {
		if v17 {
			return nil, nil, errf(codeInvalidParam, -1, "COPY delimiter character must not appear in the NULL specification")
		}
		return nil, nil, errf(codeUnsupported, -1, "COPY delimiter must not appear in the NULL specification")
	}
	if csv && strings.IndexByte(o.null, q[0]) >= 0 {
		code := codeUnsupported
		if v17 {
			code = codeInvalidParam
		}
		return nil, nil, errf(code, -1, "CSV quote character must not appear in the NULL specification")
	}
	if v17 && freeze {
		return nil, nil, errf(codeInvalidParam, -1, "COPY FREEZE cannot be used with COPY TO")
	}
	if csv {
		o.quote, o.escape = q[0], e[0]
	}
	return o, force, nil
}

// defString is PostgreSQL's defGetString: the option's argument as text.
func defString(d *pg.DefElem) (string, error) {
	a := d.Arg
	switch {
	case a == nil:
		return "", errf(codeSyntax, -1, "%s requires a parameter", d.Defname)
	case a.GetString_() != nil:
		return a.GetString_().Sval, nil
	case a.GetInteger() != nil:
		return strconv.Itoa(int(a.GetInteger().Ival)), nil
	case a.GetFloat() != nil:
		return a.GetFloat().Fval, nil
	case a.GetBoolean() != nil:
		if a.GetBoolean().Boolval {
			return "true", nil
		}
		return "false", nil
	case a.GetAStar() != nil:
		return "*", nil
	}
	return "", unsupported(-1, "this argument of COPY option "+d.Defname)
}

// defBool is PostgreSQL's defGetBoolean (with match: its
// defGetCopyHeaderChoice, "match" being for COPY FROM).
func defBool(d *pg.DefElem, match bool) (bool, error) {
	a := d.Arg
	bad := func() error {
		if match {
			return errf(codeSyntax, -1, "%s requires a Boolean value or \"match\"", d.Defname)
		}
		return errf(codeSyntax, -1, "%s requires a Boolean value", d.Defname)
	}
	switch {
	case a == nil:
		return true, nil
	case a.GetBoolean() != nil:
		return a.GetBoolean().Boolval, nil
	case a.GetInteger() != nil:
		switch a.GetInteger().Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
		return false, bad()
	}
	s, err := defString(d)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "on":
		return true, nil
	case "false", "off":
		return false, nil
	case "match":
		if match {
			return false, errf(codeUnsupported, -1, "cannot use \"%s\" with HEADER in COPY TO", s)
		}
	}
	return false, bad()
}

// cleanEncodingName is PostgreSQL's clean_encoding_name: lower case,
// letters and digits only.
func cleanEncodingName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pgEncodings maps PostgreSQL's encoding names (pg_encname_tbl, cleaned)
// to the encoding's canonical name.
var pgEncodings = func() map[string]string {
	m := map[string]string{
		"abc": "WIN1258", "alt": "WIN866", "big5": "BIG5", "euccn": "EUC_CN", "eucjis2004": "EUC_JIS_2004", "eucjp": "EUC_JP",
		"euckr": "EUC_KR", "euctw": "EUC_TW", "gb18030": "GB18030", "gbk": "GBK", "johab": "JOHAB", "koi8": "KOI8R", "koi8r": "KOI8R",
		"koi8u": "KOI8U", "mskanji": "SJIS", "muleinternal": "MULE_INTERNAL", "shiftjis": "SJIS", "shiftjis2004": "SHIFT_JIS_2004",
		"sjis": "SJIS", "sqlascii": "SQL_ASCII", "tcvn": "WIN1258", "tcvn5712": "WIN1258", "uhc": "UHC", "unicode": "UTF8", "utf8": "UTF8",
		"vscii": "WIN1258", "win": "WIN1251", "win866": "WIN866", "win874": "WIN874", "win932": "SJIS", "win936": "GBK", "win949": "UHC",
		"win950": "BIG5", "windows866": "WIN866", "windows874": "WIN874", "windows932": "SJIS", "windows936": "GBK", "windows949": "UHC",
		"windows950": "BIG5", "iso88595": "ISO_8859_5", "iso88596": "ISO_8859_6", "iso88597": "ISO_8859_7", "iso88598": "ISO_8859_8",
	}
	latin := map[string]string{"1": "LATIN1", "2": "LATIN2", "3": "LATIN3", "4": "LATIN4", "9": "LATIN5", "10": "LATIN6", "13": "LATIN7", "14": "LATIN8", "15": "LATIN9", "16": "LATIN10"}
	for n, l := range latin {
		m["iso8859"+n] = l
	}
	for i := 1; i <= 10; i++ {
		m["latin"+strconv.Itoa(i)] = "LATIN" + strconv.Itoa(i)
	}
	for i := 1250; i <= 1258; i++ {
		m["win"+strconv.Itoa(i)] = "WIN" + strconv.Itoa(i)
		m["windows"+strconv.Itoa(i)] = "WIN" + strconv.Itoa(i)
	}
	return m
}()
