package replication

// MinServerVersion is the oldest PostgreSQL (server_version_num) the
// sidecar follows: pgoutput protocol 2 (streaming of in-progress
// transactions), transactional logical decoding messages and the copy's
// TID range scans all arrived in 14. preflight refuses older servers and
// `sidecar version` prints it.
const MinServerVersion = 140000

// ProtocolVersion is the pgoutput proto_version the stream asks for.
const ProtocolVersion = 2
