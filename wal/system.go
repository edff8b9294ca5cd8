package wal

import (
	"errors"
	"fmt"
)

// SystemIdentity identifies the cluster and timeline a mirror follows.
// Persist SystemID and Timeline with the mirror and Check them on every
// start: LSNs and slots mean nothing on another cluster or timeline.
type SystemIdentity struct {
	SystemID string
	Timeline int32
	XLogPos  LSN // the server's flush position when asked (informational)
	DBName   string
}

// ErrSystemChanged is wrapped by [SystemIdentity.Check] errors.
var ErrSystemChanged = errors.New("replication source changed")

// Check compares s, just read from the server, with the identity stored
// with the mirror. A zero stored identity (a new mirror) matches anything.
func (s SystemIdentity) Check(stored SystemIdentity) error {
	if stored.SystemID == "" {
		return nil
	}
	if s.SystemID != stored.SystemID {
		return fmt.Errorf("%w: connected to PostgreSQL system %s, but the mirror follows system %s; point postgres.url at the right server, or start over with `sidecar run --resync`",
			ErrSystemChanged, s.SystemID, stored.SystemID)
	}
	if s.Timeline != stored.Timeline {
		return fmt.Errorf("%w: the server is on timeline %d, the mirror was built on timeline %d (a failover or point-in-time recovery happened; logical slots do not survive it); start over with `sidecar run --resync`",
			ErrSystemChanged, s.Timeline, stored.Timeline)
	}
	if stored.DBName != "" && s.DBName != stored.DBName {
		return fmt.Errorf("%w: connected to database %q, the mirror follows %q; fix postgres.url or start over with `sidecar run --resync`",
			ErrSystemChanged, s.DBName, stored.DBName)
	}
	return nil
}
