// Package plantest runs the planner's data-driven tests: files of SQL
// statements and the text the planner gives for each (EXPLAIN or an
// error), checked, or rewritten with -update. It also builds the test
// catalog from CREATE TABLE statements.
//
// A test file is a list of cases:
//
//	# comments
//	<directive>
//	SELECT …
//	----
//	<expected output, no blank lines>
//
// separated by blank lines.
package plantest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of the planner tests")

// Case is one test case.
type Case struct {
	Directive string
	SQL       string
	Want      string
	comments  string
}

// Run runs every file matching glob: run(directive, sql) is the output.
func Run(t *testing.T, glob string, run func(t *testing.T, directive, sql string) string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files %s (%v)", glob, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases, err := parse(string(b))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var out strings.Builder
			for i := range cases {
				c := &cases[i]
				got := strings.TrimRight(run(t, c.Directive, c.SQL), "\n")
				if *update {
					c.Want = got
				} else if got != c.Want {
					t.Errorf("%s: %s\n%s\n----\ngot:\n%s\n\nwant:\n%s", f, c.Directive, c.SQL, got, c.Want)
				}
				if i > 0 {
					out.WriteString("\n")
				}
				fmt.Fprintf(&out, "%s%s\n%s\n----\n%s\n", c.comments, c.Directive, c.SQL, c.Want)
			}
			if *update {
				if err := os.WriteFile(f, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func parse(s string) ([]Case, error) {
	var cases []Case
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		var c Case
		for i < len(lines) && (strings.HasPrefix(lines[i], "#") || strings.TrimSpace(lines[i]) == "") {
			if strings.HasPrefix(lines[i], "#") {
				c.comments += lines[i] + "\n"
			}
			i++
		}
		if i >= len(lines) {
			break
		}
		c.Directive = strings.TrimSpace(lines[i])
		i++
		var sql []string
		for i < len(lines) && lines[i] != "----" {
			sql = append(sql, lines[i])
			i++
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("case %q: no ----", c.Directive)
		}
		i++
		c.SQL = strings.Join(sql, "\n")
		var want []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			want = append(want, lines[i])
			i++
		}
		c.Want = strings.Join(want, "\n")
		cases = append(cases, c)
	}
	return cases, nil
}

// Catalog is a test catalog: tables from CREATE TABLE statements.
type Catalog struct {
	tables map[string]*plan.TableDef
	// Session are the session's functions the catalog answers
	// (current_user, current_database, version, …: name → value; a
	// string is of type name except version's, of type text), as a
	// front end's catalog answers them; empty: none.
	Session map[string]types.Value
	// Funcs is the function library the statements bind against (the
	// followed major's, builtin.NewFor), as a front end's catalog names
	// it (plan.FuncRegistry); nil: the binder's default library.
	Funcs *builtin.Registry
}

// Functions implements plan.FuncRegistry: Funcs.
func (c *Catalog) Functions() *builtin.Registry { return c.Funcs }

// HasFunc implements plan.FuncCatalog: the Session functions.
func (c *Catalog) HasFunc(name string) bool {
	_, ok := c.Session[name]
	return ok
}

// Func implements plan.FuncCatalog: a Session function of no
// arguments, its value.
func (c *Catalog) Func(name string, args []plan.Type) (*plan.ExtFunc, error) {
	v, ok := c.Session[name]
	if !ok {
		return nil, nil
	}
	if len(args) != 0 {
		return nil, plan.ExtError(plan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	t := plan.T(types.Name)
	switch v.(type) {
	case bool:
		t = plan.T(types.Bool)
	case string:
		if name == "version" {
			t = plan.T(types.Text)
		}
	}
	return &plan.ExtFunc{Result: t, NullOK: true, Eval: func([]types.Value) (types.Value, error) { return v, nil }}, nil
}

// Table implements plan.Catalog.
func (c *Catalog) Table(schema, name string) *plan.TableDef {
	if schema == "" {
		schema = "public"
	}
	return c.tables[schema+"."+name]
}

// LoadCatalog reads CREATE TABLE statements (column names, types, NOT
// NULL, PRIMARY KEY inline or as a table constraint) from file.
func LoadCatalog(file string) (*Catalog, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	tree, err := pg.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	cat := &Catalog{tables: map[string]*plan.TableDef{}}
	for _, st := range tree.Stmts {
		cs := st.Stmt.GetCreateStmt()
		if cs == nil {
			return nil, fmt.Errorf("%s: only CREATE TABLE statements", file)
		}
		t := &plan.TableDef{Schema: cs.Relation.Schemaname, Name: cs.Relation.Relname}
		if t.Schema == "" {
			t.Schema = "public"
		}
		keyNames := func(list []*pg.Node) {
			for _, k := range list {
				for i, c := range t.Columns {
					if c.Name == k.GetString_().Sval {
						t.Key = append(t.Key, i)
					}
				}
			}
		}
		for _, e := range cs.TableElts {
			if cd := e.GetColumnDef(); cd != nil {
				typ, err := plan.TypeOf(cd.TypeName)
				if err != nil {
					return nil, fmt.Errorf("%s: column %s: %w", t.Name, cd.Colname, err)
				}
				col := plan.ColumnDef{Name: cd.Colname, Type: typ}
				for _, cn := range cd.Constraints {
					switch cn.GetConstraint().Contype {
					case pg.ConstrType_CONSTR_NOTNULL:
						col.NotNull = true
					case pg.ConstrType_CONSTR_PRIMARY:
						col.NotNull = true
						t.Key = append(t.Key, len(t.Columns))
					}
				}
				t.Columns = append(t.Columns, col)
			} else if con := e.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_PRIMARY {
				keyNames(con.Keys)
			}
		}
		t.PrimaryKey = t.Key // the test catalog's keys are PRIMARY KEY constraints
		cat.tables[t.QualifiedName()] = t
	}
	return cat, nil
}
