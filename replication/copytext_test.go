package replication

import (
	"fmt"
	"testing"
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
