package plan

// A hypothetical-set aggregate's direct argument and its ORDER BY key
// are one value compared with the other, so PostgreSQL merges their
// collations (parse_collate.c, assign_hypothetical_collations): two
// different explicit COLLATE clauses fail with 42P21 (the regression
// corpus's aggregates.sql:784, `rank('adam'::text COLLATE "C") WITHIN
// GROUP (ORDER BY x COLLATE "POSIX")`, which the sidecar answered).

// codeCollationMismatch is PostgreSQL's collation_mismatch SQLSTATE.
const codeCollationMismatch = "42P21"

// hypoCollations refuses a direct argument d and its key k that carry
// different explicit collations, as PostgreSQL does.
func hypoCollations(d, k Scalar) error {
	c1, ok1 := ExplicitCollation(d)
	c2, ok2 := ExplicitCollation(k)
	if ok1 && ok2 && c1 != c2 {
		return errorf(codeCollationMismatch, "collation mismatch between explicit collations \"%s\" and \"%s\"", c1, c2)
	}
	return nil
}
