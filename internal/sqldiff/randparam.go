package sqldiff

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Parameterized queries of the wide generator (prepared statements over
// the extended protocol): the parameters' types are inferred by each
// server (compared too) and sent in text or binary format, results in
// text or binary.

// ParamQuery is a query with $n parameters and their values (Go
// values: int64, string, bool, nil).
type ParamQuery struct {
	WideQuery
	Params []any
}

// paramVals are values by kind.
var paramVals = map[string][]any{
	"int":  {int64(0), int64(1), int64(3), int64(-1), nil, int64(2147483647)},
	"text": {"apple", "banana ", "x", "", nil, "a%", "éclair", "ab"},
	"num":  {"1.0", "2.50", "-3", "0", nil, "100.10"},
	"date": {"2024-02-29", "2024-03-01", nil, "infinity"},
	"ts":   {"2024-03-01 12:00:00", "2024-03-05 00:00:00", nil},
	"bool": {true, false, nil},
}

// NextParam draws a parameterized query.
func (g *WideGen) NextParam() ParamQuery {
	type tmpl struct {
		sql   string
		kinds []string
		ord   bool
	}
	ts := []tmpl{
		{"SELECT a.id, a.k FROM wa a WHERE a.k = $1 ORDER BY a.id", []string{"int"}, true},
		{"SELECT a.id, a.t FROM wa a WHERE a.t = $1", []string{"text"}, false},
		{"SELECT a.id, a.c FROM wa a WHERE a.c = $1", []string{"text"}, false},
		{"SELECT a.id, a.v FROM wa a WHERE a.v = $1", []string{"text"}, false},
		{"SELECT a.id, a.n FROM wa a WHERE a.n > $1", []string{"num"}, false},
		{"SELECT a.id FROM wa a WHERE a.d < $1", []string{"date"}, false},
		{"SELECT a.id, a.ts FROM wa a WHERE a.ts >= $1 ORDER BY a.id LIMIT 5", []string{"ts"}, true},
		{"SELECT a.id FROM wa a WHERE a.id IN ($1, $2)", []string{"int", "int"}, false},
		{"SELECT a.id, a.k + $1 FROM wa a WHERE a.k + $1 > 3", []string{"int"}, false},
		{"SELECT a.id, coalesce(a.k, $1) FROM wa a", []string{"int"}, false},
		{"SELECT a.id FROM wa a WHERE a.t LIKE $1", []string{"text"}, false},
		{"SELECT a.id FROM wa a WHERE a.id BETWEEN $1 AND $2", []string{"int", "int"}, false},
		{"SELECT a.id FROM wa a ORDER BY a.id LIMIT $1 OFFSET $2", []string{"int", "int"}, true},
		{"SELECT a.id, $1::text || a.t FROM wa a", []string{"text"}, false},
		{"SELECT a.k, count(*) FROM wa a WHERE a.d > $1 GROUP BY a.k", []string{"date"}, false},
		{"SELECT a.id, a.d - $1 FROM wa a", []string{"date"}, false},
		{"SELECT a.id, a.flag = $1 FROM wa a", []string{"bool"}, false},
		{"SELECT $1, $2", []string{"text", "int"}, false},
		{"SELECT $1::int + 1, $2::numeric * 2", []string{"int", "num"}, false},
		{"SELECT a.wid, a.seq FROM wb a WHERE (a.wid, a.seq) = ($1, $2)", []string{"int", "int"}, false},
		{"SELECT a.wid, a.seq, a.s FROM wb a WHERE a.wid = $1 AND a.s IS NOT DISTINCT FROM $2", []string{"int", "text"}, false},
		{"SELECT a.id, a.k FROM wa a WHERE a.k > ALL (SELECT x FROM wb WHERE wb.seq = $1)", []string{"int"}, false},
		{"SELECT a.id, CASE WHEN a.k = $1 THEN $2 ELSE a.t END FROM wa a", []string{"int", "text"}, false},
		{"SELECT a.k, sum(a.n) FILTER (WHERE a.t <> $1) FROM wa a GROUP BY a.k", []string{"text"}, false},
		{"SELECT a.id, a.m FROM wb a WHERE a.m = $1", []string{"num"}, false},
		{"SELECT a.id, a.s FROM wp a WHERE a.k = $1", []string{"int"}, false},
	}
	t := ts[g.r.IntN(len(ts))]
	q := ParamQuery{WideQuery: WideQuery{SQL: t.sql, Ordered: t.ord}}
	for _, k := range t.kinds {
		vs := paramVals[k]
		q.Params = append(q.Params, vs[g.r.IntN(len(vs))])
	}
	return q
}

// runParams prepares sql, then executes it with the parameters in the
// given format (text, or binary where the value encodes as the
// parameter's type) and results in resultFormat. The answer's first
// column list holds the parameter types.
func runParams(ctx context.Context, s *Session, q ParamQuery, binaryParams bool, resultFormat int16, timeout time.Duration) answer {
	if err := s.connect(ctx); err != nil {
		return answer{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	sd, err := s.conn.Prepare(ctx, "", q.SQL, nil)
	if err != nil {
		return answer{err: err}
	}
	m := pgtype.NewMap()
	vals := make([][]byte, len(q.Params))
	formats := make([]int16, len(q.Params))
	for i, v := range q.Params {
		if v == nil {
			continue
		}
		if binaryParams && i < len(sd.ParamOIDs) {
			if b, err := m.Encode(sd.ParamOIDs[i], 1, v, nil); err == nil {
				vals[i], formats[i] = b, 1
				continue
			}
		}
		vals[i] = []byte(fmt.Sprint(v))
	}
	res := s.conn.ExecPrepared(ctx, "", vals, formats, []int16{resultFormat}).Read()
	var a answer
	if res.Err != nil {
		a.err = res.Err
		return a
	}
	for _, o := range sd.ParamOIDs {
		a.cols = append(a.cols, fmt.Sprintf("$:%d", o))
	}
	for _, f := range res.FieldDescriptions {
		a.cols = append(a.cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	for _, r := range res.Rows {
		a.rows = append(a.rows, rowString(r, resultFormat))
	}
	return a
}

// CompareParams runs q prepared on both servers, parameters and
// results in text format and then in binary, and classifies the
// sidecar's answer (parameter types compared as columns).
func CompareParams(ctx context.Context, pgs, scs *Session, q ParamQuery, timeout time.Duration) Outcome {
	st := Statement{SQL: q.SQL, Kind: Query, Ordered: q.Ordered}
	for _, bin := range []bool{false, true} {
		f := int16(0)
		if bin {
			f = 1
		}
		o := classifyAnswers(st, runParams(ctx, pgs, q, bin, f, timeout), runParams(ctx, scs, q, bin, f, timeout))
		if o.Class != Identical {
			if bin && o.Class != Refused {
				o.Message = "binary parameters and results: " + o.Message
			}
			return o
		}
	}
	return Outcome{Class: Identical}
}

// String shows the query with its parameters.
func (q ParamQuery) String() string {
	ps := make([]string, len(q.Params))
	for i, p := range q.Params {
		ps[i] = fmt.Sprintf("%#v", p)
	}
	return q.SQL + " -- params " + strings.Join(ps, ", ")
}
