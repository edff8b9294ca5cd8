package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ErrNotExist is wrapped by a read of an object that is not there.
var ErrNotExist = errors.New("remote object does not exist")

// ErrPrecondition is wrapped by a conditional write the server refused: the
// object exists (create-if-absent) or changed since it was read (CAS).
var ErrPrecondition = errors.New("remote object changed (precondition failed)")

// Location is where a sidecar's history lives: a bucket and a key prefix.
type Location struct {
	Bucket string
	Prefix string // no leading or trailing slash; may be empty
}

// ParseURL parses s3://bucket/prefix.
func ParseURL(s string) (Location, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, fmt.Errorf("remote url %q: %w", s, err)
	}
	if u.Scheme != "s3" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Location{}, fmt.Errorf("remote url %q: want s3://bucket/prefix", s)
	}
	return Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}, nil
}

func (l Location) String() string { return "s3://" + l.Bucket + "/" + l.Prefix }

// key returns the object key of name under the prefix.
func (l Location) key(name string) string {
	if l.Prefix == "" {
		return name
	}
	return l.Prefix + "/" + name
}

// Config says how to reach the object store.
type Config struct {
	Location Location
	// Endpoint is host:port or a URL (http:// means no TLS); empty is AWS.
	Endpoint string
	Region   string
	// AccessKey and SecretKey; when both are empty they come from the
	// environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) or
	// CredentialsFile (AWS's shared credentials format).
	AccessKey, SecretKey string
	CredentialsFile      string
	// Concurrency bounds requests in flight (default 8).
	Concurrency int
	// Retries is how many times a request failing with 5xx, SlowDown or
	// a network error is tried again, with exponential backoff from
	// RetryBase (default 6 retries, 50 ms).
	Retries   int
	RetryBase time.Duration
}

// Client is the object-store access of this package: keys under one
// prefix, bounded concurrency, retries with backoff. It never LISTs.
type Client struct {
	loc     Location
	mc      *minio.Client
	sem     chan struct{}
	retries int
	base    time.Duration

	puts, gets, lists, deletes, bytesIn, bytesOut, retried atomic.Int64
}

// NewClient returns a client for cfg. Credentials are never logged or put
// in errors.
func NewClient(cfg Config) (*Client, error) {
	endpoint, secure := "s3.amazonaws.com", true
	if cfg.Endpoint != "" {
		endpoint = cfg.Endpoint
		if u, err := url.Parse(cfg.Endpoint); err == nil && u.Host != "" {
			endpoint, secure = u.Host, u.Scheme == "https"
		}
	}
	var creds *credentials.Credentials
	switch {
	case cfg.AccessKey != "" || cfg.SecretKey != "":
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	case cfg.CredentialsFile != "":
		if _, err := os.Stat(cfg.CredentialsFile); err != nil {
			return nil, fmt.Errorf("remote credentials file: %w", err)
		}
		creds = credentials.NewFileAWSCredentials(cfg.CredentialsFile, "")
	default:
		creds = credentials.NewEnvAWS()
	}
	mc, err := minio.New(endpoint, &minio.Options{
		Creds:        creds,
		Secure:       secure,
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupPath,
		MaxRetries:   1, // retries are ours (retry below), so conditional writes are judged once
	})
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", cfg.Location, err)
	}
	c := &Client{loc: cfg.Location, mc: mc, retries: cfg.Retries, base: cfg.RetryBase}
	if c.retries <= 0 {
		c.retries = 6
	}
	if c.base <= 0 {
		c.base = 50 * time.Millisecond
	}
	n := cfg.Concurrency
	if n <= 0 {
		n = 8
	}
	c.sem = make(chan struct{}, n)
	return c, nil
}

// Location returns where the client reads and writes.
func (c *Client) Location() Location { return c.loc }

// ClientStats are cumulative request counts.
type ClientStats struct {
	Puts, Gets        int64
	Lists, Deletes    int64 // remote GC only
	BytesIn, BytesOut int64 // fetched, uploaded
	Retries           int64
}

// Stats returns the counters.
func (c *Client) Stats() ClientStats {
	return ClientStats{Puts: c.puts.Load(), Gets: c.gets.Load(), Lists: c.lists.Load(), Deletes: c.deletes.Load(), BytesIn: c.bytesIn.Load(), BytesOut: c.bytesOut.Load(), Retries: c.retried.Load()}
}

// retryable reports whether err is worth another try: a 5xx or SlowDown
// answer, or the request not getting an answer at all.
func retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	r := minio.ToErrorResponse(err)
	if r.StatusCode >= 500 || r.Code == "SlowDown" || r.Code == "InternalError" || r.Code == "RequestTimeout" {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	return r.StatusCode == 0 && strings.Contains(err.Error(), "connection")
}

// do runs fn under the concurrency bound, retrying retryable failures
// with exponential backoff (base, 2×base, … capped at 5 s).
func (c *Client) do(ctx context.Context, what string, fn func() error) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	defer func() { <-c.sem }()
	wait := c.base
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		if !retryable(err) || attempt >= c.retries {
			return classify(what, err)
		}
		c.retried.Add(1)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (after %v)", what, ctx.Err(), err)
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func classify(what string, err error) error {
	r := minio.ToErrorResponse(err)
	switch {
	case r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey":
		return fmt.Errorf("%s: %w", what, ErrNotExist)
	case r.StatusCode == http.StatusPreconditionFailed || r.StatusCode == http.StatusConflict:
		return fmt.Errorf("%s: %w", what, ErrPrecondition)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Cond is the condition of a write.
type Cond struct {
	IfAbsent bool   // create only if no object is there
	IfMatch  string // replace only the object with this ETag
}

// Put writes data as the object name (single-part, so its ETag is the
// same on every provider) and returns its ETag.
func (c *Client) Put(ctx context.Context, name string, data []byte, cond Cond) (string, error) {
	var etag string
	err := c.do(ctx, "put "+c.loc.key(name), func() error {
		opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true}
		if cond.IfAbsent {
			opts.SetMatchETagExcept("*")
		}
		if cond.IfMatch != "" {
			opts.SetMatchETag(cond.IfMatch)
		}
		c.puts.Add(1)
		info, err := c.mc.PutObject(ctx, c.loc.Bucket, c.loc.key(name), bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			return err
		}
		etag = info.ETag
		return nil
	})
	if err == nil {
		c.bytesOut.Add(int64(len(data)))
	}
	return etag, err
}

// Get reads the whole object name and returns it with its ETag.
func (c *Client) Get(ctx context.Context, name string) ([]byte, string, error) {
	return c.get(ctx, c.loc.key(name), -1, 0)
}

// GetRange reads n bytes of the object name from off; off < 0 reads its
// last n bytes.
func (c *Client) GetRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	b, _, err := c.get(ctx, c.loc.key(name), off, n)
	return b, err
}

// get reads the object at key (the whole bucket-relative key: a fork's
// packs are under another sidecar's prefix).
func (c *Client) get(ctx context.Context, key string, off, n int64) ([]byte, string, error) {
	var data []byte
	var etag string
	what := "get " + key
	if n > 0 {
		what = fmt.Sprintf("%s bytes %d+%d", what, off, n)
	}
	err := c.do(ctx, what, func() error {
		var opts minio.GetObjectOptions
		switch {
		case n > 0 && off >= 0:
			if err := opts.SetRange(off, off+n-1); err != nil {
				return err
			}
		case n > 0:
			if err := opts.SetRange(0, -n); err != nil {
				return err
			}
		}
		c.gets.Add(1)
		// One GET answers with both the bytes and their ETag. The
		// streaming Object of minio.Client would stat first (HEAD) and
		// then GET with If-Match, which fails with 412 when a writer
		// replaces the object between the two (a follower reading the
		// manifest while the writer commits one).
		body, st, _, err := minio.Core{Client: c.mc}.GetObject(ctx, c.loc.Bucket, key, opts)
		if err != nil {
			return err
		}
		defer body.Close()
		b, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		if n > 0 && off >= 0 && int64(len(b)) != n {
			return fmt.Errorf("short ranged read: %d of %d bytes: %w", len(b), n, io.ErrUnexpectedEOF)
		}
		data, etag = b, st.ETag
		return nil
	})
	c.bytesIn.Add(int64(len(data)))
	return data, etag, err
}

// Delete removes the object name (no error when it is absent).
func (c *Client) Delete(ctx context.Context, name string) error {
	return c.deleteKey(ctx, c.loc.key(name))
}

// ObjectInfo is one object a List found.
type ObjectInfo struct {
	Key      string // bucket-relative
	Size     int64
	Modified time.Time
}

// List returns every object whose bucket-relative key starts with prefix.
// Only remote GC lists (never a hot path: a LIST costs like a PUT and
// walks the whole prefix).
func (c *Client) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	err := c.do(ctx, "list "+prefix, func() error {
		out = out[:0]
		c.lists.Add(1)
		for o := range c.mc.ListObjects(ctx, c.loc.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if o.Err != nil {
				return o.Err
			}
			out = append(out, ObjectInfo{Key: o.Key, Size: o.Size, Modified: o.LastModified})
		}
		return nil
	})
	return out, err
}

// deleteKey removes the object at the bucket-relative key (no error when
// it is absent).
func (c *Client) deleteKey(ctx context.Context, key string) error {
	return c.do(ctx, "delete "+key, func() error {
		c.deletes.Add(1)
		return c.mc.RemoveObject(ctx, c.loc.Bucket, key, minio.RemoveObjectOptions{})
	})
}
