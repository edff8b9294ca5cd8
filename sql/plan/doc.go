// Package plan turns a parsed SELECT (PostgreSQL's own parse tree, from
// pg_query_go) into a logical plan: a tree of relational operators over
// numbered columns, typed, with every name resolved.
//
// The phases, each a step a reader can follow:
//
//  1. Bind (bind.go, bindexpr.go, scope.go): name resolution with scopes.
//     FROM items (tables, subqueries, CTE references, joins with ON,
//     USING, NATURAL; comma lists) put their columns in a scope; a
//     subquery in an expression opens a child scope whose unresolved names
//     are looked up in the enclosing ones (correlated references, recorded
//     on the Subquery). `*` and `t.*` expand in PostgreSQL's order (USING
//     columns first). Every column gets a ColumnID in the query's Metadata;
//     operators name columns only by ID.
//  2. Logical plan (ops.go): Scan, Filter, Project, Join (inner, left,
//     right, full, semi, anti, cross), Aggregate, Sort, Limit, Distinct,
//     SetOp, Values, With/CTERef — relational operators, no choice of
//     algorithm yet.
//  3. Rules (package sql/opt): rewrites of the logical plan that keep its
//     answer: constant folding, predicate pushdown into joins and scans
//     (down to primary-key ranges), projection pushdown (columns a scan
//     reads).
//  4. EXPLAIN (explain.go): the tree as text, one operator a line.
//
// Type facts (type OIDs, names, operator and aggregate result types)
// come from typefacts.go, a minimal stand-in for the types/ package: its
// functions are the ones types/ exports, so they are swapped in when
// types/ lands.
//
// Errors carry PostgreSQL's SQLSTATE (Error): a construct the planner does
// not handle yet is 0A000 naming it, never a different answer.
package plan
