-- bpchar written without a length is unbounded (pg_get_viewdef prints
-- a view's char comparisons as 'x'::bpchar); char without one is char(1).
SELECT 'wt'::bpchar, 'wt'::character(3), 'wt'::pg_catalog.bpchar, 'w'::char;
SELECT length('ab '::bpchar), 'ab'::bpchar = 'ab  '::bpchar;
SELECT c FROM (VALUES ('wt'::char(2)), ('ab'), (NULL)) v(c) WHERE c = 'wt'::bpchar;
