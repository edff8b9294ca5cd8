package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/verify"
)

func TestVerifyHandler(t *testing.T) {
	var gotTables []string
	run := func(_ context.Context, tables []string) (*verify.Report, error) {
		gotTables = tables
		switch {
		case slices.Contains(tables, "public.nope"):
			return nil, fmt.Errorf("verify: table %q: %w", "public.nope", mirror.ErrUnknownTable)
		case slices.Contains(tables, "public.behind"):
			return nil, fmt.Errorf("verify: %w: pinned at 0/10", verify.ErrMirrorBehind)
		}
		return &verify.Report{LSN: "0/10", Result: verify.ResultDifferences,
			Tables: []verify.TableReport{{Table: "public.t", Result: verify.ResultDifferences, Differences: 1}}}, nil
	}
	h := VerifyHandler(run)
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"all tables", ``, 200, `"result": "differences"`},
		{"named", `{"tables": ["public.t"]}`, 200, `"table": "public.t"`},
		{"unknown table", `{"tables": ["public.nope"]}`, 404, "not in the mirror"},
		{"behind", `{"tables": ["public.behind"]}`, 503, "has not reached the pinned LSN"},
		{"bad body", `{"table": "x"}`, 400, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/verify", strings.NewReader(tc.body))
			rec := httptest.NewRecorder()
			h(rec, req)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("status %d body %s; want %d containing %q", rec.Code, rec.Body, tc.status, tc.want)
			}
			if tc.status == 200 {
				var rep verify.Report
				if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil || rep.LSN != "0/10" {
					t.Fatalf("body does not decode as a report: %v %+v", err, rep)
				}
			}
		})
	}
	h(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/api/verify", strings.NewReader(`{"tables": ["public.t", "public.u"]}`)))
	if !slices.Equal(gotTables, []string{"public.t", "public.u"}) {
		t.Fatalf("handler passed tables %q", gotTables)
	}
}
