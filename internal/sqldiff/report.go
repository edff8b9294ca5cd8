package sqldiff

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// KnownWrong is the checked-in list of wrong answers the corpus test
// tolerates: "file.sql:line" → the issue item it belongs to.
type KnownWrong map[string]string

// ParseKnownWrong reads lines "file.sql:line<TAB>issue N item M<TAB>note";
// blank lines and lines starting with # are ignored.
func ParseKnownWrong(r io.Reader) (KnownWrong, error) {
	k := KnownWrong{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 2 || !strings.Contains(f[0], ".sql:") || !strings.HasPrefix(f[1], "issue ") {
			return nil, fmt.Errorf("known-wrong line %d: want \"file.sql:line<TAB>issue N item M<TAB>note\", got %q", n, l)
		}
		k[f[0]] = f[1]
	}
	return k, sc.Err()
}

// Key is how a statement is named in the known-wrong list.
func Key(file string, st Statement) string { return fmt.Sprintf("%s:%d", file, st.Line) }

// quoted matches quoted names and literals in messages, so that the
// histogram groups refusals by construct, not by the name in them.
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// refusalKey is a refusal's histogram bucket.
func refusalKey(o Outcome) string {
	return o.Code + " " + firstLine(quoted.ReplaceAllString(o.Message, `"…"`), 110)
}

// WriteMarkdown writes the corpus report: per script the share of
// statements answered identically, the refusal histogram, then every
// wrong answer and error mismatch with its statement.
func WriteMarkdown(w io.Writer, reps []*ScriptReport, known KnownWrong) error {
	b := &strings.Builder{}
	fmt.Fprintln(b, "| script | PostgreSQL answers | identical | % | order only | refused | timeout | error mismatch | wrong | PG error both | volatile | setup errors | tables | took |")
	fmt.Fprintln(b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var tot [10]int
	for _, r := range reps {
		wrong := r.Count(Different) + r.Count(Columns) + r.Count(AnsweredError) + r.Count(ErrorCode)
		row := [10]int{r.Counted(), r.Count(Identical), r.Count(OrderOnly), r.Count(Refused), r.Count(Timeout), r.Count(ErrorMismatch), wrong, r.Count(PGError), r.Count(Volatile), r.SetupErrors}
		for i := range tot {
			tot[i] += row[i]
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s |\n", r.Name, row[0], row[1], Percent(row[1], row[0]),
			row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], r.Tables, r.Took.Seconds())
	}
	fmt.Fprintf(b, "| **all** | %d | %d | **%s** | %d | %d | %d | %d | %d | %d | %d | %d | | |\n\n", tot[0], tot[1], Percent(tot[1], tot[0]),
		tot[2], tot[3], tot[4], tot[5], tot[6], tot[7], tot[8], tot[9])

	hist := map[string]int{}
	for _, r := range reps {
		for _, x := range r.Results {
			if x.Outcome.Class == Refused {
				hist[refusalKey(x.Outcome)]++
			}
		}
	}
	keys := make([]string, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, c string) int { return cmp.Or(cmp.Compare(hist[c], hist[a]), cmp.Compare(a, c)) })
	fmt.Fprintf(b, "### Refusals (%d), by SQLSTATE and message\n\n| count | SQLSTATE and message |\n|---:|---|\n", tot[3])
	for _, k := range keys {
		fmt.Fprintf(b, "| %d | %s |\n", hist[k], strings.ReplaceAll(k, "|", `\|`))
	}

	section := func(title string, pick func(Result) (Outcome, bool)) {
		fmt.Fprintf(b, "\n### %s\n\n", title)
		n := 0
		for _, r := range reps {
			for _, x := range r.Results {
				o, ok := pick(x)
				if !ok {
					continue
				}
				n++
				k := Key(r.Name, x.Stmt)
				tag := ""
				if item, listed := known[k]; listed {
					tag = " (known: " + item + ")"
				}
				fmt.Fprintf(b, "- `%s` %s%s: `%s`\n  - %s%s\n", k, o.Class, tag, strings.ReplaceAll(firstLine(x.Stmt.SQL, 300), "`", "'"),
					strings.ReplaceAll(firstLine(o.Code+" "+o.Message, 400), "`", "'"), "")
			}
		}
		if n == 0 {
			fmt.Fprintln(b, "None.")
		}
	}
	section("Wrong answers", func(x Result) (Outcome, bool) {
		if x.Outcome.Class.Wrong() {
			return x.Outcome, true
		}
		if x.Binary != nil && x.Binary.Class.Wrong() {
			o := *x.Binary
			o.Message = "binary format: " + o.Message
			return o, true
		}
		return Outcome{}, false
	})
	section("Error mismatches (PostgreSQL answered; the sidecar failed without refusing)", func(x Result) (Outcome, bool) {
		return x.Outcome, x.Outcome.Class == ErrorMismatch
	})
	section("Order only (same rows under ORDER BY in another order: ties, or a wrong sort)", func(x Result) (Outcome, bool) {
		return x.Outcome, x.Outcome.Class == OrderOnly
	})
	section("Timeouts", func(x Result) (Outcome, bool) { return x.Outcome, x.Outcome.Class == Timeout })
	var sets []string
	for _, r := range reps {
		for _, s := range r.SetRefused {
			sets = append(sets, r.Name+": "+s)
		}
		for _, s := range r.NotFollowed {
			sets = append(sets, r.Name+": not followed "+s)
		}
	}
	if len(sets) > 0 {
		fmt.Fprintf(b, "\n### SET statements the sidecar refused, tables it did not follow\n\n")
		for _, s := range sets {
			fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(firstLine(s, 300), "`", "'"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
