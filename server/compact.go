package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// CompactRequest is the body of POST /api/compact: the tables to compact
// (any form the configuration accepts), none for every table the
// in-memory HEAD holds.
type CompactRequest struct {
	Tables []string `json:"tables,omitempty"`
}

// CompactResponse is its answer, one entry per table in the order asked.
type CompactResponse struct {
	Tables []head.CompactStats `json:"tables"`
}

// CompactHandler answers POST /api/compact: full compaction (as VACUUM
// FULL) of the in-memory HEAD's heaps, one table at a time, each under its
// table's write lock while reads and apply of other tables go on. 400 for
// a name that does not parse, 404 for a table the model does not hold
// (also before the model has its first copy of it).
func CompactHandler(m *head.Model) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req CompactRequest
		if err := DecodeJSON(r, &req); err != nil {
			WriteError(w, errorStatus(err), err)
			return
		}
		names := req.Tables
		if len(names) == 0 {
			names = m.Tables()
		}
		resp := CompactResponse{Tables: make([]head.CompactStats, 0, len(names))}
		for _, n := range names {
			t, err := pgident.ParseTable(n)
			if err != nil {
				WriteError(w, http.StatusBadRequest, fmt.Errorf("compact: table %s: %w", Quote(n), err))
				return
			}
			st, err := m.CompactTable(t.String())
			if err != nil {
				status := http.StatusInternalServerError
				if errors.Is(err, head.ErrNoTable) {
					status = http.StatusNotFound
				}
				WriteError(w, status, err)
				return
			}
			resp.Tables = append(resp.Tables, st)
		}
		WriteJSON(w, http.StatusOK, resp)
	}
}
