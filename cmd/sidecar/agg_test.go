package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestAggCommand: sidecar agg over a small history, at HEAD and at an
// older version, every format, and bad requests refused with exit 2.
func TestAggCommand(t *testing.T) {
	f := historytest.New(t)
	S := historytest.S
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"grp", "int4"},
		[2]string{"score", "int4"}, [2]string{"k", "text"}, [2]string{"n", "numeric"})
	var rows [][]*string
	for i := 1; i <= 100; i++ {
		score := S(strconv.Itoa(i % 7))
		if i%10 == 0 {
			score = nil
		}
		rows = append(rows, []*string{S(strconv.Itoa(i)), S(strconv.Itoa(i % 3)), score, S("k" + strconv.Itoa(i%4)), S("1.5")})
	}
	f.CreateTable(rel, rows)
	first := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("1"), S("1"), S("1000"), S("k1"), nil}) }).EndLSN.String()
	f.Commit(func(tx *historytest.Tx) { tx.Delete(rel, "2") })
	f.Close()
	cfg := writeConfig(t, f.Dir, "127.0.0.1:1", "")

	// The reference answers, computed here from the rows.
	sum, n := 0, 0
	for i := 3; i <= 100; i++ { // row 1 has score 1000, row 2 deleted
		if i%10 != 0 {
			sum += i % 7
			n++
		}
	}
	sum += 1000
	n++
	cases := []struct {
		args    []string
		code    int
		stdout  []string
		exactly string
		stderr  []string
	}{
		{args: []string{"agg", "public.t", "--count", "--sum", "score", "--count-col", "score", "--format", "csv"},
			exactly: "\"count(*)\",\"count(score)\",\"sum(score)\"\n\"99\",\"" + strconv.Itoa(n) + "\",\"" + strconv.Itoa(sum) + "\"\n"},
		{args: []string{"agg", "public.t", "--count", "--as-of", first, "--format", "csv"}, exactly: "\"count(*)\"\n\"100\"\n",
			stderr: []string{"public.t as of " + first}},
		{args: []string{"agg", "public.t", "--group-by", "grp", "--count", "--avg", "score", "--having", "count(*) >= 33", "--order-by", "grp desc", "--format", "json"},
			exactly: "{\"grp\":\"1\",\"count(*)\":\"34\",\"avg(score)\":\"36.3000000000000000\"}\n{\"grp\":\"0\",\"count(*)\":\"33\",\"avg(score)\":\"2.9666666666666667\"}\n"},
		{args: []string{"agg", "public.t", "--max", "k", "--min", "score", "--where", "k LIKE 'k3%' AND NOT score IS NULL AND id BETWEEN 1 AND 50"},
			stdout: []string{"max(k)", "min(score)", "k3  ", "0"}},
		{args: []string{"agg", "public.t", "--count", "--group-by", "k", "--limit", "2", "--format", "csv"}, exactly: "\"k\",\"count(*)\"\n\"k0\",\"25\"\n\"k1\",\"25\"\n"},
		{args: []string{"agg", "public.t", "--sum", "nope"}, code: 2, stderr: []string{`no column "nope"`}},
		{args: []string{"agg", "public.t", "--sum", "k"}, code: 2, stderr: []string{"sum(text) does not exist"}},
		{args: []string{"agg", "public.t", "--sum", "n", "--format", "csv"}, exactly: "\"sum(n)\"\n\"147.0\"\n", stderr: []string{"read from the tree"}},
		{args: []string{"agg", "public.t", "--count", "--group-by", "n", "--order-by", "n"}, stdout: []string{"n ", "count(*)", "1.5   98", "NULL  1"}},
		{args: []string{"agg", "public.t", "--count", "--where", "score >"}, code: 2, stderr: []string{"--where", "unexpected end"}},
		{args: []string{"agg", "public.t", "--count", "--order-by", "score"}, code: 2, stderr: []string{`no output column "score"`}},
		{args: []string{"agg", "public.t", "--count", "--order-by", "count(*) sideways"}, code: 2, stderr: []string{"sideways"}},
		{args: []string{"agg", "public.nope", "--count"}, code: 2, stderr: []string{"public.nope"}},
	}
	for _, c := range cases {
		out, errOut, code := historyCLI(t, append(c.args, "--config", cfg)...)
		name := strings.Join(c.args, " ")
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, c.code, out, errOut)
			continue
		}
		if c.code != 0 && out != "" {
			t.Errorf("%s: printed before failing:\n%s", name, out)
		}
		if c.exactly != "" && out != c.exactly {
			t.Errorf("%s: stdout\n%q\nwant\n%q", name, out, c.exactly)
		}
		for _, w := range c.stdout {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", name, w, out)
			}
		}
		for _, w := range c.stderr {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, w, errOut)
			}
		}
	}
}
