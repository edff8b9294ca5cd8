// Package remote keeps a sidecar's history in S3-compatible object
// storage: nodes in pack files (one per upload, never an object per node),
// the mirror's records in commit-log segments, and a manifest naming both,
// replaced only by compare-and-swap on its ETag under a lease with an epoch
// (a fencing token), so two sidecars never both write one prefix.
//
// # Objects (under the prefix of remote.url)
//
//	packs/<address>.pack      nodes of one upload, s2 bodies + index + footer (pack.go)
//	log/<epoch>-<seq>.seg     the mirror's records written since the last segment (segment.go)
//	manifest.json             epoch, remote-durable LSN, packs, segments, tags, branches, horizon
//	lease.json                holder, epoch, expiry
//
// Reads never LIST: the manifest is one GET, a pack's index one ranged GET
// of its tail, nodes ranged GETs of their bodies (neighbours merged), each
// checked against its address and cached in the local store (Store).
package remote
