package main

import "github.com/sidecar-dev/sidecar/internal/pgident"

// tableArg reads a table name given on the command line the way the
// configuration reads one (a bare name is in public, unquoted parts fold to
// lower case, "quoted" parts are literal) and returns its canonical form,
// the mirror's key for the table: `Accounts` and `public.accounts` both
// name public.accounts, and `'"Mixed.Case"."Odd Name"'` names the table
// whose schema holds a dot.
func tableArg(s string) (string, error) {
	t, err := pgident.ParseTable(s)
	if err != nil {
		return "", usageError(err, `quote parts that are not lower-case identifiers, as in SQL: sidecar scan 'app."Order Items"'`)
	}
	return t.String(), nil
}

// tableArgs puts each of names (a repeated --table) in canonical form, in
// place.
func tableArgs(names []string) error {
	for i, s := range names {
		t, err := tableArg(s)
		if err != nil {
			return err
		}
		names[i] = t
	}
	return nil
}
