package prolly

import (
	"flag"
)

var benchRowsFlag = flag.String("benchrows", "", "rows in benchmark fixtures (default 1000000)")

func testingFlag(name string) string {
	if name == "benchrows" {
		return *benchRowsFlag
	}
	return ""
}
