package libccoll

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

func TestCompareEnUS(t *testing.T) {
	l, err := Open("en_US.UTF-8")
	if err != nil {
		testenv.Missing(t, err.Error(), "install Debian's locales package and generate en_US.UTF-8 (.ci/run does)")
	}
	in := []string{"b", "B", "a", "A", "á", "", "a b", "ab", "a-b", "10", "9"}
	got := slices.Clone(in)
	slices.SortFunc(got, l.Compare)
	// glibc 2.28+ (ISO 14651): lower case before upper case, accents
	// after the base letter (glibc 2.36: space and hyphen sort before letters).
	want := []string{"", "10", "9", "a", "A", "á", "a b", "a-b", "ab", "b", "B"}
	if !slices.Equal(got, want) {
		t.Fatalf("en_US order %q, want %q", got, want)
	}
	if l.Compare("a", "a") != 0 || l.Compare("a", "b") >= 0 || l.Compare("b", "a") <= 0 {
		t.Fatal("Compare is not a total order on plain letters")
	}
	if _, err := Open("xx_NOPE.UTF-8"); err == nil {
		t.Fatal("Open of a locale that does not exist succeeded")
	}
	if Version() == "" {
		t.Fatal("no glibc version")
	}
}

func TestUTF8(t *testing.T) {
	for name, want := range map[string]bool{"en_US.UTF-8": true, "en_US.utf8": true, "de_DE.UTF-8@euro": true, "en_US": false, "en_US.ISO-8859-1": false, "C": false} {
		if UTF8(name) != want {
			t.Errorf("UTF8(%q) = %v", name, !want)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	l, err := Open("en_US.UTF-8")
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		l.Compare("Müller, Hans", "Mueller, Hanna")
	}
}

// BenchmarkSort sorts n random mixed-case strings (5–16 letters, some
// accented) under en_US.UTF-8 and in byte order (COLLATE "C"), the cost
// an ORDER BY of a text column pays for the locale.
func BenchmarkSort(b *testing.B) {
	l, err := Open("en_US.UTF-8")
	if err != nil {
		b.Skip(err)
	}
	letters := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéäöü -")
	for _, n := range []int{100_000, 1_000_000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		in := make([]string, n)
		for i := range in {
			r := make([]rune, 5+rng.IntN(12))
			for j := range r {
				r[j] = letters[rng.IntN(len(letters))]
			}
			in[i] = string(r)
		}
		for _, c := range []struct {
			name string
			cmp  func(a, b string) int
		}{{"C", strings.Compare}, {"en_US", l.Compare}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					s := slices.Clone(in)
					slices.SortFunc(s, c.cmp)
				}
			})
		}
	}
}
