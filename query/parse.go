package query

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseExpr reads a WHERE or HAVING expression as `sidecar agg` takes it:
// predicates `col op value` (op one of = <> != < <= > >=), `col BETWEEN v
// AND w`, `col IN (v, …)`, `col IS [NOT] NULL`, `col LIKE 'abc%'`,
// combined with AND, OR, NOT and parentheses (NOT binds tightest, then
// AND, then OR, as in SQL). A value is a number, a 'quoted' string (” is
// a quote) or a bare word (true, NaN, Infinity). A column may be an
// aggregate's output name: count(*), sum(score).
func ParseExpr(s string) (*Expr, error) {
	p := &parser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, badf("expression %q: unexpected %q", s, p.toks[p.pos].s)
	}
	return e, nil
}

type token struct {
	s      string
	quoted bool
}

type parser struct {
	src  string
	toks []token
	pos  int
}

func (p *parser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return badf("expression %q: unterminated string", p.src)
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			p.toks = append(p.toks, token{s: b.String(), quoted: true})
			i = j + 1
		case strings.ContainsRune("(),", c):
			p.toks = append(p.toks, token{s: string(c)})
			i++
		case strings.ContainsRune("<>=!", c):
			j := i + 1
			for j < len(s) && strings.ContainsRune("<>=", rune(s[j])) {
				j++
			}
			p.toks = append(p.toks, token{s: s[i:j]})
			i = j
		default:
			j := i
			for j < len(s) && !unicode.IsSpace(rune(s[j])) && !strings.ContainsRune("'(),<>=!", rune(s[j])) {
				j++
			}
			// An aggregate name: word(arg).
			if j < len(s) && s[j] == '(' {
				if k := strings.IndexByte(s[j:], ')'); k > 0 && isAggName(s[i:j]) {
					j += k + 1
				}
			}
			if j == i {
				return badf("expression %q: unexpected %q", p.src, string(c))
			}
			p.toks = append(p.toks, token{s: s[i:j]})
			i = j
		}
	}
	return nil
}

func isAggName(w string) bool {
	switch strings.ToLower(w) {
	case "count", "sum", "min", "max", "avg":
		return true
	}
	return false
}

func (p *parser) peekWord(w string) bool {
	return p.pos < len(p.toks) && !p.toks[p.pos].quoted && strings.EqualFold(p.toks[p.pos].s, w)
}

func (p *parser) next() (token, error) {
	if p.pos >= len(p.toks) {
		return token{}, badf("expression %q: unexpected end", p.src)
	}
	p.pos++
	return p.toks[p.pos-1], nil
}

func (p *parser) expect(w string) error {
	if !p.peekWord(w) {
		got := "end"
		if p.pos < len(p.toks) {
			got = fmt.Sprintf("%q", p.toks[p.pos].s)
		}
		return badf("expression %q: want %s, got %s", p.src, w, got)
	}
	p.pos++
	return nil
}

func (p *parser) or() (*Expr, error) {
	return p.chain("or", p.and)
}

func (p *parser) and() (*Expr, error) {
	return p.chain("and", p.not)
}

func (p *parser) chain(op string, sub func() (*Expr, error)) (*Expr, error) {
	e, err := sub()
	if err != nil {
		return nil, err
	}
	if !p.peekWord(op) {
		return e, nil
	}
	out := &Expr{Op: op, Args: []*Expr{e}}
	for p.peekWord(op) {
		p.pos++
		e, err := sub()
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, e)
	}
	return out, nil
}

func (p *parser) not() (*Expr, error) {
	if p.peekWord("not") {
		p.pos++
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Expr{Op: "not", Args: []*Expr{e}}, nil
	}
	if p.peekWord("(") {
		p.pos++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	}
	return p.predicate()
}

func (p *parser) value() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	if !t.quoted && strings.ContainsAny(t.s, "(),<>=!") {
		return "", badf("expression %q: want a value, got %q", p.src, t.s)
	}
	if t.s == "-" && p.pos < len(p.toks) {
		n, _ := p.next()
		return "-" + n.s, nil
	}
	return t.s, nil
}

func (p *parser) predicate() (*Expr, error) {
	c, err := p.next()
	if err != nil {
		return nil, err
	}
	if c.quoted || strings.ContainsAny(c.s, ",<>=!") {
		return nil, badf("expression %q: want a column, got %q", p.src, c.s)
	}
	col := c.s
	neg := false
	if p.peekWord("not") {
		p.pos++
		neg = true
	}
	wrap := func(e *Expr) *Expr {
		if neg {
			return &Expr{Op: "not", Args: []*Expr{e}}
		}
		return e
	}
	switch {
	case !neg && p.peekWord("is"):
		p.pos++
		op := "is_null"
		if p.peekWord("not") {
			p.pos++
			op = "is_not_null"
		}
		return &Expr{Op: op, Col: col}, p.expect("null")
	case p.peekWord("between"):
		p.pos++
		lo, err := p.value()
		if err != nil {
			return nil, err
		}
		if err := p.expect("and"); err != nil {
			return nil, err
		}
		hi, err := p.value()
		if err != nil {
			return nil, err
		}
		return wrap(&Expr{Op: "between", Col: col, Values: []string{lo, hi}}), nil
	case p.peekWord("in"):
		p.pos++
		if err := p.expect("("); err != nil {
			return nil, err
		}
		e := &Expr{Op: "in", Col: col}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			e.Values = append(e.Values, v)
			if p.peekWord(",") {
				p.pos++
				continue
			}
			return wrap(e), p.expect(")")
		}
	case p.peekWord("like"):
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return wrap(&Expr{Op: "like", Col: col, Values: []string{v}}), nil
	case neg:
		return nil, badf("expression %q: NOT after %q must be followed by BETWEEN, IN or LIKE", p.src, col)
	}
	op, err := p.next()
	if err != nil {
		return nil, err
	}
	switch op.s {
	case "=", "<>", "<", "<=", ">", ">=":
	case "!=":
		op.s = "<>"
	default:
		return nil, badf("expression %q: unknown operator %q after %q", p.src, op.s, col)
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	return &Expr{Op: op.s, Col: col, Values: []string{v}}, nil
}
