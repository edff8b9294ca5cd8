package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/verify"
)

// VerifyRequest is the body of POST /api/verify: the tables to verify
// (mirror keys, or names as config accepts them), all followed tables
// when empty.
type VerifyRequest struct {
	Tables []string `json:"tables"`
	// Wait bounds the wait for tables being copied or resynced to finish
	// before verifying (a Go duration, e.g. "30s"; empty: the runner's
	// default). See verify.ErrBusy.
	Wait string `json:"wait,omitempty"`
}

// VerifyFunc runs one verification (verify.Runner.Run).
type VerifyFunc func(ctx context.Context, tables []string) (*verify.Report, error)

// VerifyHandler serves POST /api/verify. The verification runs in the
// daemon, beside the mirror and its stream, so the mirror can catch up to
// the pinned LSN. Responses: 200 with the verify.Report whatever its
// result (the client maps it to an exit status); 400 for a bad body; 404
// for a table the mirror does not follow; 503 when nothing could be
// compared (the pin timed out, the mirror did not reach the pinned LSN,
// a table stayed in its copy or resync for the whole wait, PostgreSQL
// unreachable), with {"error": ...} saying why. The run is
// bounded by the request's context: a client that goes away cancels it
// and the pin is released.
func VerifyHandler(run VerifyFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req VerifyRequest
		if r.Body != nil && r.ContentLength != 0 {
			dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil {
				WriteError(w, http.StatusBadRequest, fmt.Errorf("verify request: %w", err))
				return
			}
		}
		ctx := r.Context()
		if req.Wait != "" {
			d, err := time.ParseDuration(req.Wait)
			if err != nil || d <= 0 {
				WriteError(w, http.StatusBadRequest, fmt.Errorf("verify request: wait %q: want a positive duration such as 30s", req.Wait))
				return
			}
			ctx = verify.WithBusyWait(ctx, d)
		}
		rep, err := run(ctx, req.Tables)
		switch {
		case errors.Is(err, mirror.ErrUnknownTable):
			WriteError(w, http.StatusNotFound, err)
		case err != nil:
			WriteError(w, http.StatusServiceUnavailable, err)
		default:
			WriteJSON(w, http.StatusOK, rep)
		}
	}
}
