package plan

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// Named arguments (f(name => value)) of the library's functions that
// PostgreSQL declares with parameter names: the call is rewritten to
// positional arguments, a skipped parameter taking its declared default,
// as ParseFuncOrColumn matches names to pg_proc.proargnames. The names
// and defaults are the library's (builtin.Registry.ParamLists, per
// major); each overload's list is tried, and the call is bound when the
// lists that match give one positional form (random's three overloads
// share theirs; the resolution then picks by type).

// positionalArgs is f with its named arguments in their positions (f
// itself when it has none).
func (b *binder) positionalArgs(name string, f *pg.FuncCall) (*pg.FuncCall, error) {
	named := false
	for i, a := range f.Args {
		na := a.GetNamedArgExpr()
		if na != nil {
			named = true
			for _, o := range f.Args[:i] {
				if nb := o.GetNamedArgExpr(); nb != nil && nb.Name == na.Name {
					return nil, errorf(CodeSyntax, "argument name \"%s\" used more than once", na.Name).at(na.Location)
				}
			}
		} else if named {
			return nil, errorf(CodeSyntax, "positional argument cannot follow named argument").at(f.Location)
		}
	}
	if !named {
		return f, nil
	}
	if len(f.Funcname) > 2 {
		return nil, unsupported("named arguments of "+name, f.Location)
	}
	_, declared := builtin.ParamDecls(name)
	if !declared && !b.functions().Has(name) {
		return nil, unsupported("named arguments of "+name, f.Location)
	}
	lists, err := b.functions().ParamLists(name)
	if err != nil {
		return nil, libraryErr(err).at(f.Location)
	}
	var found *pg.FuncCall
	var foundAt []int
	for _, p := range lists {
		args, pos, ok, err := matchNamed(p, f)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if found != nil && !slices.Equal(pos, foundAt) {
			return nil, unsupported("named arguments of "+name+" matching several of its parameter lists", f.Location)
		}
		out := proto.Clone(f).(*pg.FuncCall)
		out.Args = args
		found, foundAt = out, pos
	}
	if found == nil {
		return nil, errorf(CodeUndefinedFunction, "function %s does not exist", namedCallString(name, f)).at(f.Location)
	}
	return found, nil
}

// matchNamed places f's arguments by p's names: the arguments in
// parameter order, each argument's parameter position (the form's
// identity), and whether p takes the call (every name its own, every
// parameter up to the last given either given or defaulted).
func matchNamed(p builtin.Params, f *pg.FuncCall) (args []*pg.Node, pos []int, ok bool, err error) {
	if len(f.Args) > len(p.Names) {
		return nil, nil, false, nil
	}
	args = make([]*pg.Node, len(p.Names))
	last := -1
	for i, a := range f.Args {
		na := a.GetNamedArgExpr()
		k := i
		if na != nil {
			k = slices.Index(p.Names, na.Name)
			if k < 0 || args[k] != nil {
				return nil, nil, false, nil
			}
			a = na.Arg
		}
		args[k] = a
		pos = append(pos, k)
		last = max(last, k)
	}
	firstDefault := len(p.Names) - len(p.Defaults)
	if last < firstDefault-1 {
		return nil, nil, false, nil
	}
	for i := 0; i <= last; i++ {
		if args[i] != nil {
			continue
		}
		if i < firstDefault {
			return nil, nil, false, nil
		}
		if args[i], err = defaultNode(p.Defaults[i-firstDefault]); err != nil {
			return nil, nil, false, err
		}
	}
	return args[:last+1], pos, true, nil
}

// defaultNode is a declared default (SQL text) as a parse node.
func defaultNode(sql string) (*pg.Node, error) {
	tree, err := pg.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}

// namedCallString is the call as PostgreSQL's error names it, the
// argument types left out: name(years => ..., …).
func namedCallString(name string, f *pg.FuncCall) string {
	var parts []string
	for _, a := range f.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			parts = append(parts, na.Name+" => ...")
		} else {
			parts = append(parts, "...")
		}
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}
