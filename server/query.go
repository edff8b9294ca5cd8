package server

import (
	"errors"
	"net/http"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/query"
)

// RegisterQuery adds the aggregate API to s (under the /api/ token check):
//
//	POST /api/query  query.Request   JSON lines: a query.Header (table, the
//	                                 version read, output columns, where it
//	                                 was read: "head" or "tree"), then one
//	                                 object per result row keyed by output
//	                                 column name (PostgreSQL's texts or null)
//
// At HEAD the answer is computed on the in-memory model's heap snapshot
// at the version HEAD resolves to, when svc has a head that can give one
// (query.Heads: head.Model); otherwise, and for every as_of, from the tree
// (query.RunTree), the same engine as `sidecar agg`. A bad column, type or
// expression is 400 before any row is read; an unknown table or ref 404.
func RegisterQuery(s *Server, svc *history.Service) {
	eng := &query.Engine{Tree: svc}
	if h, ok := svc.Head().(query.Heads); ok {
		eng.Heads = h
	}
	s.HandleAPI("POST /api/query", func(w http.ResponseWriter, r *http.Request) {
		var req query.Request
		if err := DecodeJSON(r, &req); err != nil {
			writeErr(w, err)
			return
		}
		if req.Table == "" {
			writeErr(w, &RequestError{Status: http.StatusBadRequest, Err: errors.New("table is required")})
			return
		}
		res, hdr, err := eng.Run(r.Context(), req)
		if errors.Is(err, query.ErrBadRequest) {
			err = &RequestError{Status: http.StatusBadRequest, Err: err}
		}
		l := newLines(w)
		if err == nil {
			err = l.write(query.Header{Table: hdr.Table, LSN: hdr.LSN, Ref: hdr.Ref, Columns: res.Columns, Read: res.Read})
		}
		if err == nil {
			for _, row := range res.HistoryRows() {
				if err = l.write(row); err != nil {
					break
				}
			}
		}
		l.finish(err)
	})
}
