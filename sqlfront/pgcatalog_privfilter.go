package sqlfront

import (
	"slices"

	"github.com/sidecar-dev/sidecar/wal"
)

// information_schema's privilege filter (issue 23, sessions 25 and 27).
// PostgreSQL's information_schema views list only the objects the
// current role may see; their WHERE clauses (the same on 14 to 18):
//
//   - tables: pg_has_role(relowner, 'USAGE') OR has_table_privilege(oid,
//     'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER') OR
//     has_any_column_privilege(oid, 'SELECT, INSERT, UPDATE, REFERENCES');
//   - columns, key_column_usage: the owner's role OR
//     has_column_privilege(oid, attnum, 'SELECT, INSERT, UPDATE, REFERENCES');
//   - table_constraints, referential_constraints: the owner's role OR
//     has_table_privilege(…, 'INSERT, UPDATE, DELETE, TRUNCATE,
//     REFERENCES, TRIGGER') OR has_any_column_privilege(…, 'INSERT,
//     UPDATE, REFERENCES') — SELECT alone does not show a constraint;
//   - constraint_column_usage: the owner's role of the column's table;
//   - sequences: the owner's role OR has_sequence_privilege(oid,
//     'SELECT, UPDATE, USAGE');
//   - schemata: pg_has_role(nspowner, 'USAGE') OR
//     has_schema_privilege(oid, 'CREATE, USAGE').
//
// sidecar listed every relation whatever the session's role (a wrong
// answer), then refused the views for a role that does not own
// everything (session 25). The rows are now filtered by those
// conditions, evaluated for the session's user (pgcatalog_privileges.go)
// over the ACLs and roles the copy and each catalog poll read: up to one
// poll stale after GRANT, REVOKE, ALTER … OWNER TO or a role change. No
// filter applies to a superuser, nor to a user that is not a role of the
// server (a user of sidecar's own users file) or when the roles were not
// read (as before: every relation listed). A row whose relation or
// column the filter cannot identify, or a check the facts do not decide,
// refuses the statement 0A000.

// infoSchemaVisible are the rows of information_schema.view that
// PostgreSQL lists for the session's user.
func infoSchemaVisible(cx *pgCatCtx, view string, rows [][]*string) ([][]*string, error) {
	check := infoSchemaChecks[view]
	if check == nil {
		return rows, nil
	}
	e, known, err := newPrivEval(cx, cx.user) // pgcatalog_privileges.go
	if err != nil {
		return nil, refuseInfoSchema(view, cx.user, err)
	}
	if !known || e.super {
		return rows, nil
	}
	out := rows[:0:0]
	for _, row := range rows {
		ok, err := check(e, row)
		if err != nil && slices.Contains(row, pgStandIn) {
			// A stand-in for rows sidecar does not know: kept, it refuses
			// the statement unless the statement's filter drops it.
			ok, err = true, nil
		}
		if err != nil {
			return nil, refuseInfoSchema(view, cx.user, err)
		}
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// refuseInfoSchema names the view and the role in the refusal err.
func refuseInfoSchema(view, user string, err error) error {
	return unsupported(-1, "information_schema."+view+" for the role "+user+": its rows are filtered by the role's privileges, and "+err.Error())
}

// The privileges each view's conditions ask for.
const (
	tablePrivs      = privSelect | privInsert | privUpdate | privDelete | privTruncate | privReferences | privTrigger
	columnPrivs     = privSelect | privInsert | privUpdate | privReferences
	constraintPrivs = privInsert | privUpdate | privDelete | privTruncate | privReferences | privTrigger
	constraintCols  = privInsert | privUpdate | privReferences
)

// infoSchemaChecks are the views' row conditions by view name.
var infoSchemaChecks = map[string]func(e *privEval, row []*string) (bool, error){
	"tables": func(e *privEval, row []*string) (bool, error) {
		return e.tableVisible(row[1], row[2], tablePrivs, columnPrivs)
	},
	"columns": func(e *privEval, row []*string) (bool, error) {
		return e.columnVisible(row[1], row[2], row[3])
	},
	"table_constraints": func(e *privEval, row []*string) (bool, error) {
		return e.tableVisible(row[4], row[5], constraintPrivs, constraintCols)
	},
	"key_column_usage": func(e *privEval, row []*string) (bool, error) {
		return e.columnVisible(row[4], row[5], row[6])
	},
	"constraint_column_usage": func(e *privEval, row []*string) (bool, error) {
		r, err := e.relationNamed(row[1], row[2])
		if err != nil {
			return false, err
		}
		return e.owns(r.Owner), nil
	},
	"referential_constraints": func(e *privEval, row []*string) (bool, error) {
		return e.foreignKeyVisible(row[1], row[2])
	},
	"sequences": func(e *privEval, row []*string) (bool, error) {
		r, err := e.relationNamed(row[1], row[2])
		if err != nil {
			return false, err
		}
		if e.owns(r.Owner) {
			return true, nil
		}
		return e.relationPrivilege(r, privSelect|privUpdate|privUsage)
	},
	"schemata": func(e *privEval, row []*string) (bool, error) {
		if err := e.relations(); err != nil {
			return false, err
		}
		if row[1] == nil || row[1] == pgUnknown || row[1] == pgStandIn {
			return false, errPrivUnknown("a schema whose name is not known")
		}
		n, ok := e.spaces[*row[1]]
		if !ok {
			return false, errPrivUnknown("the schema " + *row[1] + ", not among the schemas read")
		}
		if e.owns(n.Owner) {
			return true, nil
		}
		return e.schemaPrivilege(n.OID, n.Owner, privCreate|privUsage)
	},
}

// tableVisible: the owner's role, a table privilege of tmask or a
// column privilege of cmask on schema.name.
func (e *privEval) tableVisible(schema, name *string, tmask, cmask uint32) (bool, error) {
	r, err := e.relationNamed(schema, name)
	if err != nil {
		return false, err
	}
	if e.owns(r.Owner) {
		return true, nil
	}
	if ok, err := e.relationPrivilege(r, tmask); ok || err != nil {
		return ok, err
	}
	return e.anyColumnPrivilege(r, cmask)
}

// columnVisible: the owner's role or a privilege of columnPrivs on the
// column.
func (e *privEval) columnVisible(schema, name, column *string) (bool, error) {
	r, err := e.relationNamed(schema, name)
	if err != nil {
		return false, err
	}
	if e.owns(r.Owner) {
		return true, nil
	}
	if column == nil || column == pgUnknown || column == pgStandIn {
		return false, errPrivUnknown("a column whose name is not known")
	}
	return e.columnPrivilege(r, *column, columnPrivs)
}

// foreignKeyVisible is referential_constraints' condition on the table
// of the foreign key schema.name: the followed tables of that schema
// with a foreign key of that name; refused when they disagree.
func (e *privEval) foreignKeyVisible(schema, name *string) (bool, error) {
	if schema == nil || name == nil || schema == pgUnknown || name == pgUnknown || schema == pgStandIn || name == pgStandIn {
		return false, errPrivUnknown("a foreign key whose table is not known")
	}
	seen, verdict := false, false
	for i := range e.cx.tables {
		t := &e.cx.tables[i]
		s := schemaFactsOf(t)
		if t.Schema != *schema || s == nil || !hasForeignKey(s, *name) {
			continue
		}
		ok, err := e.tableVisible(sv(t.Schema), sv(t.Rel), constraintPrivs, constraintCols)
		if err != nil {
			return false, err
		}
		if seen && ok != verdict {
			return false, errPrivUnknown("which of the tables with a foreign key named " + *name + " the row is of")
		}
		seen, verdict = true, ok
	}
	if !seen {
		return false, errPrivUnknown("the table of the foreign key " + *schema + "." + *name)
	}
	return verdict, nil
}

// hasForeignKey says whether s has a foreign key named name.
func hasForeignKey(s *wal.SchemaFacts, name string) bool {
	for _, c := range s.Constraints {
		if c.Type == 'f' && c.Name == name {
			return true
		}
	}
	return false
}
