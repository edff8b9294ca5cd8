package sqlfront

// dateTimeSend is the binary form of a date, timestamp or timestamptz
// given as its output text, by the type catalog's send function
// (date_send, timestamp_send): ±infinity are sent as PostgreSQL sends
// them (the int32/int64 extremes), which pgtype's encoder cannot do.
// ok is false for other types.
func dateTimeSend(t uint32, txt string) (b []byte, ok bool, err error) {
	switch t {
	case oidDate, oidTimestamp, oidTimestamptz:
	default:
		return nil, false, nil
	}
	b, err = inSend(t, txt) // binary_send.go
	return b, true, err
}
