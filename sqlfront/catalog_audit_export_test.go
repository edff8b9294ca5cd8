package sqlfront

import "maps"

// CannedQueryTexts are the psql query texts the front end answers with
// canned plans (catalog_psql.go), by name.
func CannedQueryTexts() map[string]string {
	out := maps.Clone(psqlQueries)
	maps.Copy(out, psqlSchemaQueries)
	maps.Copy(out, psqlExtensionQueries)
	maps.Copy(out, psqlPartitionQueries)
	return out
}
