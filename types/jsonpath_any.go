package types

import (
	"strconv"
)

// jsonpath's .** accessor (any_path in jsonpath_gram.y) and the item
// methods the subset reads.

// jpMethods are the item methods every major has (datetime() aside,
// which the subset does not read).
var jpMethods = map[string]bool{"size": true, "type": true, "abs": true, "floor": true, "ceiling": true, "keyvalue": true, "double": true}

// jpMethods17 are the methods PostgreSQL 17 added (without arguments:
// .decimal(p, s) and the datetime ones are not read).
var jpMethods17 = map[string]bool{"bigint": true, "boolean": true, "integer": true, "number": true, "string": true, "decimal": true}

// anyPath reads ** and its optional {level [to level]} (p at **).
func (p *jpParser) anyPath() (*JPItem, error) {
	p.next()
	it := &JPItem{Kind: JPAny, First: 0, Last: JPLastLevel}
	if p.tok != "{" || p.isStr {
		return it, p.err
	}
	p.next()
	first, err := p.anyLevel()
	if err != nil {
		return nil, err
	}
	last := first
	if p.tok == "to" && p.isWord {
		p.next()
		if last, err = p.anyLevel(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("}"); err != nil {
		return nil, err
	}
	it.First, it.Last = first, last
	return it, nil
}

// anyLevel is any_level: an integer (int4, read as an unsigned level)
// or last.
func (p *jpParser) anyLevel() (uint32, error) {
	if p.err != nil {
		return 0, p.err
	}
	switch {
	case p.isWord && p.tok == "last":
		p.next()
		return JPLastLevel, p.err
	case p.isNum:
		n, err := strconv.ParseInt(p.tok, 10, 32)
		if err != nil {
			return 0, jpUnsupported("the level " + strconv.Quote(p.tok) + " of .**")
		}
		p.next()
		return uint32(n), p.err
	}
	return 0, jpUnsupported("the level " + strconv.Quote(p.tok) + " of .**")
}

// jpAnyText prints .** as printJsonPathItem does.
func jpAnyText(first, last uint32) string {
	level := func(l uint32) string {
		if l == JPLastLevel {
			return "last"
		}
		return strconv.FormatUint(uint64(l), 10)
	}
	switch {
	case first == 0 && last == JPLastLevel:
		return "**"
	case first == last:
		return "**{" + level(first) + "}"
	}
	return "**{" + level(first) + " to " + level(last) + "}"
}
