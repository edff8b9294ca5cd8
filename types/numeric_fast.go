package types

// parsePlainDecimal parses the common form of numeric input without
// allocating more than the result: an optional sign, digits and at most
// one '.', nothing else (no spaces, exponent, underscores or special
// values) and at most 18 digits, so the unscaled value fits an int64.
// ok=false: s is not of that form (parseDecimal's general path decides,
// errors included). The result is what parseDecimal gives for s.
func parsePlainDecimal(s string) (d *Decimal, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v int64
	nd, scale, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if nd == 18 {
				return nil, false
			}
			v = v*10 + int64(c-'0')
			nd++
			if dot {
				scale++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return nil, false
		}
	}
	if nd == 0 {
		return nil, false
	}
	if neg {
		v = -v
	}
	d = &Decimal{Scale: int32(scale)}
	d.V.SetInt64(v)
	return d, true
}
