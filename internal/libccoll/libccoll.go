// Package libccoll compares text as PostgreSQL does under a libc
// (glibc) locale: strcoll_l under the collation's locale, ties between
// different strings broken by strcmp (varstr_cmp in PostgreSQL's
// varlena.c, for a deterministic collation). PostgreSQL does not trust
// strxfrm for libc collations, and neither does this package.
//
// The order is glibc's: it is PostgreSQL's only when the server's glibc
// has the same collation data, which the caller proves (the collation
// version PostgreSQL reports equals Version, and a probe of tricky
// strings sorts alike on both sides; replication/relmeta_collation.go).
package libccoll

/*
#define _GNU_SOURCE
#include <locale.h>
#include <string.h>
#include <stdlib.h>
#include <gnu/libc-version.h>

static locale_t sc_newlocale(const char *name) {
	return newlocale(LC_COLLATE_MASK, name, (locale_t)0);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Version is the collation version PostgreSQL reports for a libc
// collation on this host's glibc (pg_collation_actual_version):
// gnu_get_libc_version().
func Version() string { return C.GoString(C.gnu_get_libc_version()) }

// Locale is a loaded glibc collation locale. Its Compare is safe for
// concurrent use; the locale is freed when the Locale is unreachable.
type Locale struct {
	name string
	h    *handle
	bufs sync.Pool // *[]byte scratch for the NUL-terminated operands
}

type handle struct{ loc C.locale_t }

// Open loads the collation of locale name (as PostgreSQL's collcollate
// or datcollate spells it, e.g. "en_US.UTF-8"): newlocale must succeed.
func Open(name string) (*Locale, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return nil, fmt.Errorf("load the locale %q: not a locale name", name)
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	loc, err := C.sc_newlocale(cs)
	if loc == nil {
		return nil, fmt.Errorf("load the locale %q on this host (glibc %s): %v", name, Version(), err)
	}
	l := &Locale{name: name, h: &handle{loc: loc}}
	runtime.AddCleanup(l, func(h *handle) { C.freelocale(h.loc) }, l.h)
	return l, nil
}

// Name is the locale's name as given to Open.
func (l *Locale) Name() string { return l.name }

// Compare orders a and b as PostgreSQL's varstr_cmp does under a
// deterministic libc collation of this locale: equal bytes are equal,
// else strcoll_l decides, and strcmp breaks its ties.
func (l *Locale) Compare(a, b string) int {
	if a == b {
		return 0
	}
	n := len(a) + len(b) + 2
	p, _ := l.bufs.Get().(*[]byte)
	if p == nil || cap(*p) < n {
		b := make([]byte, n, max(n, 256))
		p = &b
	}
	buf := (*p)[:n]
	copy(buf, a)
	buf[len(a)] = 0
	copy(buf[len(a)+1:], b)
	buf[n-1] = 0
	r := C.strcoll_l((*C.char)(unsafe.Pointer(&buf[0])), (*C.char)(unsafe.Pointer(&buf[len(a)+1])), l.h.loc)
	runtime.KeepAlive(l)
	l.bufs.Put(p)
	switch {
	case r < 0:
		return -1
	case r > 0:
		return 1
	}
	return strings.Compare(a, b) // strcmp: text holds no NUL
}

// UTF8 says whether a locale name's codeset is UTF-8 ("en_US.UTF-8",
// "en_US.utf8"): sidecar holds text as UTF-8, so only such a locale
// orders it as the server does.
func UTF8(name string) bool {
	_, cs, ok := strings.Cut(name, ".")
	if !ok {
		return false
	}
	cs, _, _ = strings.Cut(cs, "@")
	cs = strings.ReplaceAll(strings.ToLower(cs), "-", "")
	return cs == "utf8"
}
