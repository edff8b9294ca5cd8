-- to_number (sql/builtin/tonumber.go): formatting.c's NUM_processor reading
SELECT to_number('12,454.8-', '99G999D9S');
SELECT to_number('1,234.56', '999G999D99');
SELECT to_number('  123', 'FM9999');
SELECT to_number('-123', 'S999');
SELECT to_number('$123.45', 'L999D99');
SELECT to_number('<123>', '999PR');
SELECT to_number('123-', '999MI');
SELECT to_number('12', '99V9') /* refused: 10 ^ -1's scale depends on the major */;
SELECT to_number('1.2e3', '9.9EEEE');
SELECT to_number('abc', '999');
SELECT to_number('99999', '999');
SELECT to_number('1234.5678', '9999.99');
SELECT to_number('1,000', '');
SELECT to_number('1', '99D99D9');
SELECT to_number(s, f) FROM (VALUES ('1,234', '9G999'), ('-5', 'S9'), (NULL, '9'), ('7', NULL), ('3.5', '9D9')) v(s, f);
SELECT sum(to_number(s, 'FM999G999D99')) FROM (VALUES ('1,000.50'), ('2,000.25'), ('12')) v(s);
