package types_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

// dateInputsAnswered are date.sql's inputs (and neighbours) whose
// answer does not depend on DateStyle's field order: each must be
// answered (or fail with PostgreSQL's SQLSTATE), not refused.
var dateInputsAnswered = []string{"January 8, 1999", "19990108", "1999.008",
	"1999-Jan-08", "08-Jan-1999", "Jan-08-1999", "99-08-Jan", "1999-08-Jan", "1999 Jan 08", "08 Jan 1999",
	"Jan 08 1999", "1999 08 Jan", "Jan 8 1999", "February 30, 2000", "Feb 29 2000 AD",
	"Friday January 8 1999", "1999 Jan 8 on", "2000.366", "2001.366", "1999-Jan-32", "Sept 3, 2017", "Jan 0 1999",
	"20000229", "20010229", "0019990108"}

// dateInputsRefused depend on the order (or hold a time or zone).
var dateInputsRefused = []string{"January 8, 99 BC", "99-Jan-08", "99 08 Jan", "1/8/1999", "01/02/03", "990108x", "1999-01-08 04:05", "Jan 8 99", "J2451187", "now"}

// TestDateInputAnyOrder: date input beyond ISO 8601, against
// PostgreSQL under each DateStyle order (YMD, DMY, MDY): an input the
// catalog answers must get PostgreSQL's date (or SQLSTATE) under all
// three; one it refuses is 0A000. date.sql's order-free forms must be
// answered; seeded random inputs (numbers, month and weekday names,
// AD/BC, separators) explore the rest.
func TestDateInputAnyOrder(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 25), 0))
	inputs := append(append([]string{}, dateInputsAnswered...), dateInputsRefused...)
	for range 600 {
		inputs = append(inputs, randDateInput(rng))
	}
	mustAnswer := map[string]bool{}
	for _, s := range dateInputsAnswered {
		mustAnswer[s] = true
	}
	answered := 0
	for _, s := range inputs {
		v, err := types.In(types.Date, -1, s)
		var te *types.Error
		if err != nil && errors.As(err, &te) && te.Code == types.CodeUnsupported {
			if mustAnswer[s] {
				t.Errorf("%q refused: %v", s, err)
			}
			continue
		}
		for _, order := range []string{"YMD", "DMY", "MDY"} {
			if _, err := conn.Exec(ctx, "SET DateStyle = 'ISO, "+order+"'"); err != nil {
				t.Fatal(err)
			}
			var want string
			// The simple protocol: a prepared statement's plan keeps the
			// constant folded under the DateStyle it was planned with.
			perr := conn.QueryRow(ctx, "SELECT "+quote(s)+"::date::text", pgx.QueryExecModeSimpleProtocol).Scan(&want)
			var pe *pgconn.PgError
			switch {
			case perr != nil && !errors.As(perr, &pe):
				t.Fatalf("%q: %v", s, perr)
			case perr != nil && err == nil:
				t.Errorf("%q under %s: sidecar %s, PostgreSQL fails %s %s", s, order, types.Out(types.Date, v), pe.Code, pe.Message)
			case perr != nil && !errors.As(err, &te):
				t.Errorf("%q under %s: sidecar error %v, PostgreSQL %s", s, order, err, pe.Code)
			case perr != nil && te.Code != pe.Code:
				t.Errorf("%q under %s: sidecar %s %s, PostgreSQL %s %s", s, order, te.Code, te.Message, pe.Code, pe.Message)
			case perr == nil && err != nil:
				t.Errorf("%q under %s: sidecar %v, PostgreSQL %s", s, order, err, want)
			case perr == nil && types.Out(types.Date, v) != want:
				t.Errorf("%q under %s: sidecar %s, PostgreSQL %s", s, order, types.Out(types.Date, v), want)
			}
		}
		answered++
	}
	if _, err := conn.Exec(ctx, "SET DateStyle = 'ISO'"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d inputs answered", answered, len(inputs))
}

// randDateInput joins two to four date-like fields with separators.
func randDateInput(rng *rand.Rand) string {
	months := []string{"Jan", "january", "FEB", "Sept", "sep", "Dec", "may", "mar", "Augu"}
	words := []string{"BC", "ad", "on", "at", "Friday", "mon", "tues", "x"}
	num := func() string {
		n := 1 + rng.IntN(8)
		if rng.IntN(3) > 0 {
			n = 1 + rng.IntN(4)
		}
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	seps := []string{"-", "/", ".", " ", ", ", ",", "  ", "-", " "}
	var b strings.Builder
	nf := 2 + rng.IntN(3)
	for i := range nf {
		if i > 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		switch k := rng.IntN(10); {
		case k < 6:
			b.WriteString(num())
		case k < 9:
			b.WriteString(months[rng.IntN(len(months))])
		default:
			b.WriteString(words[rng.IntN(len(words))])
		}
	}
	if rng.IntN(6) == 0 {
		b.WriteString([]string{" BC", " AD", " bc"}[rng.IntN(3)])
	}
	return b.String()
}
