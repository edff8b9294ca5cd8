-- Hypothetical-set aggregates: rank, dense_rank, percent_rank and
-- cume_dist of a hypothetical row among the group's rows (aggregates.sql).
SELECT rank(3) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(1),(2),(2),(3),(3),(4)) v(x);
SELECT cume_dist(3) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(1),(2),(2),(3),(3),(4)) v(x);
SELECT percent_rank(3) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(1),(2),(2),(3),(3),(4),(5)) v(x);
SELECT dense_rank(3) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(1),(2),(2),(3),(3),(4)) v(x);
SELECT rank('adam'::varchar) WITHIN GROUP (ORDER BY x) FROM (VALUES ('fred'),('jim')) v(x);
SELECT rank('3') WITHIN GROUP (ORDER BY x) FROM generate_series(1,5) x;
SELECT percent_rank(0) WITHIN GROUP (ORDER BY x) FROM generate_series(1,0) x;
SELECT rank(0) WITHIN GROUP (ORDER BY x), dense_rank(0) WITHIN GROUP (ORDER BY x), percent_rank(0) WITHIN GROUP (ORDER BY x), cume_dist(0) WITHIN GROUP (ORDER BY x) FROM generate_series(1,0) x;
SELECT rank(4) WITHIN GROUP (ORDER BY a), dense_rank(4) WITHIN GROUP (ORDER BY a) FROM (VALUES (1),(3),(5),(7)) t(a);
SELECT grp, rank(2) WITHIN GROUP (ORDER BY k), dense_rank(2) WITHIN GROUP (ORDER BY k), percent_rank(2) WITHIN GROUP (ORDER BY k), cume_dist(2) WITHIN GROUP (ORDER BY k) FROM w GROUP BY grp;
SELECT grp, rank(2) WITHIN GROUP (ORDER BY k DESC), cume_dist(2) WITHIN GROUP (ORDER BY k DESC NULLS LAST) FROM w GROUP BY grp;
SELECT rank(NULL::int) WITHIN GROUP (ORDER BY k), rank(NULL::int) WITHIN GROUP (ORDER BY k NULLS FIRST), dense_rank(NULL) WITHIN GROUP (ORDER BY k) FROM w;
SELECT rank(1, 10) WITHIN GROUP (ORDER BY k, x), dense_rank(1, 10) WITHIN GROUP (ORDER BY k, x DESC), cume_dist(1, 10) WITHIN GROUP (ORDER BY k, x) FROM w;
SELECT rank(2.5) WITHIN GROUP (ORDER BY k), cume_dist(2) WITHIN GROUP (ORDER BY y) FROM w;
SELECT rank(2) WITHIN GROUP (ORDER BY k) FILTER (WHERE grp = 'a') FROM w;
SELECT dense_rank(x) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(1),(2),(2),(3),(3)) v(x) GROUP BY (x) ORDER BY 1 /* refused: a direct argument reading columns */;
SELECT rank(1, 2) WITHIN GROUP (ORDER BY k) FROM w;
SELECT rank(1) WITHIN GROUP (ORDER BY k, x) FROM w;
SELECT rank('a') WITHIN GROUP (ORDER BY k) FROM w;
-- Different explicit collations on a direct argument and its key: 42P21 (aggregates.sql:784).
SELECT rank('adam'::text COLLATE "C") WITHIN GROUP (ORDER BY x COLLATE "POSIX") FROM (VALUES ('fred'),('jim')) v(x);
SELECT rank('adam'::text COLLATE "C") WITHIN GROUP (ORDER BY x COLLATE "C") FROM (VALUES ('fred'),('jim')) v(x);
