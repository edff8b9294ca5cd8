package history

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// API is what the CLI needs from history: *Service answers it in-process
// (data directory opened locally) and *Remote through the daemon's HTTP
// API, with the same structs, so both print identical output.
type API interface {
	Log(ctx context.Context, req LogRequest, fn func(LogEntry) error) error
	Diff(ctx context.Context, req DiffRequest, fn func(*Event) error) (DiffSummary, error)
	Merge(ctx context.Context, req MergeRequest, fn func(*Event) error) (MergeSummary, error)
	Revert(ctx context.Context, req RevertRequest, fn func(*Event) error) (MergeSummary, error)
	Get(ctx context.Context, req ReadRequest) (GetResult, error)
	Scan(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(*Row) error) error
	CreateTag(ctx context.Context, name, ref string) (TagInfo, error)
	Tags(ctx context.Context) ([]TagInfo, error)
	DeleteTag(ctx context.Context, name string) error
	CreateBranch(ctx context.Context, name, ref string) (BranchInfo, error)
	Branches(ctx context.Context) ([]BranchInfo, error)
	DeleteBranch(ctx context.Context, name string) error
}

var _ API = (*Service)(nil)
var _ API = (*Remote)(nil)

// Transport is the daemon client Remote needs (client.Daemon has it).
type Transport interface {
	GetJSON(ctx context.Context, path string, query url.Values, out any) error
	PostJSON(ctx context.Context, path string, body, out any) error
	StreamJSON(ctx context.Context, path string, query url.Values, fn func(json.RawMessage) error) error
	PostStreamJSON(ctx context.Context, path string, body any, fn func(json.RawMessage) error) error
}

// Remote is the API of a running daemon (routes in server/history.go).
type Remote struct{ T Transport }

// NameRequest is the body of POST /api/tag and /api/branch, and of their
// deletes.
type NameRequest struct {
	Name   string `json:"name"`
	Ref    string `json:"ref,omitempty"`
	Delete bool   `json:"delete,omitempty"`
}

// EventSummary is the type of the last line of a merge or revert as JSON
// lines (POST /api/merge and /api/revert, and `--format json`): a
// SummaryLine, after every Event.
const EventSummary = "summary"

// SummaryLine is that last line.
type SummaryLine struct {
	Type    string       `json:"type"` // EventSummary
	Summary MergeSummary `json:"summary"`
}

// Log implements API.
func (r *Remote) Log(ctx context.Context, req LogRequest, fn func(LogEntry) error) error {
	q := url.Values{}
	setNonEmpty(q, "table", req.Table)
	setNonEmpty(q, "since", req.Since)
	setNonEmpty(q, "until", req.Until)
	if req.Limit > 0 {
		q.Set("n", strconv.Itoa(req.Limit))
	}
	return r.T.StreamJSON(ctx, "/api/log", q, func(m json.RawMessage) error {
		var e LogEntry
		if err := json.Unmarshal(m, &e); err != nil {
			return fmt.Errorf("log entry: %w", err)
		}
		return fn(e)
	})
}

func setNonEmpty(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// DiffQuery is the query string of GET /api/diff for req.
func DiffQuery(req DiffRequest) url.Values {
	q := url.Values{"from": {req.From}, "to": {req.To}}
	for _, t := range req.Tables {
		q.Add("table", t)
	}
	setNonEmpty(q, "where", req.Where)
	if req.Limit > 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	if req.Stat {
		q.Set("stat", "true")
	}
	return q
}

// Diff implements API; the daemon streams events as JSON lines.
func (r *Remote) Diff(ctx context.Context, req DiffRequest, fn func(*Event) error) (DiffSummary, error) {
	var sum DiffSummary
	err := r.T.StreamJSON(ctx, "/api/diff", DiffQuery(req), func(m json.RawMessage) error {
		var e Event
		if err := json.Unmarshal(m, &e); err != nil {
			return fmt.Errorf("diff event: %w", err)
		}
		switch e.Type {
		case EventRow:
			sum.Rows++
		case EventStat:
			sum.Rows += *e.RowsAdded + *e.RowsRemoved + *e.RowsChanged
		}
		return fn(&e)
	})
	if req.Limit > 0 && sum.Rows >= int64(req.Limit) {
		sum.Truncated = true
	}
	return sum, err
}

func (r *Remote) merge(ctx context.Context, path string, body any, fn func(*Event) error) (MergeSummary, error) {
	var sum *MergeSummary
	err := r.T.PostStreamJSON(ctx, path, body, func(m json.RawMessage) error {
		var e Event
		if err := json.Unmarshal(m, &e); err != nil {
			return fmt.Errorf("%s event: %w", path, err)
		}
		if e.Type != EventSummary {
			return fn(&e)
		}
		var l SummaryLine
		if err := json.Unmarshal(m, &l); err != nil {
			return fmt.Errorf("%s summary: %w", path, err)
		}
		sum = &l.Summary
		return nil
	})
	if err != nil {
		return MergeSummary{}, err
	}
	if sum == nil {
		return MergeSummary{}, fmt.Errorf("%s: the daemon's answer ended before its summary", path)
	}
	return *sum, nil
}

// Merge implements API.
func (r *Remote) Merge(ctx context.Context, req MergeRequest, fn func(*Event) error) (MergeSummary, error) {
	return r.merge(ctx, "/api/merge", req, fn)
}

// Revert implements API.
func (r *Remote) Revert(ctx context.Context, req RevertRequest, fn func(*Event) error) (MergeSummary, error) {
	return r.merge(ctx, "/api/revert", req, fn)
}

// ReadQuery is the query string of GET /api/get and /api/scan for req.
func ReadQuery(req ReadRequest) url.Values {
	q := url.Values{"table": {req.Table}}
	setNonEmpty(q, "as_of", req.AsOf)
	setNonEmpty(q, "from", req.From)
	setNonEmpty(q, "to", req.To)
	if req.Limit > 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	for _, k := range req.PK {
		q.Add("pk", k)
	}
	for _, c := range req.Columns {
		q.Add("column", c)
	}
	return q
}

// Get implements API.
func (r *Remote) Get(ctx context.Context, req ReadRequest) (GetResult, error) {
	var res GetResult
	err := r.T.GetJSON(ctx, "/api/get", ReadQuery(req), &res)
	return res, err
}

// Scan implements API: the daemon streams the header, then one row object
// per line.
func (r *Remote) Scan(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(*Row) error) error {
	first := true
	return r.T.StreamJSON(ctx, "/api/scan", ReadQuery(req), func(m json.RawMessage) error {
		if first {
			first = false
			var h ReadHeader
			if err := json.Unmarshal(m, &h); err != nil {
				return fmt.Errorf("scan header: %w", err)
			}
			return header(h)
		}
		var rw Row
		if err := json.Unmarshal(m, &rw); err != nil {
			return fmt.Errorf("scan row: %w", err)
		}
		return row(&rw)
	})
}

// CreateTag implements API.
func (r *Remote) CreateTag(ctx context.Context, name, ref string) (TagInfo, error) {
	var t TagInfo
	err := r.T.PostJSON(ctx, "/api/tag", NameRequest{Name: name, Ref: ref}, &t)
	return t, err
}

// Tags implements API.
func (r *Remote) Tags(ctx context.Context) ([]TagInfo, error) {
	var ts []TagInfo
	err := r.T.GetJSON(ctx, "/api/tags", nil, &ts)
	return ts, err
}

// DeleteTag implements API.
func (r *Remote) DeleteTag(ctx context.Context, name string) error {
	return r.T.PostJSON(ctx, "/api/tag", NameRequest{Name: name, Delete: true}, nil)
}

// CreateBranch implements API.
func (r *Remote) CreateBranch(ctx context.Context, name, ref string) (BranchInfo, error) {
	var b BranchInfo
	err := r.T.PostJSON(ctx, "/api/branch", NameRequest{Name: name, Ref: ref}, &b)
	return b, err
}

// Branches implements API.
func (r *Remote) Branches(ctx context.Context) ([]BranchInfo, error) {
	var bs []BranchInfo
	err := r.T.GetJSON(ctx, "/api/branches", nil, &bs)
	return bs, err
}

// DeleteBranch implements API.
func (r *Remote) DeleteBranch(ctx context.Context, name string) error {
	return r.T.PostJSON(ctx, "/api/branch", NameRequest{Name: name, Delete: true}, nil)
}
