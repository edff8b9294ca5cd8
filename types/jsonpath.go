package types

import (
	"bytes"
	"strconv"
	"strings"
)

// jsonpath: PostgreSQL's SQL/JSON path language, the common subset
// (jsonpath_gram.y): lax/strict, $, @, $variables, .key, ."key", .*,
// [*], [i, j to k, last], filters ?(…), the comparisons, && || !,
// exists (…), … is unknown, starts with, like_regex … flag …, + - * / %
// and unary ±, and the methods size() type() abs() floor() ceiling().
// A value is kept as jsonpath_out prints it (printJsonPathItem), so
// output is PostgreSQL's; the evaluator (sql/builtin) parses that text
// again. What the subset does not read (.**, other methods, datetime,
// numbers with exponents, accessors after literals or parentheses,
// escapes other than JSON's) is refused with 0A000, never read
// differently, and so are texts PostgreSQL rejects (its 42601 messages
// are its parser's, not reproduced here).

// PathExpr is a parsed jsonpath: its mode and expression.
type PathExpr struct {
	Strict bool
	Expr   *JPItem
}

// JPKind is a path item's kind (JsonPathItemType).
type JPKind int

// The path items.
const (
	JPRoot JPKind = iota
	JPCurrent
	JPVar
	JPLast
	JPNull
	JPBool
	JPNum
	JPString
	JPKey
	JPAnyKey
	JPAnyArray
	JPIndex
	JPFilter
	JPMethod
	JPAnd
	JPOr
	JPEq
	JPNe
	JPLt
	JPGt
	JPLe
	JPGe
	JPAdd
	JPSubtract
	JPMul
	JPDiv
	JPMod
	JPStartsWith
	JPLikeRegex
	JPPlus
	JPMinus
	JPNot
	JPExists
	JPIsUnknown
	JPAny // .** with levels First to Last (JPLastLevel: last)
)

// JPLastLevel is the level "last" of .**{…} (PG_UINT32_MAX).
const JPLastLevel = ^uint32(0)

// JPItem is one item: an operation with its operands (Left, Right; a
// unary operation's, a filter's or exists' in Left), a literal, an
// accessor; Next is the accessor applied to its result.
type JPItem struct {
	Kind        JPKind
	Left, Right *JPItem
	Str         string // key, variable, string literal, regex, method name
	Flags       string // like_regex flags
	Num         *Decimal
	Bool        bool
	Subs        []JPSub // [i, j to k]
	First, Last uint32  // .**'s levels
	Next        *JPItem
}

// JPSub is one subscript of [ … ]: an index or a range From to To.
type JPSub struct{ From, To *JPItem }

// isPredicate says whether the item is a boolean predicate.
func (it *JPItem) isPredicate() bool {
	switch it.Kind {
	case JPAnd, JPOr, JPEq, JPNe, JPLt, JPGt, JPLe, JPGe, JPStartsWith, JPLikeRegex, JPNot, JPExists, JPIsUnknown:
		return true
	}
	return false
}

func jpUnsupported(what string) *Error {
	return errorf(CodeUnsupported, "sidecar does not support this jsonpath: %s", what)
}

// ParseJSONPath reads a jsonpath text (jsonpath_in) of the subset, as
// the newest major reads it.
func ParseJSONPath(s string) (*PathExpr, error) {
	jp, _, err := parseJSONPath(s)
	return jp, err
}

// parseJSONPath is ParseJSONPath, also saying whether the path uses an
// item method PostgreSQL 17 added.
func parseJSONPath(s string) (*PathExpr, bool, error) {
	p := &jpParser{s: s}
	p.next()
	jp := &PathExpr{}
	if p.tok == "strict" || p.tok == "lax" {
		jp.Strict = p.tok == "strict"
		p.next()
	}
	e, err := p.or()
	if err != nil {
		return nil, false, err
	}
	if p.err != nil {
		return nil, false, p.err
	}
	if p.tok != "" {
		return nil, false, jpUnsupported("text after the expression at " + strconv.Quote(p.tok))
	}
	jp.Expr = e
	return jp, p.v17, nil
}

// jpParser reads tokens: punctuation, "strings" (tokStr true), numbers
// and words.
type jpParser struct {
	s        string
	i        int
	tok      string // "" at the end
	str      string // a string token's value
	isStr    bool
	isNum    bool
	isWord   bool
	spaceBef bool // whitespace before tok
	err      error
	inFilter int
	inSubs   int
	v17      bool // a method PostgreSQL 17 added was read
}

func jpWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// next reads the next token.
func (p *jpParser) next() {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f", p.s[p.i]) >= 0 {
		p.i++
	}
	p.spaceBef = p.i > start
	p.isStr, p.isNum, p.isWord = false, false, false
	if p.i >= len(p.s) {
		p.tok = ""
		return
	}
	c := p.s[p.i]
	switch {
	case c == '"':
		v, n, ok := jpString(p.s[p.i:])
		if !ok {
			p.fail("a string with escapes other than JSON's")
			return
		}
		p.tok, p.str, p.isStr = p.s[p.i:p.i+n], v, true
		p.i += n
		return
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j+1 < len(p.s) && p.s[j] == '.' && p.s[j+1] >= '0' && p.s[j+1] <= '9' {
			j++
			for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
				j++
			}
		}
		if j < len(p.s) && (jpWordByte(p.s[j]) || p.s[j] == '.' || p.s[j] >= 0x80) {
			p.fail("a number followed by " + strconv.Quote(p.s[j:j+1]))
			return
		}
		if p.s[p.i] == '0' && j > p.i+1 && p.s[p.i+1] != '.' {
			p.fail("a number with leading zeros")
			return
		}
		p.tok, p.isNum = p.s[p.i:j], true
		p.i = j
		return
	case jpWordByte(c):
		j := p.i
		for j < len(p.s) && jpWordByte(p.s[j]) {
			j++
		}
		if j < len(p.s) && p.s[j] >= 0x80 {
			p.fail("a key with characters other than ASCII letters, digits and _ (quote it)")
			return
		}
		p.tok, p.isWord = p.s[p.i:j], true
		p.i = j
		return
	case c >= 0x80:
		p.fail("a key with characters other than ASCII letters, digits and _ (quote it)")
		return
	}
	for _, op := range []string{"&&", "||", "==", "!=", "<>", "<=", ">=", "**"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			p.tok = op
			p.i += 2
			return
		}
	}
	if strings.IndexByte("$@.[]()?,*!<>+-/%{}", c) < 0 {
		p.fail("the character " + strconv.Quote(string(c)))
		return
	}
	p.tok = p.s[p.i : p.i+1]
	p.i++
}

func (p *jpParser) fail(what string) {
	if p.err == nil {
		p.err = jpUnsupported(what)
	}
	p.tok = ""
	p.i = len(p.s)
}

// jpString reads a "…" string at s's start: its value and length
// (JSON's escapes; \u0000 is refused, as PostgreSQL's scanner does).
func jpString(s string) (string, int, bool) {
	v, n, ok := UnescapeJSONString(s)
	if !ok || strings.IndexByte(v, 0) >= 0 {
		return "", 0, false
	}
	return v, n, true
}

func (p *jpParser) expect(tok string) error {
	if p.err != nil {
		return p.err
	}
	if p.tok != tok || p.isStr {
		return jpUnsupported("expected " + strconv.Quote(tok) + " at " + strconv.Quote(p.tok))
	}
	p.next()
	return p.err
}

// The grammar, loosest binding first: || && ! comparisons + - * / %
// unary ± accessors. Each level checks what jsonpath_gram.y allows:
// predicates under && || ! and filters, expressions under the
// arithmetic and comparisons.

func (p *jpParser) or() (*JPItem, error) {
	return p.binary(p.and, map[string]JPKind{"||": JPOr}, true)
}

func (p *jpParser) and() (*JPItem, error) {
	return p.binary(p.not, map[string]JPKind{"&&": JPAnd}, true)
}

func (p *jpParser) binary(sub func() (*JPItem, error), ops map[string]JPKind, pred bool) (*JPItem, error) {
	l, err := sub()
	if err != nil {
		return nil, err
	}
	for {
		k, ok := ops[p.tok]
		if !ok || p.isStr {
			return l, p.err
		}
		p.next()
		r, err := sub()
		if err != nil {
			return nil, err
		}
		if l.isPredicate() != pred || r.isPredicate() != pred {
			return nil, jpUnsupported("an operand of the wrong kind (a predicate where an expression belongs or the reverse)")
		}
		l = &JPItem{Kind: k, Left: l, Right: r}
	}
}

func (p *jpParser) not() (*JPItem, error) {
	if p.tok == "!" {
		p.next()
		if p.tok != "(" && !(p.isWord && p.tok == "exists") {
			return nil, jpUnsupported("! without parentheses")
		}
		a, err := p.primary()
		if err != nil {
			return nil, err
		}
		if !a.isPredicate() || a.Next != nil {
			return nil, jpUnsupported("! of an expression")
		}
		return &JPItem{Kind: JPNot, Left: a}, nil
	}
	return p.cmp()
}

var jpCmp = map[string]JPKind{"==": JPEq, "!=": JPNe, "<>": JPNe, "<": JPLt, ">": JPGt, "<=": JPLe, ">=": JPGe}

func (p *jpParser) cmp() (*JPItem, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	if p.isStr || p.isNum {
		return nil, jpUnsupported("a literal after an expression")
	}
	k, isCmp := jpCmp[p.tok]
	switch {
	case isCmp:
		p.next()
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		if l.isPredicate() || r.isPredicate() {
			return nil, jpUnsupported("a comparison of predicates")
		}
		return &JPItem{Kind: k, Left: l, Right: r}, nil
	case p.tok == "starts" && p.isWord:
		p.next()
		if p.tok != "with" {
			return nil, jpUnsupported("starts without with")
		}
		p.next()
		var r *JPItem
		switch {
		case p.isStr:
			r = &JPItem{Kind: JPString, Str: p.str}
		case p.tok == "$":
			r, err = p.primary()
			if err != nil {
				return nil, err
			}
			if r.Kind != JPVar || r.Next != nil {
				return nil, jpUnsupported("starts with other than a string or a variable")
			}
			if l.isPredicate() {
				return nil, jpUnsupported("starts with of a predicate")
			}
			return &JPItem{Kind: JPStartsWith, Left: l, Right: r}, nil
		default:
			return nil, jpUnsupported("starts with other than a string or a variable")
		}
		p.next()
		if l.isPredicate() {
			return nil, jpUnsupported("starts with of a predicate")
		}
		return &JPItem{Kind: JPStartsWith, Left: l, Right: r}, p.err
	case p.tok == "like_regex" && p.isWord:
		p.next()
		if !p.isStr {
			return nil, jpUnsupported("like_regex without a string")
		}
		it := &JPItem{Kind: JPLikeRegex, Left: l, Str: p.str}
		p.next()
		if p.tok == "flag" && p.isWord {
			p.next()
			if !p.isStr {
				return nil, jpUnsupported("flag without a string")
			}
			it.Flags = p.str
			p.next()
		}
		if l.isPredicate() {
			return nil, jpUnsupported("like_regex of a predicate")
		}
		return it, p.err
	}
	return l, p.err
}

func (p *jpParser) add() (*JPItem, error) {
	return p.binary(p.mul, map[string]JPKind{"+": JPAdd, "-": JPSubtract}, false)
}

func (p *jpParser) mul() (*JPItem, error) {
	return p.binary(p.unary, map[string]JPKind{"*": JPMul, "/": JPDiv, "%": JPMod}, false)
}

func (p *jpParser) unary() (*JPItem, error) {
	if p.tok == "+" || p.tok == "-" {
		minus := p.tok == "-"
		p.next()
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		if a.isPredicate() {
			return nil, jpUnsupported("a sign before a predicate")
		}
		if a.Kind == JPNum && a.Next == nil { // makeItemUnary folds constants
			if minus {
				a.Num = NegDecimal(a.Num)
			}
			return a, nil
		}
		k := JPPlus
		if minus {
			k = JPMinus
		}
		return &JPItem{Kind: k, Left: a}, nil
	}
	return p.primary()
}

// primary is a path_primary with its accessors, a parenthesized
// expression or predicate, or exists (…).
func (p *jpParser) primary() (*JPItem, error) {
	if p.err != nil {
		return nil, p.err
	}
	var it *JPItem
	accessors := true
	switch {
	case p.isStr:
		it, accessors = &JPItem{Kind: JPString, Str: p.str}, false
		p.next()
	case p.isNum:
		n, err := parseDecimal(p.tok)
		if err != nil {
			return nil, err
		}
		it, accessors = &JPItem{Kind: JPNum, Num: n}, false
		p.next()
	case p.tok == "$":
		p.next()
		it = &JPItem{Kind: JPRoot}
		if !p.spaceBef && (p.isWord || p.isStr) && !p.isNum {
			name := p.tok
			if p.isStr {
				name = p.str
			}
			it = &JPItem{Kind: JPVar, Str: name}
			p.next()
		}
	case p.tok == "@":
		if p.inFilter == 0 {
			return nil, jpUnsupported("@ outside a filter")
		}
		it = &JPItem{Kind: JPCurrent}
		p.next()
	case p.isWord && (p.tok == "true" || p.tok == "false"):
		it, accessors = &JPItem{Kind: JPBool, Bool: p.tok == "true"}, false
		p.next()
	case p.isWord && p.tok == "null":
		it, accessors = &JPItem{Kind: JPNull}, false
		p.next()
	case p.isWord && p.tok == "last":
		if p.inSubs == 0 {
			return nil, jpUnsupported("last outside array subscripts")
		}
		it, accessors = &JPItem{Kind: JPLast}, false
		p.next()
	case p.isWord && p.tok == "exists":
		p.next()
		if err := p.expect("("); err != nil {
			return nil, err
		}
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if a.isPredicate() {
			return nil, jpUnsupported("exists of a predicate")
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		it, accessors = &JPItem{Kind: JPExists, Left: a}, false
	case p.tok == "(":
		p.next()
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		if a.isPredicate() && p.tok == "is" && p.isWord {
			p.next()
			if p.tok != "unknown" {
				return nil, jpUnsupported("is without unknown")
			}
			p.next()
			return &JPItem{Kind: JPIsUnknown, Left: a}, p.err
		}
		it, accessors = a, false
	default:
		return nil, jpUnsupported("the expression at " + strconv.Quote(p.tok))
	}
	last := it
	for {
		if p.err != nil {
			return nil, p.err
		}
		var acc *JPItem
		switch {
		case p.isStr || p.isNum || p.isWord:
			// not an accessor
		case p.tok == ".":
			p.next()
			switch {
			case p.tok == "*" && !p.isStr:
				acc = &JPItem{Kind: JPAnyKey}
				p.next()
			case p.isStr:
				acc = &JPItem{Kind: JPKey, Str: p.str}
				p.next()
			case p.tok == "**":
				var err error
				if acc, err = p.anyPath(); err != nil {
					return nil, err
				}
			case p.isWord && !p.isNum:
				name := p.tok
				p.next()
				if p.tok == "(" && !p.isStr {
					switch {
					case jpMethods[name]:
					case jpMethods17[name]:
						p.v17 = true
					default:
						return nil, jpUnsupported("the item method ." + name + "()")
					}
					p.next()
					if p.tok != ")" && name == "decimal" {
						return nil, jpUnsupported("the item method .decimal() with a precision")
					}
					if err := p.expect(")"); err != nil {
						return nil, err
					}
					acc = &JPItem{Kind: JPMethod, Str: name}
				} else {
					acc = &JPItem{Kind: JPKey, Str: name}
				}
			default:
				return nil, jpUnsupported("the accessor ." + p.tok)
			}
		case p.tok == "[":
			p.next()
			if p.tok == "*" && !p.isStr {
				p.next()
				if err := p.expect("]"); err != nil {
					return nil, err
				}
				acc = &JPItem{Kind: JPAnyArray}
				break
			}
			p.inSubs++
			var subs []JPSub
			for {
				from, err := p.add()
				if err != nil {
					return nil, err
				}
				sub := JPSub{From: from}
				if p.tok == "to" && p.isWord {
					p.next()
					if sub.To, err = p.add(); err != nil {
						return nil, err
					}
				}
				if from.isPredicate() || sub.To != nil && sub.To.isPredicate() {
					return nil, jpUnsupported("a predicate as a subscript")
				}
				subs = append(subs, sub)
				if p.tok != "," || p.isStr {
					break
				}
				p.next()
			}
			p.inSubs--
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			acc = &JPItem{Kind: JPIndex, Subs: subs}
		case p.tok == "?":
			p.next()
			if p.tok != "(" {
				return nil, jpUnsupported("? without parentheses")
			}
			p.next()
			p.inFilter++
			a, err := p.or()
			p.inFilter--
			if err != nil {
				return nil, err
			}
			if !a.isPredicate() {
				return nil, jpUnsupported("a filter of an expression")
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			acc = &JPItem{Kind: JPFilter, Left: a}
		case p.tok == "**":
			return nil, jpUnsupported(".**")
		}
		if acc == nil {
			return it, nil
		}
		if !accessors {
			return nil, jpUnsupported("an accessor after a literal or parentheses")
		}
		last.Next = acc
		last = acc
	}
}

// String is jsonpath_out.
func (jp *PathExpr) String() string {
	var b strings.Builder
	if jp.Strict {
		b.WriteString("strict ")
	}
	jpPrint(&b, jp.Expr, false, true)
	return b.String()
}

// jpPriority is operationPriority.
func jpPriority(k JPKind) int {
	switch k {
	case JPOr:
		return 0
	case JPAnd:
		return 1
	case JPEq, JPNe, JPLt, JPGt, JPLe, JPGe, JPStartsWith:
		return 2
	case JPAdd, JPSubtract:
		return 3
	case JPMul, JPDiv, JPMod:
		return 4
	case JPPlus, JPMinus:
		return 5
	}
	return 6
}

var jpOpName = map[JPKind]string{JPAnd: "&&", JPOr: "||", JPEq: "==", JPNe: "!=", JPLt: "<", JPGt: ">", JPLe: "<=", JPGe: ">=",
	JPAdd: "+", JPSubtract: "-", JPMul: "*", JPDiv: "/", JPMod: "%", JPStartsWith: "starts with"}

// jpQuote is escape_json (writeJSONString, jsonb.go).
func jpQuote(b *strings.Builder, s string) {
	var buf bytes.Buffer
	writeJSONString(&buf, s)
	b.Write(buf.Bytes())
}

// jpPrint is printJsonPathItem.
func jpPrint(b *strings.Builder, it *JPItem, inKey, brackets bool) {
	open := func() {
		if brackets {
			b.WriteByte('(')
		}
	}
	closeB := func() {
		if brackets {
			b.WriteByte(')')
		}
	}
	child := func(c *JPItem) { jpPrint(b, c, false, jpPriority(c.Kind) <= jpPriority(it.Kind)) }
	switch it.Kind {
	case JPNull:
		b.WriteString("null")
	case JPString:
		jpQuote(b, it.Str)
	case JPNum:
		if it.Next != nil {
			b.WriteByte('(')
		}
		b.WriteString(it.Num.String())
		if it.Next != nil {
			b.WriteByte(')')
		}
	case JPBool:
		if it.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case JPAnd, JPOr, JPEq, JPNe, JPLt, JPGt, JPLe, JPGe, JPAdd, JPSubtract, JPMul, JPDiv, JPMod, JPStartsWith:
		open()
		child(it.Left)
		b.WriteString(" " + jpOpName[it.Kind] + " ")
		child(it.Right)
		closeB()
	case JPLikeRegex:
		open()
		child(it.Left)
		b.WriteString(" like_regex ")
		jpQuote(b, it.Str)
		if f := jpFlagsCanon(it.Flags); f != "" {
			b.WriteString(` flag "` + f + `"`)
		}
		closeB()
	case JPPlus, JPMinus:
		open()
		if it.Kind == JPPlus {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		child(it.Left)
		closeB()
	case JPFilter:
		b.WriteString("?(")
		jpPrint(b, it.Left, false, false)
		b.WriteByte(')')
	case JPNot:
		b.WriteString("!(")
		jpPrint(b, it.Left, false, false)
		b.WriteByte(')')
	case JPIsUnknown:
		b.WriteByte('(')
		jpPrint(b, it.Left, false, false)
		b.WriteString(") is unknown")
	case JPExists:
		b.WriteString("exists (")
		jpPrint(b, it.Left, false, false)
		b.WriteByte(')')
	case JPCurrent:
		b.WriteByte('@')
	case JPRoot:
		b.WriteByte('$')
	case JPLast:
		b.WriteString("last")
	case JPAnyArray:
		b.WriteString("[*]")
	case JPAnyKey:
		if inKey {
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case JPIndex:
		b.WriteByte('[')
		for i, s := range it.Subs {
			if i > 0 {
				b.WriteByte(',')
			}
			jpPrint(b, s.From, false, false)
			if s.To != nil {
				b.WriteString(" to ")
				jpPrint(b, s.To, false, false)
			}
		}
		b.WriteByte(']')
	case JPKey:
		if inKey {
			b.WriteByte('.')
		}
		jpQuote(b, it.Str)
	case JPVar:
		b.WriteByte('$')
		jpQuote(b, it.Str)
	case JPMethod:
		b.WriteString("." + it.Str + "()")
	case JPAny:
		if inKey {
			b.WriteByte('.')
		}
		b.WriteString(jpAnyText(it.First, it.Last))
	}
	if it.Next != nil {
		jpPrint(b, it.Next, true, true)
	}
}

// jpFlagsCanon is like_regex's flags as jsonpath_out prints them (in
// the order i s m x q), or "" for none; ParseJSONPath's caller checks
// they are known (JPRegexFlags).
func jpFlagsCanon(f string) string {
	out := ""
	for _, c := range "ismxq" {
		if strings.ContainsRune(f, c) {
			out += string(c)
		}
	}
	return out
}

// parseJSONPathValue is jsonpath_in: the path as jsonpath_out prints it.
// Before PostgreSQL 17 (d.Version set and below 170000) the item methods
// 17 added are a syntax error, as that major's grammar has no such word.
func (d Dialect) parseJSONPathValue(s string) (string, error) {
	jp, v17, err := parseJSONPath(s)
	if err != nil {
		return "", err
	}
	if v17 && !d.atLeast(170000) {
		return "", errorf(CodeSyntax, "syntax error at or near \"(\" of jsonpath input")
	}
	if err := jpCheckFlags(jp.Expr); err != nil {
		return "", err
	}
	return jp.String(), nil
}

// jpCheckFlags refuses like_regex flags other than i, s, m, x, q (the
// parser's 42601 "invalid input syntax" there is PostgreSQL's alone).
func jpCheckFlags(it *JPItem) error {
	if it == nil {
		return nil
	}
	if it.Kind == JPLikeRegex && strings.Trim(it.Flags, "ismxq") != "" {
		return jpUnsupported("like_regex flag " + strconv.Quote(it.Flags))
	}
	for _, c := range []*JPItem{it.Left, it.Right, it.Next} {
		if err := jpCheckFlags(c); err != nil {
			return err
		}
	}
	for _, s := range it.Subs {
		if err := jpCheckFlags(s.From); err != nil {
			return err
		}
		if err := jpCheckFlags(s.To); err != nil {
			return err
		}
	}
	return nil
}
