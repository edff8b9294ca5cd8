// Package refs says what a ref means: it parses the ref syntax of the
// CLI and the API (HEAD, HEAD~N, an LSN, @time, a tag or branch name),
// stores tags and branches, and resolves a ref against the mirror's version
// catalog.
package refs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// RefKind is the syntactic kind of a ref.
type RefKind uint8

// Ref kinds.
const (
	// RefHead is HEAD~N (N ≥ 0): the Nth commit before the latest applied one.
	RefHead RefKind = iota + 1
	// RefLSN is the version as of an LSN: the latest commit whose end LSN is
	// at or before it.
	RefLSN
	// RefTime is the version as of a commit time: the latest commit at or
	// before it.
	RefTime
	// RefName is a tag or a branch.
	RefName
)

// Ref is a parsed ref. Parse is pure: whether the ref names an existing
// version is decided by resolution.
type Ref struct {
	Kind RefKind
	Text string // as the user wrote it
	N    int    // RefHead: how many commits back
	LSN  wal.LSN
	Time time.Time
	Name string
}

func (r Ref) String() string { return r.Text }

var (
	lsnPattern  = regexp.MustCompile(`^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$`)
	namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._/-]{0,127}$`)
)

// ParseRef reads one ref:
//
//	HEAD, HEAD~N        the latest applied commit, N commits before it
//	0/16B3748           the version as of that LSN
//	@2026-11-30T10:00:00Z   the version as of that commit time (RFC 3339)
//	NAME                a tag or branch
func ParseRef(s string) (Ref, error) {
	r := Ref{Text: s}
	switch {
	case s == "":
		return r, fmt.Errorf("empty ref: use HEAD, HEAD~N, an LSN such as 0/16B3748, @<RFC 3339 time>, or a tag or branch name")
	case s == "HEAD":
		r.Kind = RefHead
		return r, nil
	case strings.HasPrefix(s, "HEAD~"):
		n, err := strconv.Atoi(s[len("HEAD~"):])
		if err != nil || n < 0 {
			return r, fmt.Errorf("ref %q: HEAD~N needs a non-negative number N", s)
		}
		r.Kind, r.N = RefHead, n
		return r, nil
	case strings.HasPrefix(s, "HEAD^"):
		n := strings.Count(s, "^")
		if s != "HEAD"+strings.Repeat("^", n) {
			return r, fmt.Errorf("ref %q: write HEAD~N", s)
		}
		r.Kind, r.N = RefHead, n
		return r, nil
	case strings.HasPrefix(s, "@"):
		t, err := time.Parse(time.RFC3339Nano, s[1:])
		if err != nil {
			return r, fmt.Errorf("ref %q: a time ref is @ followed by an RFC 3339 time, e.g. @2026-11-30T10:00:00Z", s)
		}
		r.Kind, r.Time = RefTime, t
		return r, nil
	case lsnPattern.MatchString(s):
		lsn, err := wal.ParseLSN(s)
		if err != nil {
			return r, fmt.Errorf("ref %q: %w", s, err)
		}
		r.Kind, r.LSN = RefLSN, lsn
		return r, nil
	}
	if err := ValidateName(s); err != nil {
		return r, fmt.Errorf("ref %q is not HEAD, HEAD~N, an LSN (0/16B3748), @<time>, or a valid tag or branch name: %w", s, err)
	}
	r.Kind, r.Name = RefName, s
	return r, nil
}

// ValidateName checks a tag or branch name: letters, digits, '.', '_', '/',
// '-', starting with a letter or '_', at most 128 bytes, and not a word that
// reads as another kind of ref.
func ValidateName(s string) error {
	if !namePattern.MatchString(s) {
		return fmt.Errorf("names use letters, digits, '.', '_', '/', '-', start with a letter or '_', at most 128 bytes")
	}
	if s == "HEAD" || strings.HasPrefix(s, "HEAD~") || strings.HasPrefix(s, "HEAD^") || lsnPattern.MatchString(s) {
		return fmt.Errorf("%q reads as another kind of ref", s)
	}
	if strings.Contains(s, "..") || strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") {
		return fmt.Errorf("%q: no '..', no trailing '/' or '.'", s)
	}
	return nil
}
