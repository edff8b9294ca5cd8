package replication

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/wal"
)

func TestDecodeCopyText(t *testing.T) {
	t.Parallel()
	data := "1\t\\N\t\n2\ta\\tb\\\\c\\nd\t\\101\\x42\n"
	rows, err := DecodeCopyText([]byte(data), 3)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%q", rows)
	want := fmt.Sprintf("%q", [][][]byte{{[]byte("1"), nil, []byte("")}, {[]byte("2"), []byte("a\tb\\c\nd"), []byte("AB")}})
	if got != want {
		t.Fatalf("rows = %s, want %s", got, want)
	}
	if rows[0][1] != nil || rows[0][2] == nil {
		t.Errorf("NULL and empty string not told apart: %#v, %#v", rows[0][1], rows[0][2])
	}
	// Rows must not alias the parser's buffer: the first row survives the second.
	if string(rows[0][0]) != "1" {
		t.Errorf("first row overwritten: %q", rows[0][0])
	}
	if rows, err := DecodeCopyText(nil, 2); err != nil || len(rows) != 0 {
		t.Errorf("empty output: %q, %v", rows, err)
	}
	for _, bad := range []string{"1\t2\n", "1\t2\t3\t4\n", "1\t2\t3", "1\t2\t3\\\n"} {
		if rows, err := DecodeCopyText([]byte(bad), 3); err == nil {
			t.Errorf("DecodeCopyText(%q) = %q, accepted", bad, rows)
		}
	}
}

// copyEscape is COPY TO's text-format escaping of one field.
func copyEscape(dst, v []byte) []byte {
	for _, c := range v {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// TestCopyParserRandom checks the parser against the rows it was given:
// random fields (NULL, empty, plain, or with bytes COPY escapes), the
// output cut into random writes so that rows span them, values checked
// while they are valid (inside emit).
func TestCopyParserRandom(t *testing.T) {
	t.Parallel()
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 7))
	alphabet := []byte("ab\\\t\n\r\b\f\vN0\xff")
	for iter := range 200 {
		ncols := 1 + rng.IntN(5)
		nrows := rng.IntN(50)
		want := make([][][]byte, nrows)
		var data []byte
		for r := range want {
			want[r] = make([][]byte, ncols)
			for c := range ncols {
				if c > 0 {
					data = append(data, '\t')
				}
				switch rng.IntN(4) {
				case 0:
					data = append(data, '\\', 'N')
					continue
				case 1:
					want[r][c] = []byte{}
					continue
				}
				v := make([]byte, 1+rng.IntN(12))
				for i := range v {
					if rng.IntN(3) == 0 {
						v[i] = alphabet[rng.IntN(len(alphabet))]
					} else {
						v[i] = byte('a' + rng.IntN(26))
					}
				}
				want[r][c] = v
				data = copyEscape(data, v)
			}
			data = append(data, '\n')
		}
		row := 0
		p := newCopyParser(ncols, func(vals []wal.Value) error {
			if row >= len(want) {
				return fmt.Errorf("row %d: more rows than written", row+1)
			}
			for c, v := range vals {
				w := want[row][c]
				if (v.Kind == wal.Null) != (w == nil) || !bytes.Equal(v.Bytes, w) {
					return fmt.Errorf("row %d column %d: got %v %q, want %q", row+1, c+1, v.Kind, v.Bytes, w)
				}
			}
			row++
			return nil
		})
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(40))
			// A fresh copy per write: values must not outlive their write.
			chunk := append([]byte(nil), rest[:n]...)
			if _, err := p.Write(chunk); err != nil {
				t.Fatalf("seed %d iteration %d: %v", seed, iter, err)
			}
			clear(chunk)
			rest = rest[n:]
		}
		if err := p.finish(); err != nil {
			t.Fatalf("seed %d iteration %d: %v", seed, iter, err)
		}
		if row != nrows {
			t.Fatalf("seed %d iteration %d: %d rows decoded, want %d", seed, iter, row, nrows)
		}
	}
}
