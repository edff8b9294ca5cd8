-- ORDER BY the primary key under LIMIT reads the scan in key order
-- (sql/opt keyorder.go); this harness's source cannot, so the executor
-- sorts on the key (scan_ordered.go's fallback), OFFSET passed over by
-- the scan. Answers as PostgreSQL's Index Scan [Backward].
SELECT id, s FROM nums ORDER BY id DESC LIMIT 2;
SELECT id, s FROM nums ORDER BY id LIMIT 2 OFFSET 1;
SELECT id FROM nums ORDER BY id DESC LIMIT ALL OFFSET 3;
SELECT id FROM nums WHERE id > 2 ORDER BY id LIMIT 2;
SELECT id FROM nums WHERE id < 4 AND b ORDER BY id DESC LIMIT 1;
SELECT id, i8 FROM nums ORDER BY id DESC, i8 LIMIT 3 OFFSET 1;
SELECT id FROM nums ORDER BY id DESC LIMIT 0;
SELECT json_agg(s) FROM (SELECT id, s FROM nums ORDER BY id DESC LIMIT 3 OFFSET 1) s;
SELECT id, (SELECT n.id FROM nums n WHERE n.id < o.id ORDER BY n.id DESC LIMIT 1) FROM nums o ORDER BY 1;
