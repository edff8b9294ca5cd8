package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Named arguments (f(name => value)) of the library's functions that
// PostgreSQL declares with parameter names: the call is rewritten to
// positional arguments, a skipped parameter taking its declared default
// (make_interval's are all 0), as ParseFuncOrColumn matches names to
// pg_proc.proargnames.

// paramNames are the functions' proargnames (and how many trailing
// parameters have defaults).
var paramNames = map[string]struct {
	names    []string
	defaults int
}{
	"make_interval":    {[]string{"years", "months", "weeks", "days", "hours", "mins", "secs"}, 7},
	"make_date":        {[]string{"year", "month", "day"}, 0},
	"make_time":        {[]string{"hour", "min", "sec"}, 0},
	"make_timestamp":   {[]string{"year", "month", "mday", "hour", "min", "sec"}, 0},
	"make_timestamptz": {[]string{"year", "month", "mday", "hour", "min", "sec", "timezone"}, 0},
}

// positionalArgs is f with its named arguments in their positions (f
// itself when it has none).
func positionalArgs(name string, f *pg.FuncCall) (*pg.FuncCall, error) {
	named := false
	for _, a := range f.Args {
		if a.GetNamedArgExpr() != nil {
			named = true
		} else if named {
			return nil, errorf(CodeSyntax, "positional argument cannot follow named argument").at(f.Location)
		}
	}
	if !named {
		return f, nil
	}
	p, ok := paramNames[name]
	if !ok || len(f.Funcname) > 2 {
		return nil, unsupported("named arguments of "+name, f.Location)
	}
	args := make([]*pg.Node, len(p.names))
	last := -1
	for i, a := range f.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			args[i], last = a, max(last, i)
			continue
		}
		k := -1
		for j, n := range p.names {
			if n == na.Name {
				k = j
			}
		}
		for _, b := range f.Args[:i] {
			if nb := b.GetNamedArgExpr(); nb != nil && nb.Name == na.Name {
				return nil, errorf(CodeSyntax, "argument name \"%s\" used more than once", na.Name).at(na.Location)
			}
		}
		if k < 0 || args[k] != nil {
			return nil, errorf(CodeUndefinedFunction, "function %s does not exist", namedCallString(name, f)).at(f.Location)
		}
		args[k], last = na.Arg, max(last, k)
	}
	firstDefault := len(p.names) - p.defaults
	for i := 0; i <= last; i++ {
		if args[i] == nil {
			if i < firstDefault {
				return nil, errorf(CodeUndefinedFunction, "function %s does not exist", namedCallString(name, f)).at(f.Location)
			}
			args[i] = pg.MakeAConstIntNode(0, -1) // the declared default, 0
		}
	}
	if last < firstDefault-1 {
		return nil, errorf(CodeUndefinedFunction, "function %s does not exist", namedCallString(name, f)).at(f.Location)
	}
	out := proto.Clone(f).(*pg.FuncCall)
	out.Args = args[:last+1]
	return out, nil
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
