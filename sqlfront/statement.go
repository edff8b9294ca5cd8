package sqlfront

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// rewriteAsOf removes every `AS OF 'ref'` (or `AS OF $n`) that follows a
// table name, which PostgreSQL's grammar rejects, replacing it with
// blanks so that every other position (error carets) stays where it was.
// It returns the rewritten text and the refs by the byte offset of their
// table name; a parameter's ref is asOfParam followed by its number.
func rewriteAsOf(query string) (string, map[int]string, error) {
	if !containsFold(query, "of") {
		return query, nil, nil
	}
	sr, err := pg.Scan(query)
	if err != nil {
		return query, nil, nil // the parser reports it
	}
	toks := sr.Tokens
	var refs map[int]string
	buf := []byte(query)
	for i := 1; i+2 < len(toks); i++ {
		if toks[i].Token != pg.Token_AS || toks[i+1].Token != pg.Token_OF || toks[i+2].Token != pg.Token_SCONST && toks[i+2].Token != pg.Token_PARAM {
			continue
		}
		start := i - 1
		for start >= 2 && toks[start-1].Token == pg.Token_ASCII_46 {
			start -= 2
		}
		lit := query[toks[i+2].Start:toks[i+2].End]
		var ref string
		switch {
		case toks[i+2].Token == pg.Token_PARAM:
			ref = asOfParam + lit[1:]
		case strings.HasPrefix(lit, "'"):
			ref = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
		default:
			return "", nil, errf(codeSyntax, int(toks[i+2].Start), "AS OF takes a plain string literal or a parameter, like AS OF 'HEAD~1' or AS OF $1")
		}
		if refs == nil {
			refs = map[int]string{}
		}
		refs[int(toks[start].Start)] = ref
		for j := toks[i].Start; j < toks[i+2].End; j++ {
			if buf[j] != '\n' {
				buf[j] = ' '
			}
		}
		i += 2
	}
	return string(buf), refs, nil
}

// asOfParam starts the ref of `AS OF $n` in rewriteAsOf's map: the ref
// is the n-th bound parameter, known at Bind.
const asOfParam = "\x00$"

// asOfParams returns the parameter numbers AS OF names in query.
func asOfParams(query string) []int {
	_, refs, err := rewriteAsOf(query)
	if err != nil {
		return nil
	}
	var ns []int
	for _, r := range refs {
		if n, ok := strings.CutPrefix(r, asOfParam); ok {
			if i, err := strconv.Atoi(n); err == nil && i > 0 {
				ns = append(ns, i)
			}
		}
	}
	return ns
}

func containsFold(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }

// parseError turns a parser error into 42601 with its position.
func parseError(err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) {
		pos := pe.Cursorpos - 1
		return &Error{Code: codeSyntax, Msg: pe.Message, Pos: pos}
	}
	return &Error{Code: codeSyntax, Msg: err.Error(), Pos: -1}
}

// planQuery parses query (one or more statements) and plans each.
func (s *session) planQuery(ctx context.Context, query string, paramTypes []uint32) ([]*plan, error) {
	return s.planQueryArgs(ctx, query, paramTypes, nil)
}

// planQueryArgs plans query; args, when given, are the bound parameters
// that `AS OF $n` refs are read from (without them such a table is
// planned at the statement's version, to describe the statement).
func (s *session) planQueryArgs(ctx context.Context, query string, paramTypes []uint32, args []Value) ([]*plan, error) {
	return s.planQueryFrom(ctx, query, paramTypes, args, 0, s.literalSettings())
}

// planQueryFrom plans query's statements from the from-th on (the ones
// before are nil): a simple query's statements after one that changed a
// setting are planned again under it (simpleQuery). The text is read
// under the string-literal settings lex (scs.go): PostgreSQL lexes a
// whole query string when it arrives, so a SET
// standard_conforming_strings in it changes only the strings of the
// queries after it.
func (s *session) planQueryFrom(ctx context.Context, query string, paramTypes []uint32, args []Value, from int, lex literalSettings) ([]*plan, error) {
	if p, err := partDescribePlan(query, s.srv.src.Tables(), serverVersion(s.srv.src.Tables())); p != nil || err != nil { // psql_partdescribe.go
		if err != nil {
			return nil, err
		}
		return []*plan{p}, s.cannedStyleRefusal(p)
	}
	if c := cannedFor(query); c != nil {
		p, err := cannedPlan(c, query, serverVersion(s.srv.src.Tables()))
		if err != nil {
			return nil, err
		}
		return []*plan{p}, s.cannedStyleRefusal(p) // datestyle.go
	}
	if p, err := jdbcCanned(query, s.srv.src.Tables()); err != nil {
		return nil, err
	} else if p != nil {
		return []*plan{p}, s.cannedStyleRefusal(p)
	}
	query, err := conformStrings(query, lex) // scs.go
	if err != nil {
		return nil, err
	}
	text, refs, err := rewriteAsOf(query)
	if err != nil {
		return nil, err
	}
	maxParam := 0
	for off, r := range refs {
		n, ok := strings.CutPrefix(r, asOfParam)
		if !ok {
			continue
		}
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > 65535 {
			return nil, errf(codeSyntax, -1, "AS OF $%s: no such parameter", n)
		}
		maxParam = max(maxParam, i)
		refs[off] = ""
		if i <= len(args) {
			ref, ok := args[i-1].(string)
			if !ok {
				return nil, errf(codeInvalidParam, -1, "AS OF $%d: the ref must be a non-NULL text value", i)
			}
			refs[off] = ref
		}
	}
	vnum := s.followedVersionNum()
	tree, err := parseSQL(text) // parsedepth.go
	if err != nil {
		var depth *Error
		if errors.As(err, &depth) {
			return nil, err
		}
		return nil, junkParseError(parseError(err), vnum) // numliteral.go
	}
	if err := checkNumericLiterals(text, vnum); err != nil {
		return nil, err
	}
	if len(tree.Stmts) == 0 {
		return []*plan{{kind: "empty"}}, nil
	}
	var plans []*plan
	for i, rs := range tree.Stmts {
		if i < from {
			plans = append(plans, nil)
			continue
		}
		pl := &planner{ctx: ctx, src: s.srv.src, sess: s, query: query, asOf: refs, params: append([]uint32(nil), paramTypes...), p: &plan{}}
		for _, prev := range tree.Stmts[from:i] {
			pl.afterSet = pl.afterSet || prev.Stmt.GetVariableSetStmt() != nil
		}
		if end := int(rs.StmtLocation + rs.StmtLen); rs.StmtLen > 0 && end <= len(text) && rs.StmtLocation >= 0 {
			pl.stmtText = text[rs.StmtLocation:end]
		} else {
			pl.stmtText = text[min(int(rs.StmtLocation), len(text)):]
		}
		for len(pl.params) < maxParam {
			pl.params = append(pl.params, 0) // AS OF $n: text unless typed
		}
		declared := append([]uint32(nil), pl.params...)
		if err := pl.statement(rs, text); err != nil {
			return nil, err
		}
		for i, t := range pl.params {
			if t == 0 {
				pl.params[i] = oidText
			}
		}
		pl.p.params = pl.params
		pl.p.markNeeded(len(pl.scope))
		for i := range pl.p.cols {
			if pl.p.vec == nil { // the engine's plan typed its columns (vexec.go: a reg column's type is not its text target's)
				pl.p.cols[i].typ = pl.p.targets[i].typ()
			}
		}
		if pl.p.kind == "select" && pl.p.vec == nil {
			pl.planEnumOuts() // enum_stale.go
		}
		if pl.p.kind == "select" && !pl.p.inherits() { // descendants: row by row (inherit.go)
			pl.planEngine() // after the parameters' types are fixed
			pl.planRows()
			pl.planDirect()
			pl.keyOrderRoute(rs.Stmt, declared)       // keyorder_route.go
			pl.evaluatorAggRoute(rs.Stmt, declared)   // aggroute.go
			pl.evaluatorOrderRoute(rs.Stmt, declared) // orderroute.go
			pl.evaluatorJoinRoute(rs.Stmt, declared)  // joinroute.go
		}
		if rs.Stmt.GetExplainStmt() != nil {
			pl.p = explainPlan(pl.p)
		}
		if d := rs.Stmt.GetDeclareCursorStmt(); d != nil {
			pl.p = declarePlan(d, pl.p)
		}
		if pl.p.copyOut != nil {
			pl.p = copyPlan(pl.p) // copyout.go
		}
		plans = append(plans, pl.p)
	}
	return plans, nil
}

// planSettings are the session settings a plan depends on besides the
// ones plans keys already (literal settings, TimeZone, extra_float_digits
// below 1): unqualified names resolve through search_path (also in
// regclass and the catalog functions), the session's as-of ref picks the
// version, DateStyle's field order reads date literals, bytea_output and
// IntervalStyle decide what sql/exec may print. A plan made under other
// values is another statement's: before, `SET search_path = s` and then
// `SELECT count(*) FROM things` reused the plan of public.things.
var planSettings = []string{"search_path", "sidecar.as_of", "datestyle", "bytea_output", "intervalstyle", "extra_float_digits"}

// planSettingsKey is the plan cache's prefix for the session's
// planSettings: empty while every one has its default value.
func (s *session) planSettingsKey() string {
	var b strings.Builder
	for _, name := range planSettings {
		v, ok := s.settings[name]
		if ok && v == sessionDefaults[name] {
			continue
		}
		b.WriteString("\x00")
		b.WriteString(name)
		if ok {
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("\x00")
	return b.String()
}

// readOnlyNames names statements refused with 25006.
var readOnlyNames = map[string]string{
	"InsertStmt": "INSERT", "UpdateStmt": "UPDATE", "DeleteStmt": "DELETE", "MergeStmt": "MERGE", "TruncateStmt": "TRUNCATE TABLE",
	"CreateStmt": "CREATE TABLE", "CreateTableAsStmt": "CREATE TABLE AS", "DropStmt": "DROP", "AlterTableStmt": "ALTER TABLE",
	"IndexStmt": "CREATE INDEX", "ViewStmt": "CREATE VIEW", "CreateSchemaStmt": "CREATE SCHEMA", "CreateSeqStmt": "CREATE SEQUENCE",
	"CreateFunctionStmt": "CREATE FUNCTION", "GrantStmt": "GRANT", "GrantRoleStmt": "GRANT", "CreateRoleStmt": "CREATE ROLE",
	"AlterRoleStmt": "ALTER ROLE", "DropRoleStmt": "DROP ROLE", "RenameStmt": "ALTER", "CommentStmt": "COMMENT", "VacuumStmt": "VACUUM",
	"CreatedbStmt": "CREATE DATABASE", "DropdbStmt": "DROP DATABASE", "LockStmt": "LOCK TABLE", "ReindexStmt": "REINDEX",
	"ClusterStmt": "CLUSTER", "CreateExtensionStmt": "CREATE EXTENSION", "AlterSeqStmt": "ALTER SEQUENCE", "CallStmt": "CALL",
	"DoStmt": "DO", "RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW", "CreateTrigStmt": "CREATE TRIGGER",
}

func (pl *planner) statement(rs *pg.RawStmt, text string) (err error) {
	defer func() { err = pl.opaqueError(err) }() // unknowntypes.go: 0A000 naming a type sidecar does not know
	n := rs.Stmt
	p := pl.p
	if err := pl.multirangeRefusal(n); err != nil {
		return err // rangecols.go
	}
	switch {
	case n.GetSelectStmt() != nil:
		declared := append([]uint32(nil), pl.params...)
		if err := pl.notCarriedRefusal(n); err != nil {
			return err // notcarried.go: generated columns
		}
		if err := pl.moneyLocaleRefusal(n); err != nil {
			return err // money_locale.go: money under another lc_monetary
		}
		if err := pl.unknownZoneRefusal(pl.stmtText); err != nil {
			return err // serverdefaults.go: a server zone sidecar cannot use
		}
		if readsCatalog(n) {
			return pl.planCatalog(n, declared) // pgcatalog_plan.go: on the engine
		}
		if err := pl.planSelect(n.GetSelectStmt()); err != nil {
			if e := pl.engineOrderError(n, declared, err); e != nil {
				return e // errorder.go: PostgreSQL's first error
			}
			return pl.planVectorized(n, declared, err) // vexec.go: sql/exec, or err
		}
		if pl.zoneRoutesToVec(text) { // timezone.go: local times on sql/exec
			return pl.planVectorized(n, declared, unsupported(-1, "this statement under TimeZone "+pl.sess.sessionZone().Name))
		}
		if pl.sess != nil {
			// The flat evaluator and its fast paths print every float in
			// the shortest form (extra_float_digits ≥ 1); below 1 only
			// sql/exec prints as PostgreSQL does (vexec_settings.go), or
			// refuses.
			if efd, ok := extraFloatDigits(pl.sess); !ok || efd < 1 {
				return pl.planVectorized(n, declared, unsupported(-1, "extra_float_digits < 1 in this statement"))
			}
		}
		return nil
	case n.GetTransactionStmt() != nil:
		ts := n.GetTransactionStmt()
		switch ts.Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
			p.kind, p.tag = "begin", "BEGIN"
			if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_START {
				p.tag = "START TRANSACTION" // PostgreSQL's tag
			}
			if l := beginIsolation(ts); l != "" { // isolation.go
				p.setVal = &l
			}
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
			p.kind, p.tag = "commit", "COMMIT"
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			p.kind, p.tag = "rollback", "ROLLBACK"
		case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
			p.kind, p.tag, p.setName = "savepoint", "SAVEPOINT", ts.SavepointName
		case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
			p.kind, p.tag, p.setName = "release", "RELEASE", ts.SavepointName
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
			p.kind, p.tag, p.setName = "rollback_to", "ROLLBACK", ts.SavepointName
		default:
			return unsupported(int(ts.Location), "two-phase commit")
		}
		return nil
	case n.GetVariableSetStmt() != nil:
		return pl.planSet(n.GetVariableSetStmt())
	case n.GetVariableShowStmt() != nil:
		name := strings.ToLower(n.GetVariableShowStmt().Name)
		p.kind, p.tag, p.setName = "show", "SHOW", name
		col := name
		if c, ok := settingNames[name]; ok {
			col = c // PostgreSQL names the column as the setting is spelled
		}
		p.cols = []outCol{{name: col, typ: oidText, typmod: -1}}
		p.targets = []expr{&constExpr{t: oidText}}
		if name == "all" { // as PostgreSQL: name, setting, description
			p.cols = []outCol{{name: "name", typ: oidText, typmod: -1}, {name: "setting", typ: oidText, typmod: -1}, {name: "description", typ: oidText, typmod: -1}}
			p.targets = []expr{&constExpr{t: oidText}, &constExpr{t: oidText}, &constExpr{t: oidText}}
		}
		return nil
	case n.GetDiscardStmt() != nil:
		switch n.GetDiscardStmt().Target {
		case pg.DiscardMode_DISCARD_ALL:
			p.kind, p.tag = "discard", "DISCARD ALL" // txsettings.go
		case pg.DiscardMode_DISCARD_PLANS:
			p.kind, p.tag = "noop", "DISCARD PLANS"
		case pg.DiscardMode_DISCARD_SEQUENCES:
			p.kind, p.tag = "noop", "DISCARD SEQUENCES"
		default:
			p.kind, p.tag = "noop", "DISCARD TEMP"
		}
		return nil
	case n.GetPrepareStmt() != nil:
		return pl.planPrepare(n.GetPrepareStmt()) // prepare_sql.go
	case n.GetExecuteStmt() != nil:
		return pl.planExecute(n.GetExecuteStmt())
	case n.GetDeallocateStmt() != nil:
		p.kind, p.tag, p.setName = "deallocate", "DEALLOCATE", n.GetDeallocateStmt().Name
		return nil
	case n.GetCopyStmt() != nil && !n.GetCopyStmt().IsFrom:
		return pl.planCopy(n.GetCopyStmt(), rs, text) // copyout.go
	case n.GetDeclareCursorStmt() != nil:
		return pl.planDeclare(n.GetDeclareCursorStmt())
	case n.GetFetchStmt() != nil:
		return pl.planFetch(n.GetFetchStmt())
	case n.GetClosePortalStmt() != nil:
		p.kind, p.tag, p.cursor = "close", "CLOSE CURSOR", &cursorSpec{name: n.GetClosePortalStmt().Portalname}
		return nil
	case n.GetExplainStmt() != nil:
		es := n.GetExplainStmt()
		if err := explainOptions(es); err != nil {
			return err
		}
		pl.explaining = true
		declared := append([]uint32(nil), pl.params...)
		if err := pl.notCarriedRefusal(es.Query); err != nil {
			return err
		}
		if err := pl.planSelect(es.Query.GetSelectStmt()); err != nil {
			return pl.planVectorized(es.Query, declared, err) // explain.go prints sql/exec's plan
		}
		return nil
	}
	m := nodeMsg(n)
	name := ""
	if m != nil {
		name = string(m.Descriptor().Name())
	}
	if cmd, ok := readOnlyNames[name]; ok || name == "CopyStmt" {
		if name == "CopyStmt" {
			cmd = "COPY FROM"
		}
		return (&Error{Code: codeReadOnly, Pos: -1, Msg: "cannot execute " + cmd + " in a read-only transaction"}).
			hint("sidecar is a read-only mirror; write to the PostgreSQL server it follows")
	}
	stmtText := strings.TrimSpace(text[rs.StmtLocation:])
	if f := strings.Fields(stmtText); len(f) > 0 {
		name = strings.ToUpper(f[0])
	}
	return unsupported(int(rs.StmtLocation), "the statement "+name)
}

func (pl *planner) planSet(vs *pg.VariableSetStmt) error {
	p := pl.p
	p.kind, p.tag = "set", "SET"
	p.setName = strings.ToLower(vs.Name)
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		var parts []string
		for _, a := range vs.Args {
			if z, ok, err := timeZoneSetValue(a); ok || err != nil { // timezone.go
				if err != nil || p.setName != "timezone" {
					return unsupported(nodeLoc(a), "this SET value")
				}
				parts = append(parts, z)
				continue
			}
			c := a.GetAConst()
			if c == nil {
				return unsupported(nodeLoc(a), "this SET value")
			}
			e, err := constOf(c)
			if err != nil {
				return err
			}
			s, _ := render(e.(*constExpr).v, 0)
			parts = append(parts, s)
		}
		v := strings.Join(parts, ", ")
		p.setVal = &v
	case pg.VariableSetKind_VAR_SET_DEFAULT:
	case pg.VariableSetKind_VAR_RESET:
		p.tag = "RESET"
	case pg.VariableSetKind_VAR_RESET_ALL:
		p.setName, p.tag = "all", "RESET"
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION / SESSION CHARACTERISTICS: accept READ ONLY.
		p.kind, p.setName = "noop", ""
		if strings.Contains(strings.ToLower(vs.Name), "transaction") {
			for _, a := range vs.Args {
				if de := a.GetDefElem(); de != nil && de.Defname == "transaction_read_only" {
					if c := de.Arg.GetAConst(); c != nil && c.GetIval() != nil && c.GetIval().Ival == 0 {
						return errf(codeReadOnly, -1, "cannot set transaction read-write mode: sidecar is read-only")
					}
				}
			}
		}
		if name, level := isolationSetName(vs); level != "" { // isolation.go: honoured, not ignored
			p.kind, p.setName, p.setVal = "set", name, &level
		}
	default:
		return unsupported(pl.kwPos("SET"), "this SET")
	}
	if vs.IsLocal {
		if p.kind != "set" {
			return unsupported(pl.kwPos("LOCAL"), "this SET LOCAL")
		}
		p.setLocal = true // txsettings.go
	}
	return nil
}

// planCache keeps plans by statement text and parameter types; a cached
// plan is revalidated against the schemas of the tables it reads.
type planCache struct {
	mu sync.Mutex
	m  map[string][]*plan
}

const planCacheSize = 4096

func cacheKey(query string, types []uint32) string {
	if len(types) == 0 {
		return query
	}
	var b strings.Builder
	b.WriteString(query)
	b.WriteByte(0)
	for _, t := range types {
		b.WriteString(strings.Repeat(" ", 0))
		b.WriteByte(byte(t >> 24))
		b.WriteByte(byte(t >> 16))
		b.WriteByte(byte(t >> 8))
		b.WriteByte(byte(t))
	}
	return b.String()
}

func (c *planCache) get(key string) []*plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *planCache) put(key string, ps []*plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= planCacheSize {
		c.m = map[string][]*plan{}
	}
	c.m[key] = ps
}

// planKeyPrefix names every session setting a plan depends on, with its
// value: the plan cache's key prefix, and what a prepared statement
// compares to know it was planned under other settings (bindPlan).
func (s *session) planKeyPrefix() string {
	var key string
	if ls := s.literalSettings(); ls.nonStandard || ls.noBackslashQ {
		key = ls.cachePrefix() // the same text means another statement (scs.go)
	}
	if s.zoneUnknown != "" {
		// A server zone the session cannot use refuses what UTC plans
		// answer (serverdefaults.go): not another session's plans.
		key = "\x00TimeZoneUnknown=" + s.zoneUnknown + "\x00" + key
	}
	if z := s.sessionZone(); !z.IsUTC() {
		// Outside UTC a statement may be planned for sql/exec where UTC
		// plans it flat (zoneRoutesToVec), and literals read local
		// times: a plan made under one zone is not another zone's.
		key = "\x00TimeZone=" + z.Name + "\x00" + key
	}
	if efd, ok := extraFloatDigits(s); !ok || efd < 1 {
		// Below 1 a SELECT is planned for sql/exec where it is planned
		// flat otherwise (statement), and prints its floats under it.
		key = "\x00extra_float_digits=" + s.settings["extra_float_digits"] + "\x00" + key
	}
	if lc := s.settings["lc_monetary"]; !moneyLocaleOK(lc) {
		// Statements over money are refused under it (money_locale.go).
		key = "\x00lc_monetary=" + lc + "\x00" + key
	}
	if v := s.followedVersionNum(); v != 0 {
		// A plan binds the followed major's function library and literal
		// dialect (vexec_funcreg.go, numliteral.go): after the followed
		// server is upgraded the same text is another major's statement.
		key = "\x00major=" + strconv.Itoa(v/10000) + "\x00" + key
	}
	// The engine's plans hold current_database() and current_user as
	// the planning session's (vexec_session.go): another session's
	// database or user is another statement.
	key = "\x00db=" + s.database + "\x00user=" + s.user + "\x00" + key
	return s.planSettingsKey() + key
}

// plans returns the plans of query, from the cache when they are there.
func (s *session) plans(ctx context.Context, query string, types []uint32) ([]*plan, error) {
	key := s.planKeyPrefix() + cacheKey(query, types)
	if ps := s.srv.cache.get(key); ps != nil && s.plansCurrent(ctx, ps) {
		return ps, nil
	}
	ps, err := s.planQuery(ctx, query, types)
	if err != nil {
		return nil, err
	}
	cacheable := true
	for _, p := range ps {
		for _, it := range p.from {
			cacheable = cacheable && it.asOf == ""
		}
		cacheable = cacheable && !p.sessionBound
	}
	if cacheable {
		s.srv.cache.put(key, ps)
	}
	return ps, nil
}
