package daemon

import (
	pgquery "github.com/pganalyze/pg_query_go/v6"
)

// warmSQL parses one statement so that the parser's one-time set-up
// (its protobuf descriptors, initialised lazily on the first parse) is
// done while the data directory opens, not inside the first client's
// statement after a restart (issue 21 item 11: the first point get
// waited for it behind the checkpoint restore's decoding).
func warmSQL() {
	_, _ = pgquery.Parse("SELECT count(*) FROM t WHERE id = 1")
}
