package history

import "flag"

// seedFlag replays a failing random test: go test ./history -run X -seed N.
var seedFlag = flag.Uint64("seed", 0, "seed for the random model tests (0: from the clock)")
