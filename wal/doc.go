// Package wal is the vocabulary of following PostgreSQL: positions in the
// write-ahead log ([LSN]), tables as the publisher describes them
// ([Relation], [Column], [TableName]), decoded row changes ([Change],
// [TxnInfo]), and the interfaces through which a consumer receives the
// stream and the initial copy ([Sink], [CopySink], [RowWriter]).
//
// It is a leaf: it imports no PostgreSQL client, so the packages that only
// speak this vocabulary (mirror, refs, history, verify's checksums, the
// read side) do not depend on pgx or pglogrepl. Package replication
// produces these values from a server; TestLeaf keeps the storage packages
// free of the client.
package wal
