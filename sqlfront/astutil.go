package sqlfront

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// nodeMsg returns the message inside a Node's oneof.
func nodeMsg(n *pg.Node) protoreflect.Message {
	if n == nil {
		return nil
	}
	m := n.ProtoReflect()
	od := m.Descriptor().Oneofs().Get(0)
	fd := m.WhichOneof(od)
	if fd == nil || fd.Kind() != protoreflect.MessageKind {
		return nil
	}
	return m.Get(fd).Message()
}

// nodeLoc is a node's location (0-based byte offset), -1 when it has none.
func nodeLoc(n *pg.Node) int {
	m := nodeMsg(n)
	if m == nil {
		return -1
	}
	if fd := m.Descriptor().Fields().ByName("location"); fd != nil {
		return int(m.Get(fd).Int())
	}
	return -1
}

// constructNames are user-facing names of parse-tree nodes for 0A000.
var constructNames = map[string]string{
	"SubLink": "a subquery", "CaseExpr": "CASE", "RangeSubselect": "a subquery in FROM", "WindowDef": "a window function",
	"A_ArrayExpr": "an ARRAY constructor", "A_Indirection": "subscripts", "RowExpr": "a row constructor",
	"CollateClause": "COLLATE", "BooleanTest": "IS TRUE/IS FALSE", "MinMaxExpr": "GREATEST/LEAST",
	"SQLValueFunction": "this SQL function", "GroupingFunc": "GROUPING", "XmlExpr": "XML functions",
	"RangeTableSample": "TABLESAMPLE", "CommonTableExpr": "WITH", "NullIfExpr": "NULLIF",
}

// nodeName names n's construct for messages.
func nodeName(n *pg.Node) string {
	m := nodeMsg(n)
	if m == nil {
		return "this construct"
	}
	name := string(m.Descriptor().Name())
	if s, ok := constructNames[name]; ok {
		return s
	}
	return name
}

// strs returns the String values of a list of nodes (names).
func strs(ns []*pg.Node) []string {
	var out []string
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// qualName joins a qualified name for messages.
func qualName(ns []*pg.Node) string { return strings.Join(strs(ns), ".") }
