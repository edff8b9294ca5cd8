package sqlfront_test

import (
	"testing"
)

// TestInetColumns (issue 21/23): a followed table with inet, cidr and
// macaddr columns read through the SQL port: statements the engine
// (sql/exec) runs — a join with jsonb_each, which no direct path serves,
// grouping, ordering, joins on inet, the network operators — answered as
// PostgreSQL answers, in text and binary format, also under a session
// time zone other than UTC. Before, any such statement reading the
// inet column was refused ("a column of type oid869").
func TestInetColumns(t *testing.T) {
	r := newRig(t, []string{"public.events"}, []string{
		"CREATE TABLE events (id int PRIMARY KEY, ip inet, net cidr, mac macaddr, at timestamptz, props jsonb)",
		`INSERT INTO events SELECT i, ((i * 37) % 256 || '.' || (i * 11) % 256 || '.0.' || i % 256 || '/' || (i * 7) % 33)::inet,
		   ((i % 4) * 64 || '.0.0.0/' || 2 + i % 7)::cidr,
		   (lpad(to_hex(i % 256), 2, '0') || ':00:5e:00:53:' || lpad(to_hex((i * 3) % 256), 2, '0'))::macaddr,
		   '2024-01-01 00:00:00+00'::timestamptz + i * interval '1 hour', jsonb_build_object('k' || i % 3, i, 'z', i % 5)
		 FROM generate_series(1, 300) i`,
		`INSERT INTO events VALUES (301, '::ffff:10.1.2.3', '2001:db8::/32', NULL, NULL, '{}'), (302, '2001:db8::1/64', NULL, '08:00:2b:01:02:03', NULL, NULL), (303, NULL, NULL, NULL, NULL, '{"a": 1}')`,
	})
	stmts := []string{
		"SELECT e.ip, k FROM events e, jsonb_each(e.props) j(k, v) ORDER BY e.id, k",
		"SELECT e.ip, e.net, e.mac, k, v FROM events e, jsonb_each(e.props) j(k, v) WHERE e.ip << '10.0.0.0/8' OR e.ip <<= e.net",
		"SELECT network(ip), count(*), min(ip), max(ip) FROM events GROUP BY network(ip) ORDER BY 1",
		"SELECT ip, net, host(ip), masklen(ip), family(ip), broadcast(ip), netmask(ip), abbrev(net), ip::text, trunc(mac), ip + 1, ip - network(ip) FROM events WHERE family(ip) = 4 ORDER BY id",
		"SELECT ip FROM events ORDER BY ip DESC NULLS LAST, id LIMIT 20",
		"SELECT a.id, b.id FROM events a JOIN events b ON network(a.ip) = b.net AND a.id < b.id ORDER BY 1, 2",
		"SELECT net, count(DISTINCT ip), count(*) FROM events GROUP BY net ORDER BY net",
		"SELECT DISTINCT trunc(mac) FROM events ORDER BY 1",
		"SELECT id, at, ip FROM events WHERE id % 50 = 0 ORDER BY id",
		"SELECT ip, id FROM events WHERE ip = '37.11.0.1/7' OR ip IN ('::ffff:10.1.2.3', '2001:db8::1/64') ORDER BY id",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "UTC")
	compareWithPostgres(t, r.pgURL+"&timezone=Europe/Berlin", tzServe(t, r)+"&timezone=Europe/Berlin", stmts, nil, "Europe/Berlin")
}
