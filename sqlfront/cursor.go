package sqlfront

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/membudget"
)

// Server-side cursors (DECLARE, FETCH, MOVE, CLOSE), as psycopg's named
// cursors and JDBC fetch sizes use them. A cursor's rows are those of its
// statement at DECLARE: the query runs then, at the statement's (or the
// transaction's) version, and FETCH hands out its rows in order — so a
// WITH HOLD cursor reads after COMMIT exactly what it read inside. Only
// forward fetching is supported (PostgreSQL's NO SCROLL); the rows not yet
// fetched are held in memory, charged to memory.query (the pool the
// statements' working memory draws from) until they are fetched or the
// cursor is closed: a cursor whose rows would pass it is refused at
// DECLARE with 53200 instead of growing the process.

// cursorSpec is a DECLARE, FETCH/MOVE or CLOSE statement.
type cursorSpec struct {
	name   string // "" with CLOSE: CLOSE ALL
	hold   bool
	binary bool
	query  *plan // DECLARE: the select
	count  int64 // FETCH/MOVE: rows (-1: ALL)
	move   bool
}

// cursor is a declared cursor: its rows not yet fetched.
type cursor struct {
	plan  *plan
	rows  [][]Value
	hold  bool
	inTx  bool // declared in the current transaction (ROLLBACK drops it)
	fmts  []int16
	count int // rows fetched so far
	// mem holds the bytes of rows (valuesBytes each) in the query pool.
	mem *membudget.Account
	// charged is counted in *kept, the session's share (portalbound.go).
	kept    *int64
	charged int64
}

// drop closes the cursor: its rows' memory goes back to the pool.
func (c *cursor) drop() {
	c.rows = nil
	c.mem.Close()
	c.uncharge()
}

// consume removes the first n rows, giving their memory back.
func (c *cursor) consume(n int) {
	c.rows = releaseHeld(c.rows, n, c.mem.Shrink)
}

// releaseHeld drops the first n of a cursor's or portal's held rows and
// gives their charge (cursorRowBytes each) back through shrink.
func releaseHeld(rows [][]Value, n int, shrink func(int64)) [][]Value {
	var b int64
	for i := range rows[:n] {
		b += cursorRowBytes(rows[i])
		rows[i] = nil // the backing array outlives the reslice
	}
	shrink(b)
	return rows[n:]
}

// cursorRowBytes is what one buffered row is charged: its values and its
// slot in the cursor's slice.
func cursorRowBytes(row []Value) int64 { return valuesBytes(row) + 24 }

// closeCursors closes every cursor of the session (it ends).
func (s *session) closeCursors() {
	for name, c := range s.cursors {
		c.drop()
		delete(s.cursors, name)
	}
}

// cursorMemError is the 53200 refusal of a cursor whose rows would pass
// memory.query.
func cursorMemError(name string, err error) error {
	var me *membudget.ExceededError
	if !errors.As(err, &me) {
		return err
	}
	return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
		Detail: fmt.Sprintf("cursor \"%s\" holds its rows in memory until they are fetched: %s", name, me.Error()),
		Hint:   "A cursor's rows are bounded by memory.query (shared by the running statements and open cursors); raise it in the sidecar's config, or narrow the cursor's query."}
}

const (
	cursorOptBinary = 0x1  // CURSOR_OPT_BINARY
	cursorOptScroll = 0x2  // CURSOR_OPT_SCROLL
	cursorOptHold   = 0x20 // CURSOR_OPT_HOLD
)

// planDeclare plans DECLARE name CURSOR FOR select.
func (pl *planner) planDeclare(d *pg.DeclareCursorStmt) error {
	if d.Options&cursorOptScroll != 0 {
		return unsupported(pl.kwPos("SCROLL"), "SCROLL cursors").hint("sidecar's cursors fetch forward only (NO SCROLL)")
	}
	sel := d.Query.GetSelectStmt()
	if sel == nil {
		return unsupported(nodeLoc(d.Query), "a cursor over a statement other than SELECT")
	}
	if err := pl.notCarriedRefusal(d.Query); err != nil {
		return err // notcarried.go
	}
	if readsCatalog(d.Query) {
		// The catalog runs on the engine (pgcatalog_plan.go); the flat
		// planner's pg_database had two of its columns (issue 21 audit).
		return unsupported(nodeLoc(d.Query), "a cursor over a catalog relation")
	}
	return pl.planSelect(sel)
}

// declarePlan wraps a planned select as DECLARE's plan.
func declarePlan(d *pg.DeclareCursorStmt, sel *plan) *plan {
	return &plan{kind: "declare", tag: "DECLARE CURSOR", params: sel.params, cursor: &cursorSpec{name: d.Portalname,
		hold: d.Options&cursorOptHold != 0, binary: d.Options&cursorOptBinary != 0, query: sel}}
}

// planFetch plans FETCH or MOVE.
func (pl *planner) planFetch(f *pg.FetchStmt) error {
	p := pl.p
	n := f.HowMany
	switch f.Direction {
	case pg.FetchDirection_FETCH_FORWARD:
	case pg.FetchDirection_FETCH_BACKWARD:
		return errf("55000", -1, "cursor can only scan forward").hint("sidecar's cursors are NO SCROLL")
	default:
		return unsupported(-1, "FETCH ABSOLUTE, RELATIVE, FIRST and LAST").hint("sidecar's cursors fetch forward only: FETCH [FORWARD] n | ALL")
	}
	if n == 0x7FFFFFFFFFFFFFFF || n < 0 {
		n = -1
	}
	p.kind, p.tag = "fetch", "FETCH"
	if f.Ismove {
		p.tag = "MOVE"
	}
	p.cursor = &cursorSpec{name: f.Portalname, count: n, move: f.Ismove}
	return nil
}

// runCursor runs DECLARE, FETCH, MOVE and CLOSE.
func (s *session) runCursor(ctx context.Context, p *plan, params []Value, formats []int16, describe bool) error {
	c := p.cursor
	switch p.kind {
	case "declare":
		if !c.hold && s.tx == 'I' {
			return errf("25P01", -1, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, ok := s.cursors[c.name]; ok {
			return errf(codeDupCursor, -1, "cursor \"%s\" already exists", c.name)
		}
		if err := s.chargeKept("cursor", c.name, cursorBytes); err != nil { // portalbound.go
			return err
		}
		cur := &cursor{plan: c.query, hold: c.hold, inTx: s.tx != 'I', mem: membudget.NewAccount(s.srv.opts.QueryMemory), kept: &s.prepBytes, charged: cursorBytes}
		if c.binary {
			cur.fmts = []int16{1}
		}
		ex := &execCtx{ctx: ctx, src: s.srv.src, sess: s, params: params}
		if err := c.query.run(ex, func(row []Value) error {
			if err := cur.mem.Grow(cursorRowBytes(row)); err != nil {
				return cursorMemError(c.name, err)
			}
			cur.rows = append(cur.rows, append([]Value(nil), row...))
			return nil
		}); err != nil {
			cur.drop()
			return err
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		s.cursors[c.name] = cur
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("DECLARE CURSOR")})
		return nil
	case "close":
		if c.name == "" {
			s.closeCursors()
		} else if cur, ok := s.cursors[c.name]; !ok {
			return errf(codeNoCursor, -1, "cursor \"%s\" does not exist", c.name)
		} else {
			cur.drop()
		}
		delete(s.cursors, c.name)
		tag := "CLOSE CURSOR"
		if c.name == "" {
			tag = "CLOSE CURSOR ALL"
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		return nil
	}
	cur, ok := s.cursors[c.name]
	if !ok {
		return errf(codeNoCursor, -1, "cursor \"%s\" does not exist", c.name)
	}
	n := len(cur.rows)
	if c.count >= 0 && int64(n) > c.count {
		n = int(c.count)
	}
	if c.move {
		cur.consume(n)
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("MOVE " + strconv.Itoa(n))})
		return nil
	}
	if len(cur.fmts) > 0 {
		formats = cur.fmts
	}
	if describe {
		s.be.Send(s.rowDescription(cur.plan, formats))
	}
	enc := s.encoder(cur.plan, formats)
	for _, row := range cur.rows[:n] {
		vals, err := enc(row)
		if err != nil {
			return err
		}
		s.sendRow(vals)
	}
	cur.consume(n)
	s.srv.met.rows.Add(float64(n))
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("FETCH " + strconv.Itoa(n))})
	return nil
}

// endTx drops the cursors a transaction's end closes: at COMMIT those
// without HOLD, at ROLLBACK also those declared in it; and the named
// portals.
func (s *session) endTx(commit bool) {
	s.closeNamedPortals() // portalbound.go
	for name, c := range s.cursors {
		if !c.hold || !commit && c.inTx {
			c.drop()
			delete(s.cursors, name)
			continue
		}
		c.inTx = false
	}
}

// cursorDescription is the RowDescription of a cursor (Describe of a
// portal named as a cursor, as psycopg sends after DECLARE), or nil.
func (s *session) cursorDescription(name string) *pgproto3.RowDescription {
	c, ok := s.cursors[name]
	if !ok {
		return nil
	}
	return s.rowDescription(c.plan, c.fmts)
}
