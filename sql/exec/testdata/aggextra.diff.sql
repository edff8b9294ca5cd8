-- The variance family, string_agg and the ordered-set aggregates
-- (percentile_cont, percentile_disc, mode) on sql/exec, compared with
-- PostgreSQL: grouped, over joins, with NULLs, FILTER, DISTINCT, empty
-- input, and their errors.
SELECT grp, stddev(x), variance(x), stddev_pop(y), var_pop(y), stddev_samp(f), var_samp(f) FROM w GROUP BY grp;
SELECT stddev(i2), variance(i8), stddev(d), var_pop(f), stddev_pop(i8) FROM nums;
SELECT stddev(x) FILTER (WHERE k > 1), variance(DISTINCT x), stddev(y) FROM w;
SELECT stddev(x), variance(x) FROM w WHERE id > 100;
SELECT stddev(w.x + n.i2), variance(n.d) FROM w JOIN nums n ON n.id = w.k;
SELECT k, stddev(1.5), variance(2) FROM w GROUP BY k;
SELECT grp, string_agg(x::text, ',' ORDER BY id) FROM w GROUP BY grp;
SELECT string_agg(s, '-' ORDER BY id DESC), string_agg(v, NULL ORDER BY id), string_agg(c, '|' ORDER BY c, id) FROM nums;
SELECT grp, string_agg(x::text, ', ' ORDER BY x DESC NULLS LAST, id) FILTER (WHERE id <> 2) FROM w GROUP BY grp;
SELECT string_agg(DISTINCT grp, ',') , string_agg(DISTINCT x::text, ';') FROM w;
SELECT string_agg(s, id::text ORDER BY id) FROM nums;
SELECT string_agg(s, ',' ORDER BY id) FROM nums WHERE id > 100;
SELECT string_agg('x', ',') FROM w WHERE grp = 'c';
SELECT string_agg(s, ',' ORDER BY id) FROM nums WHERE s IS NULL;
SELECT n.s, string_agg(w.grp, '+' ORDER BY w.id) FROM nums n JOIN w ON w.k = n.id GROUP BY n.s;
SELECT string_agg(id, ',') FROM nums;
SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.25) WITHIN GROUP (ORDER BY f), percentile_disc(0.5) WITHIN GROUP (ORDER BY y) FROM w GROUP BY grp;
SELECT percentile_cont(0) WITHIN GROUP (ORDER BY x), percentile_cont(1) WITHIN GROUP (ORDER BY x), percentile_cont(0.1) WITHIN GROUP (ORDER BY x DESC), percentile_disc(0) WITHIN GROUP (ORDER BY x), percentile_disc(1) WITHIN GROUP (ORDER BY x), percentile_disc(0.3) WITHIN GROUP (ORDER BY x DESC) FROM w;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d), percentile_disc(0.5) WITHIN GROUP (ORDER BY dt), percentile_disc(0.9) WITHIN GROUP (ORDER BY s), percentile_cont(0.7) WITHIN GROUP (ORDER BY i8) FROM nums;
SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE k = 5) FROM w;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM w WHERE id > 100;
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM w;
SELECT percentile_disc(-0.25) WITHIN GROUP (ORDER BY x) FROM w;
SELECT grp, mode() WITHIN GROUP (ORDER BY k), mode() WITHIN GROUP (ORDER BY x DESC) FROM w GROUP BY grp;
SELECT mode() WITHIN GROUP (ORDER BY k), mode() WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY grp DESC) FROM w;
SELECT n.b, mode() WITHIN GROUP (ORDER BY w.k), percentile_disc(0.5) WITHIN GROUP (ORDER BY w.id) FROM w JOIN nums n ON n.id = w.k GROUP BY n.b;
SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 5) FROM w GROUP BY k HAVING count(*) > 1;
-- percentile_cont/percentile_disc of an array of fractions: one value per
-- fraction (NULL for a NULL fraction), over the same sorted values.
SELECT percentile_disc(array[0,0.1,0.25,0.5,0.75,0.9,1]) WITHIN GROUP (ORDER BY k) FROM w;
SELECT percentile_cont(array[0,0.25,0.5,0.75,1]) WITHIN GROUP (ORDER BY k) FROM w;
SELECT percentile_cont(array[0,1,0.25,0.75,0.5,1,0.3,0.32,0.35,0.38,0.4]) WITHIN GROUP (ORDER BY x) FROM generate_series(1,6) x;
SELECT percentile_disc(array[0.25,0.5,0.75]) WITHIN GROUP (ORDER BY x) FROM unnest('{fred,jim,fred,jack,jill,fred,jill,jim,jim,sheila,jim,sheila}'::text[]) u(x);
SELECT grp, percentile_disc(array[0.5, NULL]::float8[]) WITHIN GROUP (ORDER BY x DESC), percentile_cont('{}'::float8[]) WITHIN GROUP (ORDER BY f) FROM w GROUP BY grp;
SELECT percentile_cont(array[0.5]) WITHIN GROUP (ORDER BY x) FROM generate_series(1,0) x;
SELECT percentile_cont(array[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM generate_series(1,3) x;
SELECT percentile_disc(array['a']) WITHIN GROUP (ORDER BY x) FROM generate_series(1,3) x;
