package sqlfront

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL's parser (libpg_query, C, called through cgo) builds a
// left-deep tree for a chain of binary operators, casts, set operations
// or joins (`1+1+…+1`, `x::int::int…`, `SELECT 1 UNION SELECT 2 UNION
// …`) without growing its grammar stack, and turning that tree into
// protobuf recurses once per level on the calling thread's C stack. Past
// roughly 12,000–25,000 levels (8 MiB stacks; measured with `1+…+1` and
// `'a'||…`) that overflows it: a SIGSEGV inside cgo, which no recover
// catches, so one statement of 100 KB from any client took the whole
// daemon down, replication included. PostgreSQL itself refuses such a
// statement with 54001 ("stack depth limit exceeded", from 4,500 `+`
// at its default max_stack_depth), and the Go side refuses anything
// past protobuf's nesting limit (about 5,000 levels).
//
// checkParseDepth runs before the parser: it estimates the tree's depth
// from the statement's tokens (the lexer does not recurse) and refuses
// a statement whose estimate exceeds maxParseDepth with PostgreSQL's
// code. The estimate bounds the depth from above: per parenthesis level
// it counts the operators since the last token that starts a new
// expression at that level (a comma, AND/OR — whose chains the grammar
// flattens — or a clause keyword), plus the set operations and joins of
// that level, and adds up the open levels. Right-nested forms (prefix
// NOT, parentheses, subqueries, CASE) grow the grammar's own stack,
// which stops them with "memory exhausted" long before the C stack.

// maxParseDepth is the estimated tree depth above which a statement is
// refused before parsing: near PostgreSQL's own limit for operator
// chains, far below the depth that overflows the C stack.
const maxParseDepth = 4000

// parseDepthMinBytes: a statement shorter than this cannot reach
// maxParseDepth (every counted level takes at least one byte and its
// operand another), so its tokens are not scanned.
const parseDepthMinBytes = 2 * maxParseDepth

// parseSQL parses text with PostgreSQL's parser after checkParseDepth;
// a tree too deep for the Go side's decoder is refused with the same
// code.
func parseSQL(text string) (*pg.ParseResult, error) {
	if err := checkParseDepth(text); err != nil {
		return nil, err
	}
	tree, err := pg.Parse(text)
	if err != nil && strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return nil, stackDepthError()
	}
	return tree, err
}

func stackDepthError() *Error {
	return &Error{Code: "54001", Msg: "stack depth limit exceeded", Pos: -1,
		Hint: fmt.Sprintf("sidecar refuses statements whose expressions, joins or set operations nest more than %d levels deep.", maxParseDepth)}
}

// checkParseDepth refuses text when its estimated parse-tree depth
// exceeds maxParseDepth (see above); text the lexer rejects is left to
// the parser, which reports the error.
func checkParseDepth(text string) error {
	if len(text) < parseDepthMinBytes {
		return nil
	}
	sr, err := pg.Scan(text)
	if err != nil {
		return nil
	}
	// One entry per open parenthesis or bracket: the operators since the
	// expression at that level began, the joins since its FROM item
	// began, and its set operations (a chain of those spans select lists,
	// so only the level's end or the statement's resets it).
	type level struct{ ops, joins, setops int }
	levels := []level{{}}
	total := 0 // sum of ops+chains over levels, plus the open levels beyond the first
	for _, t := range sr.Tokens {
		top := &levels[len(levels)-1]
		switch t.Token {
		case pg.Token_ASCII_40, pg.Token_ASCII_91: // ( [
			levels = append(levels, level{})
			total++
			continue
		case pg.Token_ASCII_41, pg.Token_ASCII_93: // ) ]
			if len(levels) > 1 {
				total -= top.ops + top.joins + top.setops + 1
				levels = levels[:len(levels)-1]
			}
			continue
		case pg.Token_ASCII_59: // ; ends the statement
			levels = levels[:1]
			levels[0] = level{}
			total = 0
			continue
		case pg.Token_ASCII_44, pg.Token_AND, pg.Token_OR, pg.Token_SELECT, pg.Token_FROM,
			pg.Token_WHERE, pg.Token_HAVING, pg.Token_ON, pg.Token_USING, pg.Token_WHEN,
			pg.Token_THEN, pg.Token_ELSE, pg.Token_GROUP_P, pg.Token_ORDER, pg.Token_LIMIT,
			pg.Token_OFFSET, pg.Token_RETURNING, pg.Token_SET, pg.Token_VALUES,
			pg.Token_WINDOW, pg.Token_FETCH:
			total -= top.ops
			top.ops = 0
			if t.Token == pg.Token_ASCII_44 || t.Token == pg.Token_SELECT { // a FROM item's joins end too
				total -= top.joins
				top.joins = 0
			}
			continue
		case pg.Token_JOIN:
			top.joins++
		case pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT:
			top.setops++
		case pg.Token_Op, pg.Token_ASCII_42, pg.Token_ASCII_43, pg.Token_ASCII_45,
			pg.Token_ASCII_47, pg.Token_ASCII_37, pg.Token_ASCII_94, pg.Token_ASCII_60,
			pg.Token_ASCII_62, pg.Token_ASCII_61, pg.Token_LESS_EQUALS, pg.Token_GREATER_EQUALS,
			pg.Token_NOT_EQUALS, pg.Token_TYPECAST, pg.Token_LIKE, pg.Token_ILIKE,
			pg.Token_SIMILAR, pg.Token_IS, pg.Token_ISNULL, pg.Token_NOTNULL, pg.Token_BETWEEN,
			pg.Token_IN_P, pg.Token_AT, pg.Token_COLLATE, pg.Token_OPERATOR:
			top.ops++
		default:
			continue
		}
		total++
		if total > maxParseDepth {
			return stackDepthError()
		}
	}
	return nil
}
