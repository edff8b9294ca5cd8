package s3test

import (
	"bytes"
	"io"
	"testing"

	"github.com/minio/minio-go/v7"
)

// TestServer puts and gets an object, survives a restart with its data,
// answers injected 503s, and refuses a second create-if-absent.
func TestServer(t *testing.T) {
	s := Start(t)
	c, err := s.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	put := func(key string, opts minio.PutObjectOptions) error {
		_, err := c.PutObject(ctx, s.Bucket, key, bytes.NewReader([]byte("hello")), 5, opts)
		return err
	}
	var o minio.PutObjectOptions
	o.SetMatchETagExcept("*")
	if err := put("a", o); err != nil {
		t.Fatalf("put: %v", err)
	}
	if err := put("a", o); err == nil || minio.ToErrorResponse(err).StatusCode != 412 {
		t.Fatalf("second create-if-absent: %v, want 412", err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	obj, err := c.GetObject(ctx, s.Bucket, "a", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(obj)
	if err != nil || string(b) != "hello" {
		t.Fatalf("after restart: %q, %v", b, err)
	}
	s.FailNext(1)
	if _, err := c.StatObject(ctx, s.Bucket, "a", minio.StatObjectOptions{}); err != nil {
		t.Fatalf("stat after one injected 503 (minio retries): %v", err)
	}
	if s.Requests("PUT") < 2 {
		t.Fatalf("PUTs counted: %d", s.Requests("PUT"))
	}
}
