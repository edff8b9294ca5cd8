package sqlfront

import (
	"errors"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/internal/testenv"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestLibcOrderHostCheck: a libc collation proven under one glibc is
// refused, naming why, on a host whose glibc differs or where the locale
// does not load; on this host, with its version, it orders as strcoll_l.
func TestLibcOrderHostCheck(t *testing.T) {
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		testenv.Missing(t, err.Error(), "install Debian's locales package and generate en_US.UTF-8 (.ci/run does)")
	}
	here := libccoll.Version()
	for _, c := range []struct {
		coll wal.Collation
		want string
	}{
		{wal.Collation{Name: "default", Locale: "libc en_US.UTF-8", Order: wal.CollLibc, Version: "1.99"}, "this host's glibc is " + here},
		{wal.Collation{Name: "default", Locale: "libc xx_XX.UTF-8", Order: wal.CollLibc, Version: here}, `load the locale "xx_XX.UTF-8"`},
	} {
		_, err := openLibcOrder(c.coll)
		var fe *Error
		if !errors.As(err, &fe) || fe.Code != codeUnsupported || !strings.Contains(fe.Msg, c.want) {
			t.Errorf("%+v: want 0A000 saying %q, got %v", c.coll, c.want, err)
		}
	}
	ord, err := openLibcOrder(wal.Collation{Name: "default", Locale: "libc en_US.UTF-8", Order: wal.CollLibc, Version: here})
	if err != nil {
		t.Fatal(err)
	}
	if ord.Compare("apple", "Banana") >= 0 || ord.Compare("Apple", "apple") <= 0 {
		t.Errorf("en_US: apple < Banana and apple < Apple expected")
	}
	// A collation read as libc but not proven (another glibc on the
	// server, a probe that sorted otherwise) is refused saying so.
	s := &orderSites{used: []wal.Collation{{Name: "default", Locale: "libc en_US.UTF-8", Order: wal.CollOther}}}
	if _, err := orderUnder(&s.used[0], s); err == nil || !strings.Contains(err.Error(), "not proven identical") {
		t.Errorf("an unproven libc collation: want a refusal saying it was not proven, got %v", err)
	}
}
