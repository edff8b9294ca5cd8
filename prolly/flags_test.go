package prolly

import (
	"flag"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

var benchRowsFlag = flag.String("benchrows", "", "rows in benchmark fixtures (default 1000000)")

func testingFlag(name string) string {
	if name == "benchrows" {
		return *benchRowsFlag
	}
	return ""
}

// seedFlag replays a failing random test: go test ./prolly -run X -seed N.
var seedFlag = seed.Flag()
