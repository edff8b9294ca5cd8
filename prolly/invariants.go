package prolly

import inv "github.com/sidecar-dev/sidecar/internal/invariants"

// invariants enables expensive internal assertions: on in builds with the
// invariants tag or the race detector (see internal/invariants). They panic:
// a failed one is a bug in this package, not bad input.
const invariants = inv.Enabled
