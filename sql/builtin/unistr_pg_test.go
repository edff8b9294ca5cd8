package builtin_test

import "testing"

// TestUnistrMatchesPostgres compares unistr with PostgreSQL's over
// every escape form, surrogate pairs (well formed, lone, reversed,
// split by text), code points out of range, bad escapes and a trailing
// backslash. Before, unistr was refused (0A000).
func TestUnistrMatchesPostgres(t *testing.T) {
	ins := vals("text", `\0064at\+0000610`, `d\u0061t\U000000610`, `a\\b`, `plain`, ``, `\00e9\u00E9\+0000e9\U000000E9`,
		`\D83D\DE00`, `\uD83D\uDE00`, `\+00D83D\+00DE00`, `\UD83D\UDE00`, `\D83Dx`, `\DE00`, `\D83D`, `\D83D\\`, `\D83D\D83D`,
		`\0000`, `\+110000`, `\UFFFFFFFF`, `\U80000000`, `\x`, `\u12`, `\+12345`, `a\`, `\\\\`, `\U0001F600`, `\+10FFFF`, `\u0041\u`)
	cases := cross("unistr", ins)
	runDifferential(t, cases)
	noRefusals(t, cases)
}
