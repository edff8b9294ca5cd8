package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/refs"
)

// RegisterHistory adds the history API to s (all under the /api/ token
// check):
//
//	GET  /api/log?table=&n=&since=&until=            JSON lines of history.LogEntry, newest first
//	GET  /api/diff?from=&to=&table=…&where=&limit=&stat=true
//	                                                 (format=sql: the SQL patch, text/plain)
//	                                                 JSON lines of history.Event, streamed
//	POST /api/merge   history.MergeRequest           JSON lines of history.Event, streamed, then a history.SummaryLine
//	POST /api/revert  history.RevertRequest          (the same)
//	GET  /api/get?table=&pk=…&as_of=&column=…        history.GetResult (compact JSON)
//	GET  /api/scan?table=&from=&to=&limit=&as_of=&column=…
//	                                                 JSON lines: history.ReadHeader, then one row object per line
//	GET  /api/tags, GET /api/branches                lists
//	POST /api/tag, POST /api/branch  history.NameRequest (create, or delete with "delete": true)
//	GET  /api/resolve?ref=                           what a ref names
//
// Errors are {"error": "..."} with 400 (bad ref, bad arguments), 404
// (unknown ref or table), 409 (name taken) or 500. A streamed response
// that fails after its first line ends with an {"error": ...} line.
func RegisterHistory(s *Server, svc *history.Service) {
	h := &historyHandlers{svc: svc}
	s.HandleAPI("GET /api/log", h.log)
	s.HandleAPI("GET /api/diff", h.diff)
	s.HandleAPI("POST /api/merge", mergeHandler(svc.Merge))
	s.HandleAPI("POST /api/revert", mergeHandler(svc.Revert))
	s.HandleAPI("GET /api/get", h.get)
	s.HandleAPI("GET /api/scan", h.scan)
	s.HandleAPI("GET /api/tags", h.tags)
	s.HandleAPI("GET /api/branches", h.branches)
	s.HandleAPI("POST /api/tag", h.tag)
	s.HandleAPI("POST /api/branch", h.branch)
	s.HandleAPI("GET /api/resolve", h.resolve)
}

type historyHandlers struct {
	svc *history.Service
}

// errorStatus maps history and snapshot errors to HTTP statuses.
func errorStatus(err error) int {
	var re *RequestError
	switch {
	case errors.As(err, &re):
		return re.Status
	case errors.Is(err, refs.ErrBadRef), errors.Is(err, history.ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, refs.ErrUnknownRef), errors.Is(err, history.ErrUnknownTable):
		return http.StatusNotFound
	case errors.Is(err, refs.ErrExists):
		return http.StatusConflict
	case errors.Is(err, context.Canceled):
		return 499 // client closed the request
	}
	return http.StatusInternalServerError
}

func writeErr(w http.ResponseWriter, err error) { WriteError(w, errorStatus(err), err) }

// lines writes JSON lines, sending the 200 header with the first line so
// that an error before any output still gets its own status code. It
// flushes after the first line (the first row arrives at once) and then
// every flushEvery lines.
type lines struct {
	w       http.ResponseWriter
	enc     *json.Encoder
	n       int
	started bool
}

const flushEvery = 256

func newLines(w http.ResponseWriter) *lines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &lines{w: w, enc: enc}
}

func (l *lines) write(v any) error {
	l.start()
	if err := l.enc.Encode(v); err != nil {
		return err
	}
	return l.wrote()
}

// writeRaw writes one line the caller encoded (ending in a newline).
func (l *lines) writeRaw(line []byte) error {
	l.start()
	if _, err := l.w.Write(line); err != nil {
		return err
	}
	return l.wrote()
}

func (l *lines) start() {
	if !l.started {
		l.started = true
		l.w.Header().Set("Content-Type", "application/x-ndjson")
		l.w.WriteHeader(http.StatusOK)
	}
}

// wrote counts a line and flushes after the first and every flushEvery.
func (l *lines) wrote() error {
	if l.n++; l.n == 1 || l.n%flushEvery == 0 {
		if f, ok := l.w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return nil
}

// finish reports err: as a status when nothing was written, else as a
// last error line.
func (l *lines) finish(err error) {
	if err == nil {
		l.start()
		return
	}
	if !l.started {
		writeErr(l.w, err)
		return
	}
	_ = l.enc.Encode(map[string]string{"error": err.Error()})
}

func intParam(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s=%q: want a non-negative integer", history.ErrBadRequest, name, v)
	}
	return n, nil
}

func (h *historyHandlers) log(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "n")
	if err != nil {
		writeErr(w, err)
		return
	}
	q := r.URL.Query()
	l := newLines(w)
	err = h.svc.Log(r.Context(), history.LogRequest{Table: q.Get("table"), Limit: n, Since: q.Get("since"), Until: q.Get("until")},
		func(e history.LogEntry) error { return l.write(e) })
	l.finish(err)
}

func (h *historyHandlers) diff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := intParam(r, "limit")
	if err != nil {
		writeErr(w, err)
		return
	}
	stat := false
	if v := q.Get("stat"); v != "" {
		if stat, err = strconv.ParseBool(v); err != nil {
			writeErr(w, fmt.Errorf("%w: stat=%q: want true or false", history.ErrBadRequest, v))
			return
		}
	}
	if q.Get("from") == "" || q.Get("to") == "" {
		writeErr(w, fmt.Errorf("%w: diff needs from and to refs", history.ErrBadRequest))
		return
	}
	req := history.DiffRequest{From: q.Get("from"), To: q.Get("to"), Tables: q["table"], Where: q.Get("where"), Limit: limit, Stat: stat}
	switch f := q.Get("format"); f {
	case "", "json":
	case "sql":
		if stat || limit > 0 {
			writeErr(w, fmt.Errorf("%w: format=sql needs every row: drop stat and limit", history.ErrBadRequest))
			return
		}
		h.diffSQL(w, r, req)
		return
	default:
		writeErr(w, fmt.Errorf("%w: format=%q: want json or sql", history.ErrBadRequest, f))
		return
	}
	l := newLines(w)
	_, err = h.svc.Diff(r.Context(), req, func(e *history.Event) error { return l.write(e) })
	l.finish(err)
}

// diffSQL answers GET /api/diff?format=sql: the SQL patch that turns from
// into to (text/plain), as `sidecar diff --format sql` prints it but in
// the order tables come (the CLI reads foreign keys from PostgreSQL to
// order them). An error before the first row is a JSON error with its
// status; after it, the patch ends in ROLLBACK with the error as a
// comment.
func (h *historyHandlers) diffSQL(w http.ResponseWriter, r *http.Request, req history.DiffRequest) {
	sw := &startedWriter{w: w}
	pw, err := history.NewDiffWriterOptions("sql", sw, history.SQLOptions{})
	if err != nil {
		writeErr(w, err)
		return
	}
	n := 0
	_, err = h.svc.Diff(r.Context(), req, func(e *history.Event) error {
		n++
		return pw.Write(e)
	})
	if err != nil && n == 0 {
		writeErr(w, err)
		return
	}
	if f, ok := pw.(interface{ Fail(error) }); ok && err != nil {
		f.Fail(err)
	}
	pw.Close()
}

// startedWriter sends the text/plain header with the first byte, so an
// error before any output keeps its own status.
type startedWriter struct {
	w       http.ResponseWriter
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		s.w.WriteHeader(http.StatusOK)
	}
	return s.w.Write(p)
}

// mergeHandler answers POST /api/merge and /api/revert: the request body
// decoded into R, run, every event streamed as it comes (a large merge is
// never held in memory), then the summary line.
func mergeHandler[R any](run func(context.Context, R, func(*history.Event) error) (history.MergeSummary, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req R
		if err := DecodeJSON(r, &req); err != nil {
			writeErr(w, err)
			return
		}
		l := newLines(w)
		sum, err := run(r.Context(), req, func(e *history.Event) error { return l.write(e) })
		if err == nil {
			err = l.write(history.SummaryLine{Type: history.EventSummary, Summary: sum})
		}
		l.finish(err)
	}
}

func readRequest(r *http.Request) (history.ReadRequest, error) {
	q := r.URL.Query()
	limit, err := intParam(r, "limit")
	if err != nil {
		return history.ReadRequest{}, err
	}
	if q.Get("table") == "" {
		return history.ReadRequest{}, fmt.Errorf("%w: table is required", history.ErrBadRequest)
	}
	return history.ReadRequest{Table: q.Get("table"), AsOf: q.Get("as_of"), PK: q["pk"], From: q.Get("from"), To: q.Get("to"), Limit: limit, Columns: q["column"]}, nil
}

// get writes the GetResult straight from the stored row bytes
// (history.Service.GetJSON): compact, no Row values, no re-validation.
func (h *historyHandlers) get(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	body, err := h.svc.GetJSON(r.Context(), req, nil)
	if err != nil {
		writeErr(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}

// scan streams the header, then each row written from its stored bytes
// (history.RawRow.AppendJSON).
func (h *historyHandlers) scan(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	l := newLines(w)
	var buf []byte
	err = h.svc.ScanRaw(r.Context(), req,
		func(hd history.ReadHeader) error { return l.write(hd) },
		func(row history.RawRow) error {
			var err error
			if buf, err = row.AppendJSON(buf[:0]); err != nil {
				return err
			}
			return l.writeRaw(append(buf, '\n'))
		})
	l.finish(err)
}

func (h *historyHandlers) tags(w http.ResponseWriter, r *http.Request) {
	ts, err := h.svc.Tags(r.Context())
	if err != nil {
		writeErr(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, ts)
}

func (h *historyHandlers) branches(w http.ResponseWriter, r *http.Request) {
	bs, err := h.svc.Branches(r.Context())
	if err != nil {
		writeErr(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, bs)
}

func (h *historyHandlers) tag(w http.ResponseWriter, r *http.Request) {
	serveName(w, r, h.svc.CreateTag, h.svc.DeleteTag)
}

func (h *historyHandlers) branch(w http.ResponseWriter, r *http.Request) {
	serveName(w, r, h.svc.CreateBranch, h.svc.DeleteBranch)
}

// serveName answers POST /api/tag and /api/branch: a history.NameRequest
// creates the name at its ref (201 with the created object) or, with
// "delete": true, deletes it (200).
func serveName[T any](w http.ResponseWriter, r *http.Request,
	create func(ctx context.Context, name, ref string) (T, error), del func(ctx context.Context, name string) error) {
	var req history.NameRequest
	if err := DecodeJSON(r, &req); err != nil {
		writeErr(w, err)
		return
	}
	// A name that could never be created is the client's mistake, for a
	// delete too; the message does not quote it back.
	if err := refs.ValidateName(req.Name); err != nil {
		writeErr(w, fmt.Errorf("%w: name %s: names use letters, digits, '.', '_', '/', '-', start with a letter or '_', at most 128 bytes, and do not read as another ref (HEAD, HEAD~N, an LSN such as 0/1234) or contain '..'", history.ErrBadRequest, Quote(req.Name)))
		return
	}
	if req.Delete {
		if err := del(r.Context(), req.Name); err != nil {
			writeErr(w, err)
			return
		}
		WriteJSON(w, http.StatusOK, map[string]string{"deleted": req.Name})
		return
	}
	v, err := create(r.Context(), req.Name, req.Ref)
	if err != nil {
		writeErr(w, err)
		return
	}
	WriteJSON(w, http.StatusCreated, v)
}

// ResolveResponse is the answer of GET /api/resolve.
type ResolveResponse struct {
	Ref        string `json:"ref"`
	LSN        string `json:"lsn"`
	CommitTime string `json:"commit_time,omitempty"`
	Xid        uint32 `json:"xid,omitempty"`
	Branch     string `json:"branch,omitempty"`
}

func (h *historyHandlers) resolve(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("ref")
	p, err := h.svc.Resolve(r.Context(), ref)
	if err != nil {
		writeErr(w, err)
		return
	}
	resp := ResolveResponse{Ref: ref, LSN: p.LSN().String(), Xid: p.Version.Xid}
	if !p.Version.CommitTime.IsZero() {
		resp.CommitTime = p.Version.CommitTime.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
	}
	if p.Branch != nil {
		resp.Branch = p.Branch.Name
	}
	WriteJSON(w, http.StatusOK, resp)
}
