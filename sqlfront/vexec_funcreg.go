package sqlfront

import (
	"sync"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// The function library of the followed server's major.
//
// sql/builtin answers the functions whose results differ among
// PostgreSQL 14–18 (quote_ident's keywords, date_trunc of infinity,
// numeric ^ integer's scale, …) as one major behaves when built for it
// (builtin.NewFor), and refuses exactly those inputs when the major is
// unknown. Without this the SQL port ran every statement on the
// unknown-major library: right, but refusing answers the followed major
// gives.

// funcLibraries caches one library per followed major: a Registry is
// immutable and costly to build, so every statement of that major shares
// it. A daemon follows one server, so it holds one or two (an upgrade).
type funcLibraries struct {
	mu    sync.Mutex
	byVer map[int]*builtin.Registry
}

// forVersion is the library of server_version_num v's major (v 0:
// unknown, nil — the binder's default, which refuses where majors differ).
func (l *funcLibraries) forVersion(v int) *builtin.Registry {
	if v == 0 {
		return nil
	}
	major := v / 10000 * 10000
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := l.byVer[major]; r != nil {
		return r
	}
	if l.byVer == nil {
		l.byVer = map[int]*builtin.Registry{}
	}
	r := builtin.NewFor(types.Dialect{Version: major})
	l.byVer[major] = r
	return r
}

// Functions implements plan.FuncRegistry: the followed major's library.
func (c *vecCatalog) Functions() *builtin.Registry {
	if c.pl.sess == nil || c.pl.sess.srv == nil {
		return nil
	}
	return c.pl.sess.srv.funcs.forVersion(c.pl.sess.followedVersionNum())
}
