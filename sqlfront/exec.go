package sqlfront

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// execCtx is one execution of a plan.
type execCtx struct {
	ctx    context.Context
	src    Source
	sess   *session
	params []Value
	// raw, when set, takes a direct plan's rows as stored (direct.go):
	// the session sets it when every result column is text format.
	raw func(row []byte) error
	// mem is the statement's working memory (memory.go).
	mem *workMem
	// noRead: WHERE folds to false or NULL, no table is read (constfold.go)
	noRead bool
	// planned, when set, is called where PostgreSQL's planning would end
	// (constant expressions folded) and before any row is read: COPY
	// sends CopyOutResponse there (copyout_run.go).
	planned func()
}

// plannedNow calls ex.planned once.
func (ex *execCtx) plannedNow() {
	if f := ex.planned; f != nil {
		ex.planned = nil
		f()
	}
}

// errReplan says a cached plan no longer matches a table's schema: the
// session plans the statement again and reruns it once. Should it reach
// a client (the schema moved again meanwhile) it is a serialization
// failure to retry, not an internal error.
var errReplan = &Error{Code: codeSerialization, Msg: "the columns of a table the statement reads changed while it was planned (a resync after a schema change); run it again", Pos: -1}

// plansCurrent says whether cached plans still describe the tables they
// read as HEAD holds them. A resync after a schema change replaces a
// table's columns at the same version; a plan made before it would be
// described to the client with the old columns and then refused at
// execution ("cached plan must not change result type"), where
// PostgreSQL plans an unnamed statement afresh. Statements that read
// another version than HEAD (a session AS OF, a transaction) are checked
// at execution only.
func (s *session) plansCurrent(ctx context.Context, ps []*plan) bool {
	if s.asOf != "" || s.tx != 'I' {
		return true
	}
	var v Version
	for _, p := range ps {
		if p.vec != nil && p.vec.facts != nil && !slices.Equal(p.vec.facts, factsStamp(s.srv.src.Tables())) {
			return false // pgcatalog_stamp.go
		}
		if p.vec != nil && len(p.vec.views) > 0 && !(&execCtx{ctx: ctx, src: s.srv.src, sess: s}).views().viewsCurrent(p.vec.views) {
			return false // views.go
		}
		for _, t := range p.tables {
			if v.LSN == "" {
				var err error
				if v, err = s.srv.src.Resolve(ctx, "HEAD"); err != nil {
					return true // execution reports it
				}
			}
			cur, err := s.srv.src.Table(ctx, v, t.Name)
			if err != nil || !sameColumns(&cur, t) {
				return false
			}
		}
	}
	return true
}

// run executes a select plan, calling emit for each output row.
func (p *plan) run(ex *execCtx, emit func([]Value) error) error {
	defer ex.account()()
	if p.vec != nil {
		return p.runVectorized(ex, emit) // vexec.go
	}
	ck, err := p.enumCheckFor(ex) // enum_stale.go
	if err != nil {
		return err
	}
	if ck != nil {
		next := emit
		emit = func(row []Value) error {
			if err := ck.row(row); err != nil {
				return err
			}
			return next(row)
		}
	}
	e := &env{params: ex.params, ex: ex}
	none, err := p.foldError(e)
	if err != nil {
		return err // constfold.go: PostgreSQL's planner raises it
	}
	ex.plannedNow()
	ex.noRead = none
	limit, offset := int64(-1), int64(0)
	if p.limit != nil {
		v, err := p.limit.eval(e)
		if err != nil {
			return err
		}
		if v != nil {
			if limit = v.(int64); limit < 0 {
				return errf(codeInvalidCount, -1, "LIMIT must not be negative")
			}
		}
	}
	if p.offset != nil {
		v, err := p.offset.eval(e)
		if err != nil {
			return err
		}
		if v != nil {
			if offset = v.(int64); offset < 0 {
				return errf(codeInvalidOffset, -1, "OFFSET must not be negative")
			}
		}
	}
	if limit == 0 {
		return nil
	}
	if limit >= 0 && !p.readsAll() {
		return guardUnread(func(emit func([]Value) error) error { return p.runCut(ex, e, limit, offset, emit) }, emit) // limiterr.go
	}
	return p.runCut(ex, e, limit, offset, emit)
}

// runCut reads p's rows and passes on those from offset on, at most
// limit of them (limit < 0: all).
func (p *plan) runCut(ex *execCtx, e *env, limit, offset int64, emit func([]Value) error) error {
	var err error
	if p.direct && ex.raw != nil && !ex.noRead {
		if err := p.runDirect(ex, limit, offset); err != errNotDirect {
			if err == nil {
				ex.sess.srv.directRuns.Add(1)
			}
			return err
		}
	}
	if p.agg != nil && !p.agg.post && !ex.noRead {
		err := p.runEngine(ex, limit, offset, emit)
		if err != errNotEngine {
			if err == nil {
				ex.sess.srv.engineRuns.Add(1)
			}
			return err
		}
	}
	if p.rows != nil && !ex.noRead {
		err := p.runRows(ex, limit, offset, emit)
		if err != errNotEngine {
			if err == nil {
				ex.sess.srv.engineRuns.Add(1)
			}
			return err
		}
	}
	// out applies DISTINCT, OFFSET and LIMIT to projected rows.
	var seen map[string]bool
	if p.distinct {
		seen = map[string]bool{}
	}
	var n int64
	out := func(row []Value) error {
		if p.distinct {
			k := rowKey(row, p.cols)
			if seen[k] {
				return nil
			}
			if err := ex.grow(int64(len(k) + 48)); err != nil {
				return err
			}
			seen[k] = true
		}
		if offset > 0 {
			offset--
			return nil
		}
		if err := emit(row); err != nil {
			return err
		}
		n++
		if limit >= 0 && n >= limit {
			return errStopScan
		}
		return nil
	}
	project := func(e *env) ([]Value, error) {
		row := make([]Value, len(p.targets))
		for i, t := range p.targets {
			v, err := t.eval(e)
			if err != nil {
				return nil, err
			}
			row[i] = v
		}
		return row, nil
	}
	var sorted []sortRow
	var top *topN // topn.go: ORDER BY … LIMIT keeps only the best rows
	if k, ok := topNBound(limit, offset); ok && len(p.order) > 0 && !p.distinct {
		top = &topN{p: p, ex: ex, k: k}
	}
	sortKeys := func(e *env) ([]Value, error) {
		keys := make([]Value, len(p.order))
		for i, k := range p.order {
			v, err := k.e.eval(e)
			if err != nil {
				return nil, err
			}
			keys[i] = v
		}
		return keys, nil
	}
	final := func(e *env) error {
		row, err := project(e)
		if err != nil {
			return err
		}
		if len(p.order) > 0 {
			keys, err := sortKeys(e)
			if err != nil {
				return err
			}
			if top != nil {
				return top.add(sortRow{keys: keys, row: row})
			}
			if err := ex.grow(valuesBytes(keys) + valuesBytes(row) + 48); err != nil {
				return err
			}
			sorted = append(sorted, sortRow{keys: keys, row: row})
			return nil
		}
		return out(row)
	}
	if p.grouping {
		err = errNotEngine
		if p.agg != nil && p.agg.post && !ex.noRead {
			if err = p.runEngineGroups(ex, e, final); err == nil {
				ex.sess.srv.engineRuns.Add(1)
			}
		}
		if err == errNotEngine {
			err = p.runGrouped(ex, e, final)
		}
	} else {
		err = p.input(ex, func(row []Value) error {
			e.row = row
			if p.where != nil {
				ok, err := p.where.eval(e)
				if err != nil || ok != true {
					return err
				}
			}
			return final(e)
		})
	}
	if err == errStopScan {
		err = nil
	}
	if err != nil || len(p.order) == 0 {
		return err
	}
	if top != nil {
		sorted = top.sorted()
	} else {
		slices.SortStableFunc(sorted, p.cmpSort)
	}
	if err := p.sortTiesUndetermined(sorted); err != nil { // sortties.go
		return err
	}
	for _, s := range sorted {
		if err := out(s.row); err != nil {
			if err == errStopScan {
				return nil
			}
			return err
		}
	}
	return nil
}

type sortRow struct {
	keys []Value
	row  []Value
}

// rowKey encodes values for grouping and DISTINCT (NULLs are equal).
func rowKey(vals []Value, cols []outCol) string {
	var b strings.Builder
	for i, v := range vals {
		t := uint32(0)
		if cols != nil {
			t = cols[i].typ
		}
		s, ok := render(v, t)
		if !ok {
			b.WriteString("\x00N")
			continue
		}
		if n, isNum := v.(*Num); isNum {
			s = numKey(n)
		}
		if t == oidInterval {
			s = intervalKey(s) // '1 day' and '24:00:00' are one group
		}
		if t == oidBpchar {
			s = strings.TrimRight(s, " ")
		}
		b.WriteString("\x00V")
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// numKey is a numeric's text without trailing fractional zeros (1.50 and
// 1.5 group together, as equal numerics do).
func numKey(n *Num) string {
	s := n.String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// input produces the rows of the FROM clause (joined), before WHERE.
func (p *plan) input(ex *execCtx, fn func([]Value) error) error {
	switch len(p.from) {
	case 0:
		return fn(nil)
	case 1:
		return p.scanItem(ex, 0, fn)
	}
	return p.hashJoin(ex, fn)
}

// scanItem reads one FROM item, using its pushed-down key predicates.
func (p *plan) scanItem(ex *execCtx, i int, fn func([]Value) error) error {
	it := p.from[i]
	if err := ex.ctx.Err(); err != nil || ex.noRead {
		return err
	}
	if it.virt != nil {
		rows, err := it.virt.rows(ex)
		if err != nil {
			return err
		}
		for _, r := range rows {
			vals, err := convertRow(it.virt.cols, r, p.neededOf(it), p.rawOf(it))
			if err != nil {
				return err
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
		return nil
	}
	v, err := ex.sess.versionFor(ex.ctx, it.asOf)
	if err != nil {
		return err
	}
	if it.table.part != nil {
		return p.scanPartRoot(ex, it, v, fn) // partroot.go
	}
	t, err := ex.src.Table(ex.ctx, v, it.table.Name)
	if err != nil {
		return err
	}
	if !sameColumns(&t, it.table) {
		return errReplan
	}
	if it.inherit { // the parent's own rows, then its descendants' (inherit.go)
		if err := ex.src.Scan(ex.ctx, v, &t, "", "", func(row []*string) error {
			vals, err := convertRow(t.Columns, row, p.neededOf(it), p.rawOf(it))
			if err != nil {
				return err
			}
			return fn(vals)
		}); err != nil {
			return err
		}
		return p.scanDescendants(ex, it, v, &t, fn)
	}
	e := &env{params: ex.params, ex: ex}
	if len(it.keyEq) > 0 {
		keys, err := it.keyTexts(e, &t)
		if err != nil {
			return err
		}
		for _, texts := range keys {
			row, ok, err := ex.src.Get(ex.ctx, v, &t, texts)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			vals, err := convertRow(t.Columns, row, p.neededOf(it), p.rawOf(it))
			if err != nil {
				return err
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
		return nil
	}
	from, to, hi, empty, err := it.bounds(e)
	if err != nil || empty {
		return err
	}
	kt := it.keyType
	keyIdx := -1
	if len(t.KeyCols) > 0 {
		keyIdx = t.KeyCols[0]
	}
	stopOnHi := hi != nil && it.hiIncl && (kt == oidNumeric || kt == oidText || kt == oidVarchar)
	need, raw := p.neededOf(it), p.rawOf(it)
	if stopOnHi && need != nil && !need[keyIdx] {
		need = slices.Clone(need) // the stop test reads the key
		need[keyIdx] = true
	}
	return ex.src.Scan(ex.ctx, v, &t, from, to, func(row []*string) error {
		if err := ex.ctx.Err(); err != nil {
			return err
		}
		vals, err := convertRow(t.Columns, row, need, raw)
		if err != nil {
			return err
		}
		if stopOnHi && vals[keyIdx] != nil && cmpValues(vals[keyIdx], hi, kt) > 0 {
			return errStopScan
		}
		return fn(vals)
	})
}

// keyTexts evaluates the item's point-get keys: one text per key column,
// each key once (IN (1, 1) reads one row); keys that cannot match (NULL,
// out of the column type's range) are left out.
func (it *fromItem) keyTexts(e *env, t *Table) ([][]string, error) {
	out := make([][]string, 0, len(it.keyEq))
	for _, key := range it.keyEq {
		texts := make([]string, len(key))
		skip := false
		for k, ke := range key {
			kv, err := ke.eval(e)
			if err != nil {
				return nil, err
			}
			if kv == nil {
				skip = true
				break
			}
			texts[k], _ = render(kv, t.Columns[t.KeyCols[k]].TypeOID)
			if !keyInRange(kv, t.Columns[t.KeyCols[k]].TypeOID) {
				skip = true
			}
		}
		for _, prev := range out {
			skip = skip || slices.Equal(prev, texts)
		}
		if !skip {
			out = append(out, texts)
		}
	}
	return out, nil
}

// bounds evaluates the item's key range on the first key column: from
// (inclusive) and to (exclusive) texts ("" unbounded), the upper bound's
// value, and empty when no row can match.
func (it *fromItem) bounds(e *env) (from, to string, hi Value, empty bool, err error) {
	kt := it.keyType
	if it.lo != nil {
		lv, err := it.lo.eval(e)
		if err != nil {
			return "", "", nil, false, err
		}
		if lv == nil {
			return "", "", nil, true, nil
		}
		if keyInRange(lv, kt) {
			from, _ = render(lv, kt)
		} else if isIntType(kt) && lv.(int64) > 0 {
			return "", "", nil, true, nil
		}
	}
	if it.hi != nil {
		hv, err := it.hi.eval(e)
		if err != nil {
			return "", "", nil, false, err
		}
		if hv == nil {
			return "", "", nil, true, nil
		}
		hi = hv
		if isIntType(kt) {
			x := hv.(int64)
			if !keyInRange(hv, kt) {
				if x < 0 {
					return "", "", nil, true, nil
				}
			} else if !it.hiIncl {
				to = strconv.FormatInt(x, 10)
			} else if _, max, _ := intBounds(kt); x < max {
				to = strconv.FormatInt(x+1, 10)
			}
		} else if !it.hiIncl {
			to, _ = render(hv, kt)
		}
	}
	if it.likePat != nil && it.lo == nil && it.hi == nil {
		pv, err := it.likePat.eval(e)
		if err != nil {
			return "", "", nil, false, err
		}
		if pv == nil {
			return "", "", nil, true, nil
		}
		if prefix, _ := likePrefix(pv.(string)); prefix != "" {
			from, to = prefix, prefixEnd(prefix)
		}
	}
	return from, to, hi, false, nil
}

// keyInRange says whether an integer key value fits the key column's type
// (a larger bound cannot match any row and must not reach the codec).
func keyInRange(v Value, t uint32) bool {
	if i, ok := v.(int64); ok && isIntType(t) {
		lo, hi, _ := intBounds(t)
		return i >= lo && i <= hi
	}
	return true
}

func sameColumns(a, b *Table) bool {
	if len(a.Columns) != len(b.Columns) || !sameFacts(a, b) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || a.Columns[i].TypeOID != b.Columns[i].TypeOID || a.Columns[i].TypeMod != b.Columns[i].TypeMod {
			return false
		}
	}
	return true
}

// neededOf is the needed-column mask of one FROM item (nil: all).
func (p *plan) neededOf(it *fromItem) []bool {
	if p.needed == nil {
		return nil
	}
	n := len(it.cols())
	if it.base+n > len(p.needed) {
		return nil
	}
	return p.needed[it.base : it.base+n]
}

// rawOf is the pass-through mask of one FROM item (nil: none).
func (p *plan) rawOf(it *fromItem) []bool {
	n := len(it.cols())
	if p.raw == nil || it.base+n > len(p.raw) {
		return nil
	}
	return p.raw[it.base : it.base+n]
}

// storedText is a column value sent as stored (PostgreSQL's output text),
// never converted: a target that only names the column (plan.raw).
type storedText struct{ s *string } // one pointer: boxing it does not allocate

// convertRow reads a stored row's texts as values; columns need marks
// false stay NULL (no expression reads them), columns raw marks are kept
// as their text (storedText).
func convertRow(cols []Column, row []*string, need, raw []bool) ([]Value, error) {
	vals := make([]Value, len(cols))
	for i, c := range cols {
		if i >= len(row) {
			break
		}
		if raw != nil && raw[i] {
			if row[i] != nil {
				vals[i] = storedText{row[i]}
			}
			continue
		}
		if need != nil && !need[i] {
			continue
		}
		typ := c.TypeOID
		if c.Base != 0 {
			typ = c.Base // domaincols.go: a domain's values are its base type's
		}
		v, err := fromText(typ, row[i])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// hashJoin builds a hash table over the right item on its join key and
// probes it with each row of the left item (a LEFT join emits unmatched
// left rows with NULLs).
func (p *plan) hashJoin(ex *execCtx, fn func([]Value) error) error {
	split := p.from[1].base
	e := &env{params: ex.params, ex: ex}
	nright := 0
	build := map[string][][]Value{}
	err := p.scanItem(ex, 1, func(r []Value) error {
		nright = len(r)
		row := make([]Value, split+len(r))
		copy(row[split:], r)
		e.row = row
		k, err := p.joinKeys[1].eval(e)
		if err != nil || k == nil {
			return err
		}
		key := rowKey([]Value{k}, []outCol{{typ: p.joinType}})
		if err := ex.grow(valuesBytes(r) + int64(len(key)) + 64); err != nil {
			return err
		}
		build[key] = append(build[key], r)
		return nil
	})
	if err != nil {
		return err
	}
	if nright == 0 {
		nright = len(p.from[1].cols())
	}
	return p.scanItem(ex, 0, func(l []Value) error {
		row := make([]Value, split+nright)
		copy(row, l)
		e.row = row
		k, err := p.joinKeys[0].eval(e)
		if err != nil {
			return err
		}
		matched := false
		if k != nil {
			for i, r := range build[rowKey([]Value{k}, []outCol{{typ: p.joinType}})] {
				if i%1024 == 1023 {
					if err := ex.ctx.Err(); err != nil {
						return err // canceled, timed out or the client left
					}
				}
				full := make([]Value, split+nright)
				copy(full, l)
				copy(full[split:], r)
				e.row = full
				ok, err := p.joinOn.eval(e)
				if err != nil {
					return err
				}
				if ok == true {
					matched = true
					if err := fn(full); err != nil {
						return err
					}
				}
			}
		}
		if !matched && p.joinLeft {
			return fn(row)
		}
		return nil
	})
}

func (it *fromItem) cols() []Column {
	if it.virt != nil {
		return it.virt.cols
	}
	return it.table.Columns
}

// aggState accumulates one aggregate over one group.
type aggState struct {
	count int64
	isum  int64
	nsum  *Num
	fsum  float64
	fg    types.FloatSumGuard // is fsum the same in PostgreSQL's order of rows?
	best  Value
	seen  map[string]bool
	lib   libAggState // a library aggregate's state
}

// runGrouped groups the filtered input rows by the GROUP BY values and
// calls final once per group (once overall without GROUP BY, even for no
// rows), with the group's first row and aggregate values.
func (p *plan) runGrouped(ex *execCtx, e *env, final func(*env) error) error {
	type group struct {
		row    []Value
		states []*aggState
	}
	groups := map[string]*group{}
	var order []*group
	keyVals := make([]Value, len(p.groupBy))
	keyCols := make([]outCol, len(p.groupBy))
	for i, g := range p.groupBy {
		keyCols[i].typ = g.typ()
	}
	err := p.input(ex, func(row []Value) error {
		e.row = row
		if p.where != nil {
			ok, err := p.where.eval(e)
			if err != nil || ok != true {
				return err
			}
		}
		for i, g := range p.groupBy {
			v, err := g.eval(e)
			if err != nil {
				return err
			}
			keyVals[i] = v
		}
		k := rowKey(keyVals, keyCols)
		g := groups[k]
		if g == nil {
			if err := ex.grow(valuesBytes(row) + int64(len(k)+64+80*len(p.aggs))); err != nil {
				return err
			}
			g = &group{row: row, states: make([]*aggState, len(p.aggs))}
			for i := range g.states {
				g.states[i] = &aggState{}
			}
			groups[k] = g
			order = append(order, g)
		}
		for i, a := range p.aggs {
			if err := a.add(g.states[i], e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(p.groupBy) == 0 && len(order) == 0 {
		g := &group{row: make([]Value, len(p.scopeWidth())), states: make([]*aggState, len(p.aggs))}
		for i := range g.states {
			g.states[i] = &aggState{}
		}
		order = append(order, g)
	}
	for _, g := range order {
		e.row = g.row
		e.aggs = make([]Value, len(p.aggs))
		for i, a := range p.aggs {
			v, err := a.result(g.states[i])
			if err != nil {
				return err
			}
			e.aggs[i] = v
		}
		if err := p.groupDone(e, final); err != nil {
			return err
		}
	}
	return nil
}

// groupDone hands the group in e (its row and aggregates set) to final
// unless HAVING rejects it.
func (p *plan) groupDone(e *env, final func(*env) error) error {
	if p.having != nil {
		ok, err := p.having.eval(e)
		if err != nil || ok != true {
			return err
		}
	}
	return final(e)
}

func (p *plan) scopeWidth() []struct{} {
	n := 0
	for _, it := range p.from {
		n += len(it.cols())
	}
	return make([]struct{}, n)
}

func (a *aggSpec) add(s *aggState, e *env) error {
	if a.star {
		s.count++
		return nil
	}
	v, err := a.arg.eval(e)
	if err != nil || v == nil {
		return err
	}
	if a.distinct {
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		k := rowKey([]Value{v}, []outCol{{typ: a.arg.typ()}})
		if s.seen[k] {
			return nil
		}
		if e.ex != nil { // the set is working memory: memory.query
			if err := e.ex.grow(int64(len(k) + 48)); err != nil {
				return err
			}
		}
		s.seen[k] = true
	}
	s.count++
	if a.lib != nil {
		return libAggStep(a, s, v)
	}
	switch a.fn {
	case "sum", "avg":
		switch x := v.(type) {
		case int64:
			if a.fn == "sum" && a.t == oidInt8 {
				r, err := arith("+", s.isum, x, oidInt8)
				if err != nil {
					return err
				}
				s.isum = r.(int64)
				return nil
			}
			if s.nsum == nil {
				s.nsum = numFromInt(0)
			}
			s.nsum = numAdd(s.nsum, numFromInt(x), false)
		case *Num:
			if s.nsum == nil {
				s.nsum = numFromInt(0)
			}
			s.nsum = numAdd(s.nsum, x, false)
		case float64:
			s.fg.Add(x)
			if a.fn == "sum" && a.t == oidFloat4 {
				// float4pl: each addition rounds to float4, as PostgreSQL's.
				f, err := float4Sum(s.fsum, x)
				if err != nil {
					return err
				}
				s.fsum = f
				return nil
			}
			s.fsum += x
		}
	case "min", "max":
		if s.best == nil {
			s.best = v
			return nil
		}
		c := cmpValues(v, s.best, a.arg.typ())
		if (a.fn == "min" && c < 0) || (a.fn == "max" && c > 0) {
			s.best = v
		}
	}
	return nil
}

func (a *aggSpec) result(s *aggState) (Value, error) {
	if a.lib != nil {
		return libAggResult(a, s)
	}
	switch a.fn {
	case "count":
		return s.count, nil
	case "min", "max":
		return s.best, nil
	}
	if s.count == 0 {
		return nil, nil
	}
	switch a.fn {
	case "sum":
		switch {
		case a.t == oidInt8:
			return s.isum, nil
		case a.t == oidNumeric:
			d, err := types.CheckNumericRange(s.nsum) // PostgreSQL's make_result: 22003 past the format
			if err != nil {
				return nil, typesErr(err)
			}
			return d, nil
		case a.t == oidFloat4:
			if err := s.fg.Check("sum", 24); err != nil {
				return nil, typesErr(err)
			}
			return float64(float32(s.fsum)), nil
		}
		if err := s.fg.Check("sum", 53); err != nil {
			return nil, typesErr(err)
		}
		return s.fsum, nil
	}
	if a.t == oidFloat8 {
		if err := s.fg.Check("avg", 53); err != nil {
			return nil, typesErr(err)
		}
		return s.fsum / float64(s.count), nil
	}
	return numDiv(s.nsum, numFromInt(s.count))
}

// prefixEnd is the least string above every string starting with p
// (bytewise), "" when there is none (p is all 0xff bytes).
func prefixEnd(p string) string {
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return ""
	}
	b[len(b)-1]++
	return string(b)
}
