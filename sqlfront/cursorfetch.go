package sqlfront

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// FETCH and MOVE over a cursor's rows, ported from PostgreSQL's portal
// (DoPortalRunFetch, PortalRunSelect and DoPortalRewind in
// src/backend/tcop/pquery.c) so that every direction and count leaves the
// cursor where PostgreSQL's does and reports the same row count: the
// portal's bookkeeping (atStart, atEnd, portalPos) is kept as PostgreSQL
// keeps it, beside the row the scan stands on.

// fetchAll is FetchStmt.howMany for ALL (FETCH_ALL, LONG_MAX).
const fetchAll = int64(^uint64(0) >> 1)

// scrollMode says whether a cursor may move backward.
type scrollMode uint8

const (
	// scrollNo: NO SCROLL, or a plan PostgreSQL cannot run backward: a
	// backward move fails with 55000 as PostgreSQL's does.
	scrollNo scrollMode = iota
	// scrollYes: SCROLL, or a plan PostgreSQL runs backward.
	scrollYes
	// scrollUnknown: declared without SCROLL or NO SCROLL, over a plan
	// PostgreSQL may or may not run backward (cursorscroll.go): a
	// backward move is refused with 0A000, never answered where
	// PostgreSQL could fail.
	scrollUnknown
)

// portalPos is a cursor's position: PostgreSQL's portal fields, and at,
// the row the scan stands on (0: before the first, total+1: after the
// last).
type portalPos struct {
	atStart, atEnd bool
	portalPos      int64
	at             int
}

// startPos is a new cursor's position: before the first row.
func startPos() portalPos { return portalPos{atStart: true} }

// backwardAllowed is the NO SCROLL check of PortalRunSelect and
// DoPortalRewind.
func (c *cursor) backwardAllowed() error {
	switch c.scroll {
	case scrollNo:
		return errf("55000", -1, "cursor can only scan forward").hint("Declare it with SCROLL option to enable backward scan.")
	case scrollUnknown:
		return unsupported(-1, "moving backward in a cursor declared without SCROLL over this query "+
			"(whether PostgreSQL's plan can scan backward depends on its plan)").
			hint("Declare the cursor with SCROLL (or NO SCROLL).")
	}
	return nil
}

// runSelect is PortalRunSelect: up to count rows (fetchAll: all) forward
// or backward, each handed to emit (nil: skipped, as to None_Receiver).
func (c *cursor) runSelect(forward bool, count int64, emit func([]Value) error) (int64, error) {
	p := &c.pos
	var n int64
	if forward {
		if p.atEnd || count <= 0 {
			return 0, nil
		}
		for count == fetchAll || n < count {
			if p.at >= c.total {
				p.at = c.total + 1
				break
			}
			p.at++
			if emit != nil {
				if err := emit(c.row(p.at)); err != nil {
					return n, err
				}
			}
			n++
		}
		if n > 0 {
			p.atStart = false
		}
		if count == fetchAll || n < count {
			p.atEnd = true
		}
		p.portalPos += n
		c.release()
		return n, nil
	}
	if err := c.backwardAllowed(); err != nil {
		return 0, err
	}
	if p.atStart || count <= 0 {
		return 0, nil
	}
	for count == fetchAll || n < count {
		if p.at <= 1 {
			p.at = 0
			break
		}
		p.at--
		if emit != nil {
			if err := emit(c.row(p.at)); err != nil {
				return n, err
			}
		}
		n++
	}
	if n > 0 && p.atEnd {
		p.atEnd = false
		p.portalPos++
	}
	if count == fetchAll || n < count {
		p.atStart = true
		p.portalPos = 0
	} else {
		p.portalPos -= n
	}
	return n, nil
}

// rewind is DoPortalRewind.
func (c *cursor) rewind() error {
	if c.pos.atStart && !c.pos.atEnd {
		return nil
	}
	if !c.rewindAny {
		if err := c.backwardAllowed(); err != nil {
			return err
		}
	}
	c.pos = startPos()
	return nil
}

// fetch is DoPortalRunFetch: FETCH (emit non-nil) or MOVE (emit nil) in
// direction dir with howMany count; it returns the count of the tag.
func (c *cursor) fetch(dir pg.FetchDirection, count int64, emit func([]Value) error) (int64, error) {
	move := emit == nil
	switch dir {
	case pg.FetchDirection_FETCH_FORWARD:
		if count < 0 {
			dir, count = pg.FetchDirection_FETCH_BACKWARD, -count
		}
	case pg.FetchDirection_FETCH_BACKWARD:
		if count < 0 {
			dir, count = pg.FetchDirection_FETCH_FORWARD, -count
		}
	case pg.FetchDirection_FETCH_ABSOLUTE:
		switch {
		case count > 0:
			// Rewind and advance count-1 rows, or get there from where
			// the cursor is when that is nearer: the target row is
			// always fetched going forward.
			if uint64(count-1) <= uint64(c.pos.portalPos)/2 {
				if err := c.rewind(); err != nil {
					return 0, err
				}
				if count > 1 {
					if _, err := c.runSelect(true, count-1, nil); err != nil {
						return 0, err
					}
				}
			} else {
				pos := c.pos.portalPos
				if c.pos.atEnd {
					pos++ // one extra fetch when off the end
				}
				var err error
				if count <= pos {
					_, err = c.runSelect(false, pos-count+1, nil)
				} else if count > pos+1 {
					_, err = c.runSelect(true, count-pos-1, nil)
				}
				if err != nil {
					return 0, err
				}
			}
			return c.runSelect(true, 1, emit)
		case count < 0:
			// To the end, back abs(count)-1 rows, the prior row.
			if _, err := c.runSelect(true, fetchAll, nil); err != nil {
				return 0, err
			}
			if count < -1 {
				if _, err := c.runSelect(false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(false, 1, emit)
		default:
			if err := c.rewind(); err != nil {
				return 0, err
			}
			return c.runSelect(true, 0, emit)
		}
	case pg.FetchDirection_FETCH_RELATIVE:
		switch {
		case count > 0:
			if count > 1 {
				if _, err := c.runSelect(true, count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(true, 1, emit)
		case count < 0:
			if count < -1 {
				if _, err := c.runSelect(false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(false, 1, emit)
		default:
			dir = pg.FetchDirection_FETCH_FORWARD // as FORWARD 0
		}
	}
	forward := dir == pg.FetchDirection_FETCH_FORWARD
	if count == 0 {
		// Re-fetch the current row, if any.
		onRow := !c.pos.atStart && !c.pos.atEnd
		if move {
			if onRow {
				return 1, nil
			}
			return 0, nil
		}
		if onRow {
			if _, err := c.runSelect(false, 1, nil); err != nil {
				return 0, err
			}
			count, forward = 1, true
		}
	}
	if !forward && count == fetchAll && move {
		// MOVE BACKWARD ALL is a rewind.
		n := c.pos.portalPos
		if n > 0 && !c.pos.atEnd {
			n--
		}
		if err := c.rewind(); err != nil {
			return 0, err
		}
		return n, nil
	}
	return c.runSelect(forward, count, emit)
}
