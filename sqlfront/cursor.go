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
// transaction's) version, and FETCH hands out its rows — so a WITH HOLD
// cursor reads after COMMIT exactly what it read inside. The rows are held
// in memory, charged to memory.query (the pool the statements' working
// memory draws from) until they can no longer be fetched or the cursor is
// closed: a cursor whose rows would pass it is refused at DECLARE with
// 53200 instead of growing the process.
//
// FETCH and MOVE follow PostgreSQL's portal (DoPortalRunFetch and
// PortalRunSelect in tcop/pquery.c, ported in cursorfetch.go): every
// direction (NEXT, PRIOR, FIRST, LAST, ABSOLUTE, RELATIVE, FORWARD,
// BACKWARD, counts and ALL) moves the same position with the same result
// and tag. A SCROLL cursor keeps all its rows; a cursor that cannot move
// backward gives each row back once passed. Whether a cursor declared
// without SCROLL or NO SCROLL may move backward is PostgreSQL's plan's
// (ExecSupportsBackwardScan): cursorScroll decides it where the plan is
// certain, and a backward move of a cursor whose plan is not known is
// refused with 0A000 rather than answered where PostgreSQL would fail.

// cursorSpec is a DECLARE, FETCH/MOVE or CLOSE statement.
type cursorSpec struct {
	name   string // "" with CLOSE: CLOSE ALL
	hold   bool
	binary bool
	query  *plan // DECLARE: the select
	scroll scrollMode
	dir    pg.FetchDirection // FETCH/MOVE
	count  int64             // FETCH/MOVE: howMany (fetchAll: ALL)
	move   bool
}

// cursor is a declared cursor: its rows and its position.
type cursor struct {
	plan *plan
	// rows are the rows still reachable: row number base+1+i is rows[i]
	// (a cursor that cannot move backward drops the rows it passed).
	rows   [][]Value
	base   int
	total  int // rows of the query
	scroll scrollMode
	// rewindAny: the followed server rewinds a cursor that cannot move
	// backward (PostgreSQL before 15: DoPortalRewind had no NO SCROLL
	// check, ExecutorRewind ran the plan again at the cursor's snapshot,
	// its rows): FETCH FIRST, ABSOLUTE behind the position and MOVE
	// BACKWARD ALL answer, so every row is kept.
	rewindAny bool
	pos       portalPos
	hold      bool
	inTx      bool // declared in the current transaction (ROLLBACK drops it)
	fmts      []int16
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

// row is row number k (1-based) of the query.
func (c *cursor) row(k int) []Value { return c.rows[k-1-c.base] }

// release drops the rows a cursor that cannot move backward has passed
// (up to and including the one it stands on), giving their memory back.
func (c *cursor) release() {
	if c.scroll == scrollYes || c.rewindAny {
		return
	}
	n := min(c.pos.at, c.total) - c.base
	if n <= 0 {
		return
	}
	c.rows = releaseHeld(c.rows, n, c.mem.Shrink)
	c.base += n
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
	cursorOptBinary   = 0x1  // CURSOR_OPT_BINARY
	cursorOptScroll   = 0x2  // CURSOR_OPT_SCROLL
	cursorOptNoScroll = 0x4  // CURSOR_OPT_NO_SCROLL
	cursorOptHold     = 0x20 // CURSOR_OPT_HOLD
)

// planDeclare plans DECLARE name CURSOR FOR select.
func (pl *planner) planDeclare(d *pg.DeclareCursorStmt) error {
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
		hold: d.Options&cursorOptHold != 0, binary: d.Options&cursorOptBinary != 0, query: sel,
		scroll: cursorScroll(d, sel)}} // cursorscroll.go
}

// planFetch plans FETCH or MOVE.
func (pl *planner) planFetch(f *pg.FetchStmt) error {
	p := pl.p
	switch f.Direction {
	case pg.FetchDirection_FETCH_FORWARD, pg.FetchDirection_FETCH_BACKWARD, pg.FetchDirection_FETCH_ABSOLUTE, pg.FetchDirection_FETCH_RELATIVE:
	default:
		return unsupported(-1, "this FETCH direction")
	}
	p.kind, p.tag = "fetch", "FETCH"
	if f.Ismove {
		p.tag = "MOVE"
	}
	p.cursor = &cursorSpec{name: f.Portalname, dir: f.Direction, count: f.HowMany, move: f.Ismove}
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
		major := s.followedVersionNum() / 10000
		cur := &cursor{plan: c.query, scroll: c.scroll, rewindAny: major > 0 && major < 15, pos: startPos(), hold: c.hold, inTx: s.tx != 'I',
			mem: membudget.NewAccount(s.srv.opts.QueryMemory), kept: &s.prepBytes, charged: cursorBytes}
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
		cur.total = len(cur.rows)
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
	if c.move {
		n, err := cur.fetch(c.dir, c.count, nil)
		if err != nil {
			s.dropCursor(c.name, cur)
			return err
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("MOVE " + strconv.FormatInt(n, 10))})
		return nil
	}
	if len(cur.fmts) > 0 {
		formats = cur.fmts
	}
	if describe {
		s.be.Send(s.rowDescription(cur.plan, formats))
	}
	enc := s.encoder(cur.plan, formats)
	n, err := cur.fetch(c.dir, c.count, func(row []Value) error {
		vals, err := enc(row)
		if err != nil {
			return err
		}
		s.sendRow(vals)
		return nil
	})
	if err != nil {
		// PostgreSQL marks the portal failed: the cursor is gone, a
		// WITH HOLD one included.
		s.dropCursor(c.name, cur)
		return err
	}
	s.srv.met.rows.Add(float64(n))
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("FETCH " + strconv.FormatInt(n, 10))})
	return nil
}

// dropCursor closes the cursor name after a FETCH or MOVE failed in it.
func (s *session) dropCursor(name string, cur *cursor) {
	cur.drop()
	delete(s.cursors, name)
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
