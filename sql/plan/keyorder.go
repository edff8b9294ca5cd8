package plan

// KeyOrder is the order a Scan hands its rows in: none promised, or the
// table's primary-key (replica identity) order, ascending or descending
// (sql/opt keyorder.go sets it where an ORDER BY on the key is the
// scan's own order; the executor then reads the rows in that order and
// no Sort runs).
type KeyOrder int8

// Key orders of a Scan.
const (
	NoKeyOrder KeyOrder = iota
	KeyAsc
	KeyDesc
)

func (o KeyOrder) String() string {
	switch o {
	case KeyAsc:
		return "key order"
	case KeyDesc:
		return "key order descending"
	}
	return ""
}
