-- lower, upper, initcap and ILIKE of non-ASCII text under the C locale
-- (the test database's default): only ASCII letters change case.
SELECT id, lower(t::text), upper(t::text), initcap(t::text) FROM jo;
SELECT lower('ÉÀ Straße İI'), upper('éà straße ıi ǆ'), initcap('élan vital ǆemal'), initcap('x1é y_z');
SELECT 'É' ILIKE 'é', 'É' ILIKE 'É', 'Éa' ILIKE 'éA', 'xÉ' ILIKE '_É', 'ÀB' NOT ILIKE 'àb', 'straße' ILIKE 'STRA%';
SELECT id FROM jo WHERE t::text ILIKE '%É%';
SELECT id, s FROM nums WHERE s ILIKE 'e';
