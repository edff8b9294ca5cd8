package mirror

import "github.com/sidecar-dev/sidecar/wal"

const notCarriedMark = 'g' // starts the optional section of columns the stream does not carry

// encodeNotCarried writes wal.Facts.NotCarried (the generated columns the
// stream and the copy leave out) as an optional section after the schema
// facts, when there are any: records without it decode as before.
func encodeNotCarried(e *enc, f *wal.Facts) {
	e.uvarint(uint64(len(f.NotCarried)))
	for _, c := range f.NotCarried {
		e.str(c)
	}
}

// decodeNotCarried reads the fields encodeNotCarried writes.
func decodeNotCarried(d *dec, f *wal.Facts) {
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		f.NotCarried = append(f.NotCarried, d.str())
	}
}
