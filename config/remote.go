package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Remote configures history in S3-compatible object storage (remote/).
// Credentials come from the environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY) or CredentialsFile, never from this file, and are
// never logged.
type Remote struct {
	// URL is s3://bucket/prefix; empty turns the remote off.
	URL string `mapstructure:"url"`
	// Endpoint is the S3 server (https://host:port, or http:// for no
	// TLS); empty is AWS.
	Endpoint string `mapstructure:"endpoint"`
	Region   string `mapstructure:"region"`
	// CredentialsFile is an AWS shared credentials file (profile default).
	CredentialsFile string `mapstructure:"credentials_file"`
	// Upload copies history to the remote after each commit group.
	Upload bool `mapstructure:"upload"`
	// SyncAck holds the slot's flush LSN at the remote-durable LSN, so a
	// successor restoring from the remote loses nothing.
	SyncAck bool `mapstructure:"sync_ack"`
	// Holder names this sidecar in the lease; empty is host:data_dir.
	Holder string `mapstructure:"holder"`
	// LeaseTTL is how long the lease lasts unrenewed.
	LeaseTTL time.Duration `mapstructure:"lease_ttl"`
	// Interval is the longest time between uploads.
	Interval time.Duration `mapstructure:"interval"`
	// GCInterval is the least time between two remote GC passes (run by
	// the uploader after an upload); 0 turns remote GC off.
	GCInterval time.Duration `mapstructure:"gc_interval"`
	// GCGrace is how long an unreachable pack waits in pending deletion
	// before it is deleted: longer than lease_ttl + the longest read + the
	// followers' manifest poll.
	GCGrace time.Duration `mapstructure:"gc_grace"`
}

// Enabled reports whether a remote is configured.
func (r Remote) Enabled() bool { return r.URL != "" }

// HolderName returns Holder, or host:dataDir.
func (r Remote) HolderName(dataDir string) string {
	if r.Holder != "" {
		return r.Holder
	}
	host, _ := os.Hostname()
	return host + ":" + dataDir
}

func remoteDefaults(m map[string]any) {
	m["remote.url"] = ""
	m["remote.endpoint"] = ""
	m["remote.region"] = "us-east-1"
	m["remote.credentials_file"] = ""
	m["remote.upload"] = false
	m["remote.sync_ack"] = false
	m["remote.holder"] = ""
	m["remote.lease_ttl"] = "30s"
	m["remote.interval"] = "10s"
	m["remote.gc_interval"] = "10m"
	m["remote.gc_grace"] = "1h"
}

// problems checks the remote.* keys.
func (r Remote) problems() []string {
	var p []string
	if r.URL != "" {
		u, err := url.Parse(r.URL)
		if err != nil || u.Scheme != "s3" || u.Host == "" || u.User != nil || u.RawQuery != "" {
			p = append(p, fmt.Sprintf("remote.url: %q is not s3://bucket/prefix", r.URL))
		}
	}
	if r.Endpoint != "" {
		if u, err := url.Parse(r.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			p = append(p, fmt.Sprintf("remote.endpoint: %q is not http(s)://host[:port]", redactURL(r.Endpoint)))
		}
	}
	if r.CredentialsFile != "" {
		if _, err := os.Stat(r.CredentialsFile); err != nil {
			p = append(p, fmt.Sprintf("remote.credentials_file: %v", unwrapPathError(err)))
		}
	}
	if (r.Upload || r.SyncAck) && r.URL == "" {
		p = append(p, "remote.upload: needs remote.url")
	}
	if r.SyncAck && !r.Upload {
		p = append(p, "remote.sync_ack: needs remote.upload: true")
	}
	if r.LeaseTTL <= 0 {
		p = append(p, fmt.Sprintf("remote.lease_ttl: must be positive, got %s", r.LeaseTTL))
	}
	if r.Interval <= 0 {
		p = append(p, fmt.Sprintf("remote.interval: must be positive, got %s", r.Interval))
	}
	if r.GCInterval < 0 {
		p = append(p, fmt.Sprintf("remote.gc_interval: must be positive (0 turns remote GC off), got %s", r.GCInterval))
	}
	if least := r.LeaseTTL + r.Interval + time.Minute; r.GCGrace < least {
		p = append(p, fmt.Sprintf("remote.gc_grace: %s is too short: a reader of an older manifest may still fetch a pack for lease_ttl + interval + the longest read; use at least %s", r.GCGrace, least))
	}
	return p
}

// redactURL drops user info from an endpoint before it is quoted.
func redactURL(s string) string {
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx@" + s[i+1:]
		}
	}
	return s
}
