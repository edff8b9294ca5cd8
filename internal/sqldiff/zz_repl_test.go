package sqldiff_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

func TestZZRepl(t *testing.T) {
	f := os.Getenv("ZZQ")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	ctx := context.Background()
	pgs, scs := followed(t, sqldiff.WideSetup, sqldiff.WideTables)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "--") {
			continue
		}
		ord := strings.HasPrefix(l, "O ")
		l = strings.TrimPrefix(l, "O ")
		o := sqldiff.CompareWide(ctx, pgs, scs, sqldiff.WideQuery{SQL: l, Ordered: ord}, true, 10*time.Second)
		t.Logf("%s\n   => %s %s %s", l, o.Class, o.Code, o.Message)
	}
}
