package sqlfront

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
	"github.com/sidecar-dev/sidecar/types"
)

// SQL-level prepared statements: PREPARE name [(types)] AS statement,
// EXECUTE name [(arguments)] and DEALLOCATE [PREPARE] name | ALL, as
// PostgreSQL runs them. They share one namespace with the protocol's
// named statements (Parse), as in PostgreSQL: EXECUTE runs a statement
// a driver prepared, DEALLOCATE drops one, and Bind finds one PREPARE
// made. The statement is planned when PREPARE runs (not when the
// query holding it is planned: `PREPARE p AS …; EXECUTE p` is one
// simple query) and again when a setting it depends on changed, like a
// Parse'd statement (revalidate). EXECUTE's arguments are coerced to
// the parameters' types in PostgreSQL's assignment context: an untyped
// literal by the type's input, another type only through an implicit
// or assignment cast (42804 otherwise). A statement the port refuses as
// a write (INSERT, UPDATE, …: 25006) is prepared and fails at EXECUTE,
// as on a read-only standby.

// sqlPrepare is a PREPARE's or an EXECUTE's planned form.
type sqlPrepare struct {
	name string
	// PREPARE: the statement's text and its declared parameter types.
	query string
	types []uint32
	// EXECUTE: the arguments' texts (deparsed), untyped marks an untyped
	// literal (a string constant or NULL), pos each one's location.
	args    []string
	untyped []bool
	pos     []int
}

// planPrepare plans PREPARE: its name, declared types and statement text
// (from the AS keyword's end on).
func (pl *planner) planPrepare(ps *pg.PrepareStmt) error {
	p := pl.p
	p.kind, p.tag = "prepare", "PREPARE"
	if len(pl.asOf) > 0 {
		return unsupported(-1, "PREPARE in a query with AS OF")
	}
	sp := &sqlPrepare{name: ps.Name}
	for _, a := range ps.Argtypes {
		tn := a.GetTypeName()
		if tn == nil {
			return unsupported(nodeLoc(a), "this PREPARE parameter type")
		}
		oid, _, err := pl.typeOIDOf(tn)
		if err != nil {
			return err
		}
		sp.types = append(sp.types, oid)
	}
	q, err := preparedText(pl.stmtText)
	if err != nil {
		return err
	}
	sp.query = q
	p.sqlPrep = sp
	return nil
}

// preparedText is the statement of a PREPARE's text: what follows its
// first AS keyword outside parentheses.
func preparedText(stmt string) (string, error) {
	res, err := pg.Scan(stmt)
	if err != nil {
		return "", parseError(err)
	}
	depth := 0
	for _, t := range res.Tokens {
		switch t.Token {
		case pg.Token_ASCII_40: // (
			depth++
		case pg.Token_ASCII_41: // )
			depth--
		case pg.Token_AS:
			if depth == 0 {
				return strings.TrimSpace(stmt[t.End:]), nil
			}
		}
	}
	return "", unsupported(-1, "this PREPARE")
}

// planExecute plans EXECUTE: its name and arguments, resolved when it
// runs (sqlExecute).
func (pl *planner) planExecute(es *pg.ExecuteStmt) error {
	p := pl.p
	p.kind, p.tag = "execute", "EXECUTE"
	sp := &sqlPrepare{name: es.Name}
	texts, err := executeArgs(pl.stmtText)
	if err != nil {
		return err
	}
	if len(texts) != len(es.Params) {
		return unsupported(-1, "these EXECUTE arguments")
	}
	for i, a := range es.Params {
		if hasParamRef(a) {
			return unsupported(nodeLoc(a), "a parameter in EXECUTE's arguments")
		}
		c := a.GetAConst()
		sp.args = append(sp.args, texts[i])
		sp.untyped = append(sp.untyped, c != nil && (c.Isnull || c.GetSval() != nil))
		sp.pos = append(sp.pos, leftLoc(a))
	}
	p.sqlPrep = sp
	return nil
}

// leftLoc is an argument's location as PostgreSQL's exprLocation gives
// it: a cast's is its operand's when that comes first ('2'::text).
func leftLoc(n *pg.Node) int {
	if tc := n.GetTypeCast(); tc != nil && tc.Arg != nil {
		if l := leftLoc(tc.Arg); l >= 0 && (l < int(tc.Location) || tc.Location < 0) {
			return l
		}
	}
	return nodeLoc(n)
}

// executeArgs are the texts of an EXECUTE's arguments: between its first
// parenthesis and the matching one, split at the commas outside nested
// parentheses and brackets.
func executeArgs(stmt string) ([]string, error) {
	res, err := pg.Scan(stmt)
	if err != nil {
		return nil, parseError(err)
	}
	var out []string
	depth, start := 0, -1
	for _, t := range res.Tokens {
		switch t.Token {
		case pg.Token_ASCII_40, pg.Token_ASCII_91: // ( [
			depth++
			if depth == 1 {
				start = int(t.End)
			}
		case pg.Token_ASCII_41, pg.Token_ASCII_93: // ) ]
			depth--
			if depth == 0 && start >= 0 {
				return append(out, strings.TrimSpace(stmt[start:t.Start])), nil
			}
		case pg.Token_ASCII_44: // ,
			if depth == 1 {
				out = append(out, strings.TrimSpace(stmt[start:t.Start]))
				start = int(t.End)
			}
		}
	}
	return nil, nil // no arguments
}

// hasParamRef says whether n holds a $n parameter.
func hasParamRef(n *pg.Node) bool {
	found := false
	pgast.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if _, ok := m.Interface().(*pg.ParamRef); ok {
			found = true
		}
		return !found
	})
	return found
}

// runPrepare runs PREPARE: plans the statement and keeps it by name.
func (s *session) runPrepare(ctx context.Context, p *plan) error {
	sp := p.sqlPrep
	if _, ok := s.prepared[sp.name]; ok {
		return errf(codeDupPrepared, -1, "prepared statement \"%s\" already exists", sp.name)
	}
	ps := &prepared{query: sp.query, types: sp.types, asOfParam: len(asOfParams(sp.query)) > 0, settings: s.planKeyPrefix(), fromSQL: true}
	var plans []*plan
	var err error
	if ps.asOfParam {
		plans, err = s.planQuery(ctx, sp.query, sp.types)
	} else {
		plans, err = s.plans(ctx, sp.query, sp.types)
	}
	if e, ok := err.(*Error); ok && e.Code == codeReadOnly {
		// A write: PostgreSQL prepares it; EXECUTE fails.
		plans, err, ps.err = []*plan{{kind: "noop", tag: "EXECUTE"}}, nil, e
	}
	if err = s.ctxError(ctx, err); err != nil {
		return err
	}
	if len(plans) != 1 || plans[0] == nil || plans[0].kind == "prepare" || plans[0].kind == "execute" {
		return unsupported(-1, "this PREPARE")
	}
	ps.plan = plans[0]
	if err := s.keepPrepared(sp.name, ps); err != nil {
		return err
	}
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("PREPARE")})
	return nil
}

// sqlExecute resolves EXECUTE p: the prepared statement (revalidated)
// and its arguments as the parameters' values.
func (s *session) sqlExecute(ctx context.Context, p *plan) (*prepared, []Value, error) {
	sp := p.sqlPrep
	ps, ok := s.prepared[sp.name]
	if !ok || sp.name == "" {
		return nil, nil, errf(codeNoPrepared, -1, "prepared statement \"%s\" does not exist", sp.name)
	}
	if ps.err != nil {
		return nil, nil, ps.err
	}
	if err := s.revalidate(ctx, ps); err != nil {
		return nil, nil, err
	}
	want := ps.plan.params
	if len(sp.args) != len(want) {
		return nil, nil, &Error{Code: codeSyntax, Pos: -1, Msg: "wrong number of parameters for prepared statement \"" + sp.name + "\"",
			Detail: "Expected " + strconv.Itoa(len(want)) + " parameters but got " + strconv.Itoa(len(sp.args)) + "."}
	}
	if len(want) == 0 {
		return ps, nil, nil
	}
	// The arguments' types, then their values coerced.
	plans, err := s.planQuery(ctx, "SELECT "+strings.Join(sp.args, ", "), nil)
	if err != nil {
		return nil, nil, err
	}
	for i := range sp.args {
		from := plans[0].cols[i].typ
		if !sp.untyped[i] && from != want[i] && types.CastContext(from, want[i]) < types.CastAssignment {
			return nil, nil, errf(codeDatatype, sp.pos[i], "parameter $%d of type %s cannot be coerced to the expected type %s", i+1, typeName(from), typeName(want[i])).
				hint("You will need to rewrite or cast the expression.")
		}
	}
	vals := make([]Value, len(want))
	for i, a := range sp.args {
		if name := typname(want[i]); typeNames[name] != want[i] || name == "char" {
			return nil, nil, unsupported(sp.pos[i], "an EXECUTE argument of type "+typeName(want[i]))
		}
		v, err := s.executeArg(ctx, "SELECT CAST(("+a+") AS pg_catalog."+typname(want[i])+")", want[i])
		if e, ok := err.(*Error); ok && e.Pos >= 0 {
			e.Pos = sp.pos[i] // PostgreSQL points at the argument
		}
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	return ps, vals, nil
}

// executeArg is the value of a one-column, one-row query of type t, as
// the evaluator holds a bound parameter's.
func (s *session) executeArg(ctx context.Context, q string, t uint32) (Value, error) {
	plans, err := s.planQuery(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	var row []Value
	ex := &execCtx{ctx: ctx, src: s.srv.src, sess: s}
	if err := plans[0].run(ex, func(r []Value) error {
		row = append([]Value(nil), r...)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(row) != 1 {
		return nil, unsupported(-1, "this EXECUTE argument")
	}
	// A statement run on sql/exec emits its values as output cells
	// (vexec.go): read as a parameter's text is (an EXECUTE of a bytea or
	// jsonb argument handed the cell to the statement's functions, which
	// panicked on it and closed the connection).
	switch c := row[0].(type) {
	case storedText:
		if c.s == nil {
			return nil, nil
		}
		return paramAs(t, *c.s)
	case engineCell:
		return paramAs(t, c.plainText())
	}
	return row[0], nil
}

// deallocate runs DEALLOCATE name (26000 when there is none) and
// DEALLOCATE ALL (name ""): every named statement, PREPARE's and the
// protocol's; the unnamed one stays, as in PostgreSQL.
func (s *session) deallocate(name string) error {
	if name == "" {
		s.dropAllPrepared()
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("DEALLOCATE ALL")})
		return nil
	}
	if _, ok := s.prepared[name]; !ok {
		return errf(codeNoPrepared, -1, "prepared statement \"%s\" does not exist", name)
	}
	s.dropPrepared(name)
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("DEALLOCATE")})
	return nil
}

// dropAllPrepared drops every named prepared statement (DEALLOCATE ALL,
// DISCARD ALL), keeping the unnamed one.
func (s *session) dropAllPrepared() {
	for name := range s.prepared {
		if name != "" {
			s.dropPrepared(name)
		}
	}
}
