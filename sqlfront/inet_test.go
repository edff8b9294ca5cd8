package sqlfront_test

import (
	"context"
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
		`INSERT INTO events VALUES (301, '::ffff:10.1.2.3', '2001:db8::/32', NULL, NULL, '{}'), (302, '2001:db8::1/64', NULL, '08:00:2b:01:02:03', NULL, NULL), (303, NULL, NULL, NULL, NULL, '{"a": 1}'),
		 (304, '1.2.3.4', '1.2.3.4/32', NULL, NULL, NULL), (305, '10.0.0.0/8', '10.0.0.0/8', NULL, NULL, NULL)`,
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
		// One table: the shapes the front end's own paths serve.
		"SELECT id, ip FROM events WHERE ip = '::FFFF:10.1.2.3'",
		"SELECT id FROM events WHERE ip > '200.0.0.0' ORDER BY id",
		"SELECT id, ip FROM events ORDER BY ip, id",
		"SELECT ip, count(*) FROM events GROUP BY ip ORDER BY ip",
		"SELECT DISTINCT net FROM events ORDER BY net",
		"SELECT min(ip), max(ip), count(DISTINCT ip), min(net) FROM events",
		"SELECT id FROM events WHERE net = '64/8' OR net = '2001:db8::/32' ORDER BY id",
		"SELECT id, mac FROM events WHERE mac = '08-00-2b-01-02-03' OR mac < '02:00:00:00:00:00' ORDER BY id",
		"SELECT id, ip FROM events WHERE ip IS NULL OR id = 1 ORDER BY id",
		"SELECT ip::text, net::text, mac::text, ip || '', net || '' FROM events WHERE id < 5 ORDER BY id",
		"SELECT id FROM events WHERE ip <<= '10.0.0.0/8' ORDER BY id",
		"SELECT id FROM events WHERE ip = net ORDER BY id",
		"SELECT id, ip < net, ip >= net FROM events WHERE id > 300 ORDER BY id",
		"SELECT id FROM events WHERE net = '1.2.3.4' OR ip = '1.2.3.4/32'::cidr ORDER BY id",
		"SELECT count(*) FROM events a JOIN events b ON a.ip = b.net",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "UTC")
	compareWithPostgres(t, r.pgURL+"&timezone=Europe/Berlin", tzServe(t, r)+"&timezone=Europe/Berlin", stmts, nil, "Europe/Berlin")
}

// TestInetBinaryParams: inet, cidr and macaddr parameters bound in text
// and in binary format (inet_send's bytes, as pgx sends netip values)
// read as PostgreSQL reads them: ::ffff:1.2.3.4 stays an IPv6 address, a
// cidr keeps its mask. Before, any such parameter was refused.
func TestInetBinaryParams(t *testing.T) {
	r := newRig(t, []string{"public.hosts"}, []string{
		"CREATE TABLE hosts (id int PRIMARY KEY, ip inet, net cidr, mac macaddr)",
		`INSERT INTO hosts VALUES (1, '1.2.3.4', '1.2.3.0/24', '08:00:2b:01:02:03'), (2, '::ffff:1.2.3.4', '::ffff:1.2.3.0/120', '08:00:2b:01:02:04'),
		 (3, '1.2.3.4/24', '10.0.0.0/8', NULL), (4, '2001:db8::1', '2001:db8::/32', NULL)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r) // pgbench_test.go
	for _, p := range []struct{ typ, val, q string }{
		{"inet", "::ffff:1.2.3.4", "SELECT id, ip FROM hosts WHERE ip = $1 ORDER BY id"},
		{"inet", "1.2.3.4", "SELECT id, ip FROM hosts WHERE ip = $1 ORDER BY id"},
		{"inet", "1.2.3.4/24", "SELECT id, ip FROM hosts WHERE ip = $1 ORDER BY id"},
		{"inet", "1.2.3.4", "SELECT id FROM hosts WHERE ip <<= $1 OR $1 <<= net ORDER BY id"},
		{"cidr", "1.2.3.0/24", "SELECT id, net FROM hosts WHERE net = $1 ORDER BY id"},
		{"cidr", "::ffff:1.2.3.0/120", "SELECT id, net, $1 FROM hosts WHERE net = $1 ORDER BY id"},
		{"macaddr", "08:00:2b:01:02:04", "SELECT id, mac FROM hosts WHERE mac = $1 ORDER BY id"},
		{"cidr", "1.2.3.4/32", "SELECT id, ip FROM hosts WHERE ip = $1 ORDER BY id"},
		{"inet", "1.2.3.0/24", "SELECT id, net FROM hosts WHERE net = $1 ORDER BY id"},
		{"inet", "1.2.3.4", "SELECT $1, $1 + 1, host($1), id FROM hosts WHERE id = 1"},
	} {
		oid := map[string]uint32{"inet": 869, "cidr": 650, "macaddr": 829}[p.typ]
		enc := conns["postgresql"].ExecParams(ctx, "SELECT $1::"+p.typ, [][]byte{[]byte(p.val)}, nil, nil, []int16{1}).Read()
		if enc.Err != nil {
			t.Fatal(enc.Err)
		}
		bin := enc.Rows[0][0]
		for _, param := range []struct {
			b      []byte
			format int16
		}{{[]byte(p.val), 0}, {bin, 1}} {
			for _, format := range []int16{0, 1} {
				want := conns["postgresql"].ExecParams(ctx, p.q, [][]byte{param.b}, []uint32{oid}, []int16{param.format}, []int16{format}).Read()
				got := conns["sidecar"].ExecParams(ctx, p.q, [][]byte{param.b}, []uint32{oid}, []int16{param.format}, []int16{format}).Read()
				if want.Err != nil || got.Err != nil || !sameRows(want.Rows, got.Rows) {
					t.Errorf("%s with $1 = %s %x (parameter format %d, result format %d):\n  sidecar    %q %v\n  PostgreSQL %q %v", p.q, p.typ, param.b, param.format, format, got.Rows, got.Err, want.Rows, want.Err)
				}
			}
		}
	}
}
