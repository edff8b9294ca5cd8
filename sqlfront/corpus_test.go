package sqlfront_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// corpusSetup is the data every corpus statement reads, on both servers.
var corpusSetup = []string{
	`CREATE TABLE accounts (id int PRIMARY KEY, name text, balance numeric(12,2), score float8, active bool,
		opened date, grp int, code varchar(10), big bigint, small smallint, at timestamptz)`,
	`INSERT INTO accounts
		SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'name' || g END, (g * 13.37 - 400)::numeric(12,2),
			CASE WHEN g % 5 = 0 THEN NULL ELSE g / 4.0 END, g % 3 = 0, date '2026-01-01' + g,
			CASE WHEN g % 11 = 0 THEN NULL ELSE g % 4 END, 'c' || (g % 9), g::bigint * 1000000000, (g % 100)::smallint,
			timestamptz '2026-11-30 10:00:00+00' + g * interval '1 hour'
		FROM generate_series(1, 200) g`,
	`CREATE TABLE orders (id bigint PRIMARY KEY, account_id int, amount int, note text)`,
	`INSERT INTO orders SELECT g, (g * 7) % 230, g * 3, CASE WHEN g % 4 = 0 THEN NULL ELSE 'o' || g END FROM generate_series(1, 300) g`,
	`CREATE TABLE pairs (a int, b text, v int, PRIMARY KEY (a, b))`,
	`INSERT INTO pairs SELECT g % 10, 'k' || (g / 10), g FROM generate_series(0, 99) g`,
	`CREATE TABLE words (w text PRIMARY KEY, n int)`,
	`INSERT INTO words VALUES ('a', 1), ('ab', 2), ('abc', 3), ('abd', 4), ('ab%x', 5), ('ab_y', 6), ('b', 7), ('aé', 8), ('aéb', 9),
		('Z', 10), ('', 11), ('abz', 12), ('ac', 13)`,
}

// corpus: statements answered by sidecar, compared with PostgreSQL's
// answer on the same rows. Rows of statements without ORDER BY are
// compared as sets.
var corpus = []string{
	"SELECT * FROM accounts ORDER BY id",
	"SELECT id, name FROM accounts WHERE id = 7",
	"SELECT id, name FROM accounts WHERE id = '7'",
	"SELECT * FROM accounts WHERE id = 1000",
	"SELECT id FROM accounts WHERE id BETWEEN 10 AND 20",
	"SELECT id FROM accounts WHERE id NOT BETWEEN 10 AND 190",
	"SELECT id FROM accounts WHERE id > 195",
	"SELECT id FROM accounts WHERE id >= 195 AND id < 198",
	"SELECT id FROM accounts WHERE id <= 3",
	"SELECT id FROM accounts WHERE 5 > id",
	"SELECT id FROM accounts WHERE id IN (1, 5, 9, 1000)",
	"SELECT id FROM accounts WHERE id NOT IN (1, 2, 3) AND id < 6",
	"SELECT id FROM accounts WHERE grp IN (1, NULL)",
	"SELECT id FROM accounts WHERE grp NOT IN (1, NULL)",
	"SELECT id, name FROM accounts WHERE name IS NULL",
	"SELECT id FROM accounts WHERE name IS NOT NULL AND id < 10",
	"SELECT id FROM accounts WHERE name LIKE 'name1%'",
	"SELECT id FROM accounts WHERE name NOT LIKE '%5' AND id < 20",
	"SELECT id FROM accounts WHERE name LIKE 'name_9'",
	"SELECT id FROM accounts WHERE active AND id < 20",
	"SELECT id FROM accounts WHERE NOT active AND id < 10",
	"SELECT id FROM accounts WHERE active OR grp = 1",
	"SELECT id, grp FROM accounts WHERE NOT (grp = 1) OR grp IS NULL",
	"SELECT id FROM accounts WHERE balance > 100.5 AND balance < 200",
	"SELECT id FROM accounts WHERE balance = '-386.63'",
	"SELECT id FROM accounts WHERE score >= 10.25 AND score < 12",
	"SELECT id FROM accounts WHERE opened = '2026-01-10'",
	"SELECT id FROM accounts WHERE opened > '2026-07-01'",
	"SELECT id FROM accounts WHERE at < '2026-11-30 15:00:00+00'",
	"SELECT id FROM accounts WHERE code = 'c3' AND id < 50",
	"SELECT id FROM accounts WHERE big > 150000000000",
	"SELECT id FROM accounts WHERE small = 42",
	"SELECT id, id + 1, id * 2, id - 3, id / 3, id % 3, -id FROM accounts WHERE id < 10",
	"SELECT id, balance * 2, balance + 1, balance / 3, balance - id FROM accounts WHERE id < 10",
	"SELECT id, score * 2, score + id, score / 3 FROM accounts WHERE id < 10",
	"SELECT id, big * 3, small + 1, small * small FROM accounts WHERE id < 10",
	"SELECT 1, 'a', 2.5, NULL, true, 1 + 2 * 3, 7 / 2, 7.0 / 2, 10 % 4, 'x' || 'y'",
	"SELECT 1::text, '42'::int, 3.7::int, 2.5::int, (-2.5)::int, 5::numeric, '1.50'::numeric, 1::float8, '2026-01-02'::date",
	"SELECT 1 / 3.0, 2 / 3.0, 100.0 / 7, 1.0 / 1000000, 123456789.0 / 3",
	"SELECT id::text || '-' || name FROM accounts WHERE id < 5",
	"SELECT count(*) FROM accounts",
	"SELECT count(*), count(name), count(grp), count(DISTINCT grp) FROM accounts",
	"SELECT sum(id), sum(balance), sum(big), sum(small), min(id), max(id), min(name), max(name) FROM accounts",
	"SELECT avg(id), avg(balance), avg(big), avg(small), avg(grp) FROM accounts",
	"SELECT min(balance), max(balance), min(opened), max(opened), min(at), max(at), min(code), max(code) FROM accounts",
	"SELECT count(*), sum(id), avg(id), min(id) FROM accounts WHERE id > 1000",
	"SELECT grp, count(*), sum(balance), avg(balance) FROM accounts GROUP BY grp",
	"SELECT grp, count(*) FROM accounts GROUP BY grp HAVING count(*) > 45",
	"SELECT grp, active, count(*) FROM accounts GROUP BY grp, active ORDER BY grp, active",
	"SELECT grp AS g, max(id) FROM accounts GROUP BY g ORDER BY g DESC",
	"SELECT grp, count(*) FROM accounts GROUP BY 1 ORDER BY 2 DESC, 1",
	"SELECT grp, sum(id) AS s FROM accounts GROUP BY grp ORDER BY s",
	"SELECT count(*) FROM accounts HAVING count(*) > 1000",
	"SELECT code, count(*) FROM accounts WHERE id < 100 GROUP BY code ORDER BY code",
	"SELECT id, name FROM accounts ORDER BY name, id LIMIT 10",
	"SELECT id, name FROM accounts ORDER BY name DESC, id LIMIT 10",
	"SELECT id, name FROM accounts ORDER BY name NULLS FIRST, id LIMIT 5",
	"SELECT id, grp FROM accounts ORDER BY grp DESC NULLS LAST, id DESC LIMIT 10",
	"SELECT id FROM accounts ORDER BY id LIMIT 5 OFFSET 10",
	"SELECT id FROM accounts ORDER BY id DESC LIMIT 3",
	"SELECT id FROM accounts ORDER BY score, id LIMIT 5",
	"SELECT id FROM accounts ORDER BY balance DESC LIMIT 5",
	"SELECT DISTINCT grp FROM accounts",
	"SELECT DISTINCT active, grp FROM accounts ORDER BY 1, 2",
	"SELECT a.id, a.name, o.amount FROM accounts a JOIN orders o ON o.account_id = a.id WHERE a.id < 20",
	"SELECT a.id, count(o.id), sum(o.amount) FROM accounts a JOIN orders o ON a.id = o.account_id GROUP BY a.id ORDER BY a.id LIMIT 20",
	"SELECT a.id, o.id FROM accounts a LEFT JOIN orders o ON o.account_id = a.id WHERE a.id < 12 ORDER BY a.id, o.id",
	"SELECT o.id, a.name FROM orders o JOIN accounts a ON a.id = o.account_id AND a.active WHERE o.id < 40",
	"SELECT count(*) FROM orders o JOIN accounts a ON a.id = o.account_id",
	// join.parent (seed 002): children joined to their parent by its key, with a filter on the parent, as a count:sum checksum.
	"SELECT count(*), sum(o.amount) FROM orders o JOIN accounts a ON a.id = o.account_id WHERE a.grp = 1 AND o.amount > 100",
	"SELECT * FROM pairs WHERE a = 3 AND b = 'k5'",
	"SELECT * FROM pairs WHERE a = 3 ORDER BY b",
	"SELECT a, count(*), sum(v) FROM pairs GROUP BY a ORDER BY a",
	"SELECT * FROM pairs WHERE a BETWEEN 2 AND 3 AND v > 50",
	"SELECT coalesce(name, 'none'), coalesce(grp, -1) FROM accounts WHERE id < 15",
	"SELECT lower(name), upper(name), length(name), abs(balance), abs(-id) FROM accounts WHERE id < 5",
	"SELECT id AS x, name AS y FROM accounts WHERE id = 3",
	"SELECT accounts.id FROM accounts WHERE accounts.id = 3",
	"SELECT public.accounts.id FROM public.accounts WHERE id = 4",
	"SELECT count(*) FROM accounts WHERE id = $1",
	"select abalance from accounts where id = 1",
	"SELECT * FROM words ORDER BY w",
	"SELECT w FROM words WHERE w LIKE 'ab%'",
	"SELECT w FROM words WHERE w LIKE 'a%'",
	"SELECT w FROM words WHERE w LIKE 'aé%'",
	"SELECT w FROM words WHERE w LIKE 'ab\\%%'",
	"SELECT w FROM words WHERE w LIKE 'ab\\_%'",
	"SELECT w FROM words WHERE w LIKE 'ab_'",
	"SELECT w FROM words WHERE w LIKE '%b'",
	"SELECT w FROM words WHERE w NOT LIKE 'ab%'",
	"SELECT w FROM words WHERE w >= 'ab' AND w < 'ac'",
	"SELECT w FROM words WHERE w <= 'abc'",
	"SELECT w FROM words WHERE w > 'ab' AND w <= 'b'",
	"SELECT w FROM words WHERE w = 'abd'",
	"SELECT w FROM words WHERE w IN ('a', 'b', 'q')",
	"SELECT w, n FROM words WHERE w BETWEEN 'a' AND 'ab' ORDER BY n",
	"SELECT w FROM words WHERE w LIKE $1",
	// Grouped statements the query engine runs (see onEngine), and two it must leave to the evaluator.
	"SELECT name, count(*) FROM accounts WHERE grp IN (1, 2) GROUP BY name HAVING count(*) >= 1 ORDER BY name LIMIT 5 OFFSET 3",
	"SELECT min(name), max(name), min(code), max(code), count(code) FROM accounts WHERE name LIKE 'name1%'",
	"SELECT grp, sum(score), min(score), max(score), avg(score), count(score) FROM accounts WHERE score > 5.5 GROUP BY grp ORDER BY grp",
	"SELECT small, count(*) FROM accounts WHERE big >= 100000000000 AND small < 10 GROUP BY small ORDER BY small DESC",
	"SELECT grp, count(*) FROM accounts WHERE id <> 5 AND NOT (grp = 2) GROUP BY grp HAVING count(*) > 10 AND max(id) < 199 ORDER BY count(*) DESC, grp",
	"SELECT count(*), sum(amount) FROM orders WHERE note IS NULL OR amount BETWEEN 100 AND 200",
	"SELECT grp, count(*) FROM accounts WHERE id < $1 GROUP BY grp ORDER BY grp",
	"SELECT code, max(id) FROM accounts WHERE code IN ('c1', 'c2') GROUP BY code ORDER BY code",
	"SELECT count(*) FROM accounts WHERE grp = NULL",
	"SELECT grp, count(*) FROM accounts GROUP BY grp ORDER BY grp NULLS FIRST",
	"SELECT w, count(*) FROM words WHERE w LIKE 'ab%' GROUP BY w ORDER BY w",
	"SELECT count(*) FROM words WHERE w LIKE 'ab\\_%'",
	// Grouped statements with expressions over the groups: the engine groups and aggregates, the evaluator computes the rest.
	"SELECT count(*), sum(amount)::text FROM orders",
	"SELECT grp, count(*), sum(id)::text, min(id) FROM accounts GROUP BY grp HAVING sum(id) % 7 <> 0 ORDER BY grp",
	"SELECT grp + 1, count(*) * 2, avg(balance) * 2, max(score) / 2 FROM accounts GROUP BY grp ORDER BY grp + 1 DESC NULLS LAST",
	"SELECT code, max(id) - min(id) AS spread FROM accounts WHERE id > 3 GROUP BY code HAVING max(id) > 10 ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 1",
	"SELECT count(*) + 1, sum(id) IS NULL, coalesce(max(name), 'none') FROM accounts WHERE id < 0",
	"SELECT count(*) * 2 FROM accounts HAVING count(*) % 2 = 0",
	"SELECT upper(code), length(min(name)), sum(small) FROM accounts GROUP BY code HAVING sum(balance) > 0 ORDER BY upper(code)",
	"SELECT grp, count(*) FROM accounts GROUP BY grp HAVING count(*) > avg(small)",
	// Key-range reads in key order (sent as stored: onDirect), and orders the direct path does not read in.
	"SELECT id, name FROM accounts WHERE id BETWEEN 10 AND 20 ORDER BY id",
	"SELECT id, account_id, amount, note FROM orders WHERE id BETWEEN $1 AND $1 + 9 ORDER BY id",
	"SELECT id, note FROM orders WHERE id >= 290 ORDER BY id LIMIT 4 OFFSET 2",
	"SELECT id, name FROM accounts WHERE id = 7 ORDER BY name",
	"SELECT id FROM accounts WHERE id >= 195 ORDER BY id DESC",
	"SELECT id FROM accounts WHERE id IN (9, 1, 5) ORDER BY id",
	"SELECT * FROM pairs WHERE a BETWEEN 2 AND 3 ORDER BY a, b",
	"SELECT b, a FROM pairs WHERE a = 3 ORDER BY b",
	// Non-grouped statements whose WHERE the engine's row scan runs (see onEngine), and some it must leave to the evaluator.
	"SELECT id, name FROM accounts WHERE grp = 1 ORDER BY id",
	"SELECT * FROM accounts WHERE score > 20.5 AND grp IN (1, 3) ORDER BY id",
	"SELECT id, code FROM accounts WHERE code LIKE 'c1%' ORDER BY id LIMIT 5 OFFSET 2",
	"SELECT id, name, balance FROM accounts WHERE name IS NULL OR big < 5000000000 ORDER BY id",
	"SELECT id + 1, upper(name), at FROM accounts WHERE small BETWEEN 10 AND 20 AND NOT (grp <> 2) ORDER BY id LIMIT 7",
	"SELECT id, opened FROM accounts WHERE id >= 100 AND grp IS NOT NULL AND code NOT IN ('c1', 'c2') ORDER BY id LIMIT 10",
	"SELECT id, score FROM accounts WHERE small > $1 ORDER BY id LIMIT 5",
	"SELECT name FROM accounts WHERE grp = 3",
	"SELECT id FROM orders WHERE amount > 800 AND note IS NOT NULL ORDER BY id LIMIT 5 OFFSET 1",
	"SELECT * FROM pairs WHERE v >= 40 AND v < 47 ORDER BY a, b",
	"SELECT a, b FROM pairs WHERE v % 7 = 0 ORDER BY a, b",
	"SELECT w, n FROM words WHERE n > 3 ORDER BY w",
	"SELECT w FROM words WHERE n <> 5 AND w > 'ab' ORDER BY w LIMIT 4",
	"SELECT id FROM accounts WHERE grp = NULL ORDER BY id",
	"SELECT id, name FROM accounts WHERE grp = 1 ORDER BY name, id",
	"SELECT id FROM orders WHERE amount > 800 ORDER BY id DESC LIMIT 3",
	"SELECT id FROM accounts WHERE balance > 100.5 AND grp = 1 ORDER BY id",
	"SELECT grp, min(balance), max(balance), min(opened), max(opened) FROM accounts WHERE balance > -100 GROUP BY grp ORDER BY grp",
	"SELECT sum(balance), avg(balance), min(opened), max(opened), count(opened) FROM accounts WHERE opened >= '2026-03-01'",
	"SELECT id, balance FROM accounts WHERE balance = 937.0 OR balance IN (1.10, -386.63, 2273.90) ORDER BY id",
	"SELECT id, balance FROM accounts WHERE balance BETWEEN -10 AND 10.5 ORDER BY id LIMIT 5",
	"SELECT id, opened FROM accounts WHERE opened BETWEEN '2026-02-01' AND '2026-02-10' AND grp <> 2 ORDER BY id",
	"SELECT id, opened FROM accounts WHERE opened > '2026-07-01' ORDER BY id LIMIT 3",
	"SELECT id, at FROM accounts WHERE at >= '2026-12-05 00:00:00+00' AND at < '2026-12-05 07:30:00+01' ORDER BY id",
	"SELECT id, at FROM accounts WHERE at < '2026-11-30 14:00' OR at = '2026-12-01 10:00:00+00' ORDER BY id",
	"SELECT count(*) FROM accounts WHERE opened < '2026-03-01' AND balance > 0",
	"SELECT grp, count(*) FROM accounts WHERE at > '2026-12-03 12:00:00+00' AND balance < 2000 GROUP BY grp ORDER BY grp",
}

// onEngine are corpus statements the query engine (query/) must answer,
// not the row-at-a-time evaluator.
var onEngine = map[string]bool{
	"SELECT count(*) FROM accounts":                                                                                                                      true,
	"SELECT count(*), count(name), count(grp), count(DISTINCT grp) FROM accounts":                                                                        false,
	"SELECT count(*), sum(id), avg(id), min(id) FROM accounts WHERE id > 1000":                                                                           true,
	"SELECT grp, count(*) FROM accounts GROUP BY grp HAVING count(*) > 45":                                                                               true,
	"SELECT grp AS g, max(id) FROM accounts GROUP BY g ORDER BY g DESC":                                                                                  true,
	"SELECT grp, count(*) FROM accounts GROUP BY 1 ORDER BY 2 DESC, 1":                                                                                   true,
	"SELECT grp, sum(id) AS s FROM accounts GROUP BY grp ORDER BY s":                                                                                     true,
	"SELECT count(*) FROM accounts HAVING count(*) > 1000":                                                                                               true,
	"SELECT code, count(*) FROM accounts WHERE id < 100 GROUP BY code ORDER BY code":                                                                     true,
	"SELECT a, count(*), sum(v) FROM pairs GROUP BY a ORDER BY a":                                                                                        true,
	"SELECT count(*) FROM accounts WHERE id = $1":                                                                                                        true,
	"SELECT grp, count(*), sum(balance), avg(balance) FROM accounts GROUP BY grp":                                                                        true,
	"SELECT grp, min(balance), max(balance), min(opened), max(opened) FROM accounts WHERE balance > -100 GROUP BY grp ORDER BY grp":                      true,
	"SELECT sum(balance), avg(balance), min(opened), max(opened), count(opened) FROM accounts WHERE opened >= '2026-03-01'":                              true,
	"SELECT a.id, count(o.id), sum(o.amount) FROM accounts a JOIN orders o ON a.id = o.account_id GROUP BY a.id ORDER BY a.id LIMIT 20":                  false,
	"SELECT name, count(*) FROM accounts WHERE grp IN (1, 2) GROUP BY name HAVING count(*) >= 1 ORDER BY name LIMIT 5 OFFSET 3":                          true,
	"SELECT min(name), max(name), min(code), max(code), count(code) FROM accounts WHERE name LIKE 'name1%'":                                              true,
	"SELECT grp, sum(score), min(score), max(score), avg(score), count(score) FROM accounts WHERE score > 5.5 GROUP BY grp ORDER BY grp":                 true,
	"SELECT small, count(*) FROM accounts WHERE big >= 100000000000 AND small < 10 GROUP BY small ORDER BY small DESC":                                   true,
	"SELECT grp, count(*) FROM accounts WHERE id <> 5 AND NOT (grp = 2) GROUP BY grp HAVING count(*) > 10 AND max(id) < 199 ORDER BY count(*) DESC, grp": true,
	"SELECT count(*), sum(amount) FROM orders WHERE note IS NULL OR amount BETWEEN 100 AND 200":                                                          true,
	"SELECT grp, count(*) FROM accounts WHERE id < $1 GROUP BY grp ORDER BY grp":                                                                         true,
	"SELECT code, max(id) FROM accounts WHERE code IN ('c1', 'c2') GROUP BY code ORDER BY code":                                                          true,
	"SELECT count(*) FROM accounts WHERE grp = NULL":                                                                                                     false, // a NULL constant: the evaluator
	"SELECT grp, count(*) FROM accounts GROUP BY grp ORDER BY grp NULLS FIRST":                                                                           true,  // the evaluator sorts the engine's groups
	"SELECT count(*), sum(amount)::text FROM orders":                                                                                                     true,
	"SELECT grp, count(*), sum(id)::text, min(id) FROM accounts GROUP BY grp HAVING sum(id) % 7 <> 0 ORDER BY grp":                                       true,
	"SELECT grp + 1, count(*) * 2, avg(balance) * 2, max(score) / 2 FROM accounts GROUP BY grp ORDER BY grp + 1 DESC NULLS LAST":                         true,
	"SELECT code, max(id) - min(id) AS spread FROM accounts WHERE id > 3 GROUP BY code HAVING max(id) > 10 ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 1":          true,
	"SELECT count(*) + 1, sum(id) IS NULL, coalesce(max(name), 'none') FROM accounts WHERE id < 0":                                                       true,
	"SELECT count(*) * 2 FROM accounts HAVING count(*) % 2 = 0":                                                                                          true,
	"SELECT upper(code), length(min(name)), sum(small) FROM accounts GROUP BY code HAVING sum(balance) > 0 ORDER BY upper(code)":                         true,
	"SELECT grp, count(*) FROM accounts GROUP BY grp HAVING count(*) > avg(small)":                                                                       true,
	"SELECT w, count(*) FROM words WHERE w LIKE 'ab%' GROUP BY w ORDER BY w":                                                                             true,
	"SELECT count(*) FROM words WHERE w LIKE 'ab\\_%'":                                                                                                   false, // an escape in the pattern
	"SELECT id, name FROM accounts WHERE grp = 1 ORDER BY id":                                                                                            true,
	"SELECT * FROM accounts WHERE score > 20.5 AND grp IN (1, 3) ORDER BY id":                                                                            true,
	"SELECT id, code FROM accounts WHERE code LIKE 'c1%' ORDER BY id LIMIT 5 OFFSET 2":                                                                   true,
	"SELECT id, name, balance FROM accounts WHERE name IS NULL OR big < 5000000000 ORDER BY id":                                                          true,
	"SELECT id + 1, upper(name), at FROM accounts WHERE small BETWEEN 10 AND 20 AND NOT (grp <> 2) ORDER BY id LIMIT 7":                                  true,
	"SELECT id, opened FROM accounts WHERE id >= 100 AND grp IS NOT NULL AND code NOT IN ('c1', 'c2') ORDER BY id LIMIT 10":                              true,
	"SELECT id, score FROM accounts WHERE small > $1 ORDER BY id LIMIT 5":                                                                                false, // key order on sql/exec (keyorder_route.go)
	"SELECT name FROM accounts WHERE grp = 3":                                                                                                            true,
	"SELECT id FROM orders WHERE amount > 800 AND note IS NOT NULL ORDER BY id LIMIT 5 OFFSET 1":                                                         false, // key order on sql/exec (keyorder_route.go)
	"SELECT * FROM pairs WHERE v >= 40 AND v < 47 ORDER BY a, b":                                                                                         true,
	"SELECT w, n FROM words WHERE n > 3 ORDER BY w":                                                                                                      true,
	"SELECT w FROM words WHERE n <> 5 AND w > 'ab' ORDER BY w LIMIT 4":                                                                                   false, // key order on sql/exec (keyorder_route.go)
	"SELECT id FROM accounts WHERE id > 195":                                                                                                             true,
	"SELECT * FROM pairs WHERE a BETWEEN 2 AND 3 AND v > 50":                                                                                             true,
	"SELECT a, b FROM pairs WHERE v % 7 = 0 ORDER BY a, b":                                                                                               false, // an expression in WHERE
	"SELECT id FROM accounts WHERE grp = NULL ORDER BY id":                                                                                               false, // a NULL constant
	"SELECT id, name FROM accounts WHERE grp = 1 ORDER BY name, id":                                                                                      false, // not key order
	"SELECT id FROM orders WHERE amount > 800 ORDER BY id DESC LIMIT 3":                                                                                  false,
	"SELECT id FROM accounts WHERE balance > 100.5 AND grp = 1 ORDER BY id":                                                                              true,
	"SELECT id, balance FROM accounts WHERE balance = 937.0 OR balance IN (1.10, -386.63, 2273.90) ORDER BY id":                                          true,
	"SELECT id, balance FROM accounts WHERE balance BETWEEN -10 AND 10.5 ORDER BY id LIMIT 5":                                                            true,
	"SELECT id, opened FROM accounts WHERE opened BETWEEN '2026-02-01' AND '2026-02-10' AND grp <> 2 ORDER BY id":                                        true,
	"SELECT id, opened FROM accounts WHERE opened > '2026-07-01' ORDER BY id LIMIT 3":                                                                    false, // key order on sql/exec (keyorder_route.go)
	"SELECT id, at FROM accounts WHERE at >= '2026-12-05 00:00:00+00' AND at < '2026-12-05 07:30:00+01' ORDER BY id":                                     true,
	"SELECT id, at FROM accounts WHERE at < '2026-11-30 14:00' OR at = '2026-12-01 10:00:00+00' ORDER BY id":                                             true,
	"SELECT count(*) FROM accounts WHERE opened < '2026-03-01' AND balance > 0":                                                                          true,
	"SELECT grp, count(*) FROM accounts WHERE at > '2026-12-03 12:00:00+00' AND balance < 2000 GROUP BY grp ORDER BY grp":                                true,
	"SELECT id FROM accounts WHERE name LIKE 'name_9'":                                                                                                   false, // _ in the pattern
}

// onDirect are corpus statements whose rows must be sent as stored (in
// text format), and some that must not (their WHERE is more than the key
// range, or a target is computed).
var onDirect = map[string]bool{
	"SELECT id, name FROM accounts WHERE id = 7":                                                 true,
	"SELECT id, name FROM accounts WHERE id = '7'":                                               true,
	"SELECT * FROM accounts WHERE id = 1000":                                                     true,
	"SELECT id FROM accounts WHERE id BETWEEN 10 AND 20":                                         true,
	"SELECT id FROM accounts WHERE id >= 195 AND id < 198":                                       true,
	"SELECT id FROM accounts WHERE id <= 3":                                                      true,
	"SELECT id FROM accounts WHERE 5 > id":                                                       true,
	"SELECT id FROM accounts WHERE id IN (1, 5, 9, 1000)":                                        true,
	"SELECT * FROM pairs WHERE a = 3 AND b = 'k5'":                                               true,
	"SELECT id FROM accounts WHERE id > 195":                                                     false, // > is read as >= and filtered
	"SELECT id FROM accounts WHERE id NOT BETWEEN 10 AND 190":                                    false,
	"SELECT * FROM pairs WHERE a BETWEEN 2 AND 3 AND v > 50":                                     false,
	"SELECT id, id + 1, id * 2, id - 3, id / 3, id % 3, -id FROM accounts WHERE id < 10":         false,
	"SELECT * FROM accounts ORDER BY id":                                                         true, // read in key order
	"SELECT id, name FROM accounts WHERE id BETWEEN 10 AND 20 ORDER BY id":                       true,
	"SELECT id, account_id, amount, note FROM orders WHERE id BETWEEN $1 AND $1 + 9 ORDER BY id": true,
	"SELECT id, note FROM orders WHERE id >= 290 ORDER BY id LIMIT 4 OFFSET 2":                   false, // key order on sql/exec (keyorder_route.go)
	"SELECT id, name FROM accounts WHERE id = 7 ORDER BY name":                                   true,  // one row
	"SELECT id FROM accounts WHERE id >= 195 ORDER BY id DESC":                                   false,
	"SELECT id FROM accounts WHERE id IN (9, 1, 5) ORDER BY id":                                  false, // read in the list's order
	"SELECT * FROM pairs WHERE a BETWEEN 2 AND 3 ORDER BY a, b":                                  false, // b: text, ordered by its collation
	"SELECT b, a FROM pairs WHERE a = 3 ORDER BY b":                                              false,
}

// onDirectBinary: corpus statements whose rows must be sent as stored
// when every column is asked for in binary (integers converted to their
// send form, text as it is), and some whose columns' binary forms the
// direct path does not make.
var onDirectBinary = map[string]bool{
	"SELECT id, name FROM accounts WHERE id = 7":                                                 true,
	"SELECT id FROM accounts WHERE id BETWEEN 10 AND 20":                                         true,
	"SELECT id, name FROM accounts WHERE id BETWEEN 10 AND 20 ORDER BY id":                       true,
	"SELECT id, account_id, amount, note FROM orders WHERE id BETWEEN $1 AND $1 + 9 ORDER BY id": true,
	"SELECT id, note FROM orders WHERE id >= 290 ORDER BY id LIMIT 4 OFFSET 2":                   false, // key order on sql/exec (keyorder_route.go)
	"SELECT * FROM pairs WHERE a = 3 AND b = 'k5'":                                               true,
	"SELECT * FROM accounts WHERE id = 1000":                                                     false, // numeric, float8, bool, date, … columns
	"SELECT * FROM accounts ORDER BY id":                                                         false,
}

// onKeyOrder are corpus statements read in primary-key order on sql/exec
// (keyorder_route.go: ORDER BY the key under LIMIT, nothing that can
// fail below it), with the most rows the read may take (a filter on
// other columns reads on until the LIMIT has its rows: the table's 200
// or 300 rows here); their rows are compared with PostgreSQL's like
// every statement's.
var onKeyOrder = map[string]int64{
	"SELECT id, score FROM accounts WHERE small > $1 ORDER BY id LIMIT 5":                        200,
	"SELECT id FROM orders WHERE amount > 800 AND note IS NOT NULL ORDER BY id LIMIT 5 OFFSET 1": 300,
	"SELECT w FROM words WHERE n <> 5 AND w > 'ab' ORDER BY w LIMIT 4":                           64, // a text key under the database's C collation
	"SELECT id, opened FROM accounts WHERE opened > '2026-07-01' ORDER BY id LIMIT 3":            200,
	"SELECT id, note FROM orders WHERE id >= 290 ORDER BY id LIMIT 4 OFFSET 2":                   64,
	"SELECT id FROM orders WHERE amount > 800 ORDER BY id DESC LIMIT 3":                          300,
}

// corpusCatalog: catalog statements whose rows (not column types: the
// information_schema's are domains) must match PostgreSQL's.
var corpusCatalog = []string{
	"SELECT table_schema, table_name, column_name, ordinal_position, data_type, is_nullable, udt_name FROM information_schema.columns WHERE table_name = 'accounts' ORDER BY ordinal_position",
	"SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
	"SELECT c.relname, a.attname, a.atttypid, a.attnum, a.atttypmod FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid WHERE c.relname = 'accounts' AND a.attnum > 0 ORDER BY a.attnum",
	"SELECT schemaname, tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
	"SELECT oid, typname FROM pg_type WHERE typname IN ('int4', 'numeric', 'text', 'timestamptz') ORDER BY oid",
}

// corpusErrors: statements both servers must refuse with the same
// SQLSTATE (sidecar may add a hint).
var corpusErrors = []string{
	"SELECT nope FROM accounts",
	"SELECT id FROM accounts WHERE id = 'x'",
	"SELECT 2147483647 + 1",
	"SELECT 1 / 0",
	"SELECT (-32768)::smallint * (-1)::smallint",
	"SELECT big * big FROM accounts WHERE id = 200",
	"SELECT id, count(*) FROM accounts",
	"SELECT id FROM accounts LIMIT -1",
	"SELEC 1",
	"SELECT id FROM accounts WHERE name = 1",
	"SELECT x.id FROM accounts a",
}

func rowsText(r *pgconn.Result) []string {
	var out []string
	for _, row := range r.Rows {
		var cells []string
		for _, c := range row {
			if c == nil {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, fmt.Sprintf("%q", c))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

func describe(r *pgconn.Result) string {
	var out []string
	for _, f := range r.FieldDescriptions {
		out = append(out, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.TypeModifier))
	}
	return strings.Join(out, ",")
}

func TestCorpusMatchesPostgres(t *testing.T) {
	r := newRig(t, []string{"public.accounts", "public.orders", "public.pairs", "public.words"}, corpusSetup)
	ctx := context.Background()
	pgc, err := pgconn.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	sc, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	for _, q := range corpus {
		if strings.Contains(q, "abalance") {
			continue
		}
		for _, format := range []int16{0, 1} {
			run := func(c *pgconn.PgConn) (*pgconn.Result, error) {
				var params [][]byte
				var oids []uint32
				if strings.Contains(q, "$1") {
					params, oids = [][]byte{[]byte("7")}, []uint32{0}
					if strings.Contains(q, "LIKE $1") {
						params[0] = []byte("ab%")
					}
				}
				res := c.ExecParams(ctx, q, params, oids, nil, []int16{format}).Read()
				return res, res.Err
			}
			want, werr := run(pgc)
			if werr != nil {
				t.Fatalf("PostgreSQL: %s: %v", q, werr)
			}
			before, beforeDirect, beforeKey := r.srv.EngineRuns(), r.srv.DirectRuns(), r.srv.KeyOrderRows()
			got, gerr := run(sc)
			if bound, listed := onKeyOrder[q]; listed {
				if read := r.srv.KeyOrderRows() - beforeKey; read == 0 || read > bound {
					t.Errorf("%s (format %d): read %d rows in key order, want 1 to %d", q, format, read, bound)
				}
			}
			if want, listed := onDirect[q]; listed && format == 0 && (r.srv.DirectRuns() > beforeDirect) != want {
				t.Errorf("%s: rows sent as stored: %v, want %v", q, !want, want)
			}
			if want, listed := onDirectBinary[q]; listed && format == 1 && (r.srv.DirectRuns() > beforeDirect) != want {
				t.Errorf("%s (binary): rows sent as stored: %v, want %v", q, !want, want)
			}
			if want, listed := onEngine[q]; listed && (r.srv.EngineRuns() > before) != want {
				t.Errorf("%s (format %d): ran on the query engine: %v, want %v", q, format, !want, want)
			}
			if gerr != nil {
				t.Errorf("sidecar (format %d): %s: %v", format, q, gerr)
				continue
			}
			if d, w := describe(got), describe(want); d != w {
				// typmods of computed columns: PostgreSQL keeps some; compare names and OIDs at least.
				t.Errorf("%s (format %d): columns\n got %s\nwant %s", q, format, d, w)
			}
			g, w := rowsText(got), rowsText(want)
			if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
				slices.Sort(g)
				slices.Sort(w)
			}
			if !slices.Equal(g, w) {
				t.Errorf("%s (format %d): rows differ\n got %d: %.600s\nwant %d: %.600s", q, format, len(g), strings.Join(g, "\n"), len(w), strings.Join(w, "\n"))
			}
		}
	}
	for _, q := range corpusCatalog {
		want, werr := pgc.Exec(ctx, q).ReadAll()
		got, gerr := sc.Exec(ctx, q).ReadAll()
		if werr != nil || gerr != nil {
			t.Errorf("%s: PostgreSQL %v, sidecar %v", q, werr, gerr)
			continue
		}
		if g, w := rowsText(got[0]), rowsText(want[0]); !slices.Equal(g, w) {
			t.Errorf("%s: rows differ\n got %q\nwant %q", q, g, w)
		}
	}
	for _, q := range corpusErrors {
		_, werr := pgc.Exec(ctx, q).ReadAll()
		_, gerr := sc.Exec(ctx, q).ReadAll()
		var we, ge *pgconn.PgError
		if !asPgErr(werr, &we) || !asPgErr(gerr, &ge) {
			t.Errorf("%s: want errors from both, got PostgreSQL %v, sidecar %v", q, werr, gerr)
			continue
		}
		if we.Code != ge.Code {
			t.Errorf("%s: SQLSTATE %s (%s), PostgreSQL says %s (%s)", q, ge.Code, ge.Message, we.Code, we.Message)
		}
		if we.Position != ge.Position && we.Position != 0 {
			t.Logf("%s: position %d, PostgreSQL %d", q, ge.Position, we.Position)
		}
	}
	// The row scan answers as the evaluator does, where SQL leaves the
	// answer open too (LIMIT without ORDER BY: key order) and where a
	// target fails on a row (the evaluator projects the rows OFFSET skips,
	// and under ORDER BY every row before LIMIT; PostgreSQL's plans may
	// not). Each statement's WHERE is also written with "+ 0" or "|| ''",
	// which keeps it on the evaluator.
	for _, q := range []struct{ engine, eval string }{
		{"SELECT name FROM accounts WHERE grp = 3 LIMIT 4", "SELECT name FROM accounts WHERE grp + 0 = 3 LIMIT 4"},
		{"SELECT w, n FROM words WHERE n < 9 LIMIT 5 OFFSET 2", "SELECT w, n FROM words WHERE n + 0 < 9 LIMIT 5 OFFSET 2"},
		{"SELECT * FROM pairs WHERE b > 'k4' LIMIT 7", "SELECT * FROM pairs WHERE b || '' > 'k4' LIMIT 7"},
		{"SELECT 1 / (id - 100) FROM accounts WHERE grp = 0 ORDER BY id LIMIT 1", "SELECT 1 / (id - 100) FROM accounts WHERE grp + 0 = 0 ORDER BY id LIMIT 1"},
		{"SELECT 1 / (id - 4) FROM accounts WHERE grp = 0 LIMIT 2 OFFSET 1", "SELECT 1 / (id - 4) FROM accounts WHERE grp + 0 = 0 LIMIT 2 OFFSET 1"},
		{"SELECT 1 / (id - 8) FROM accounts WHERE grp = 0 LIMIT 1", "SELECT 1 / (id - 8) FROM accounts WHERE grp + 0 = 0 LIMIT 1"},
	} {
		var answers [2]string
		for i, sql := range []string{q.engine, q.eval} {
			before := r.srv.EngineRuns()
			res, err := sc.Exec(ctx, sql).ReadAll()
			if onEngine := r.srv.EngineRuns() > before; onEngine != (i == 0) && err == nil {
				t.Errorf("%s: on the engine %v", sql, onEngine)
			}
			if err != nil {
				answers[i] = "error " + errString(err)
			} else {
				answers[i] = strings.Join(rowsText(res[0]), "\n")
			}
		}
		if answers[0] != answers[1] {
			t.Errorf("%s\n row scan: %.300s\nevaluator: %.300s", q.engine, answers[0], answers[1])
		}
	}
	_ = pgx.ErrNoRows
}

func asPgErr(err error, out **pgconn.PgError) bool {
	pe, ok := err.(*pgconn.PgError)
	if ok {
		*out = pe
	}
	return ok
}
