package config

import (
	"strings"
	"testing"
	"time"
)

// TestRemoteKeys: the remote.* keys load from the environment, and each
// bad value is refused naming its key.
func TestRemoteKeys(t *testing.T) {
	file := writeFile(t, good)
	cfg, err := load(t, file, "SIDECAR_REMOTE_URL=s3://b/p/q", "SIDECAR_REMOTE_ENDPOINT=http://127.0.0.1:9000",
		"SIDECAR_REMOTE_UPLOAD=true", "SIDECAR_REMOTE_SYNC_ACK=true", "SIDECAR_REMOTE_LEASE_TTL=5s")
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Remote
	if !r.Enabled() || r.URL != "s3://b/p/q" || !r.Upload || !r.SyncAck || r.LeaseTTL != 5*time.Second || r.Interval != 10*time.Second || r.Region != "us-east-1" ||
		r.GCInterval != 10*time.Minute || r.GCGrace != time.Hour {
		t.Fatalf("remote: %+v", r)
	}
	if h := r.HolderName("/d"); !strings.HasSuffix(h, ":/d") {
		t.Fatalf("holder %q", h)
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"SIDECAR_REMOTE_URL=http://b/p"}, "remote.url"},
		{[]string{"SIDECAR_REMOTE_URL=s3://"}, "remote.url"},
		{[]string{"SIDECAR_REMOTE_URL=s3://b/p", "SIDECAR_REMOTE_ENDPOINT=ftp://x"}, "remote.endpoint"},
		{[]string{"SIDECAR_REMOTE_ENDPOINT=http://user:secret@x"}, "remote.endpoint"},
		{[]string{"SIDECAR_REMOTE_UPLOAD=true"}, "remote.upload: needs remote.url"},
		{[]string{"SIDECAR_REMOTE_URL=s3://b/p", "SIDECAR_REMOTE_SYNC_ACK=true"}, "remote.sync_ack"},
		{[]string{"SIDECAR_REMOTE_CREDENTIALS_FILE=/nonexistent/creds"}, "remote.credentials_file"},
		{[]string{"SIDECAR_REMOTE_LEASE_TTL=0s"}, "remote.lease_ttl"},
		{[]string{"SIDECAR_REMOTE_INTERVAL=-1s"}, "remote.interval"},
		{[]string{"SIDECAR_REMOTE_GC_INTERVAL=-1m"}, "remote.gc_interval"},
		{[]string{"SIDECAR_REMOTE_GC_GRACE=30s"}, "remote.gc_grace"},
	} {
		_, err := load(t, file, c.env...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %q", c.env, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: the error shows the endpoint's password: %v", c.env, err)
		}
	}
}
