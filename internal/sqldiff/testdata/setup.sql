-- The standard tables PostgreSQL's regression scripts read, after
-- src/test/regress/sql/test_setup.sql (PostgreSQL 15). The small tables
-- carry the rows test_setup.sql inserts; onek and tenk1 have the same
-- columns and the same relations between them as onek.data and tenk.data,
-- generated here (unique1 a permutation of 0..n-1, unique2 the row
-- number, the other numbers derived from unique1, the strings from
-- base-26 digits), since the data files are not available. The expected
-- outputs of the scripts therefore do not apply: the harness compares the
-- sidecar with a live PostgreSQL on these rows.

CREATE TABLE CHAR_TBL(f1 char(4));
INSERT INTO CHAR_TBL (f1) VALUES ('a'), ('ab'), ('abcd'), ('abcd    ');

CREATE TABLE FLOAT8_TBL(f1 float8);
INSERT INTO FLOAT8_TBL(f1) VALUES ('0.0'), ('-34.84'), ('-1004.30'), ('-1.2345678901234e+200'), ('-1.2345678901234e-200');

CREATE TABLE INT2_TBL(f1 int2);
INSERT INTO INT2_TBL(f1) VALUES ('0   '), ('  1234 '), ('    -1234'), ('32767'), ('-32767');

CREATE TABLE INT4_TBL(f1 int4);
INSERT INTO INT4_TBL(f1) VALUES ('   0  '), ('123456     '), ('    -123456'), ('2147483647'), ('-2147483647');

CREATE TABLE INT8_TBL(q1 int8, q2 int8);
INSERT INTO INT8_TBL VALUES ('  123   ','  456'), ('123   ','4567890123456789'), ('4567890123456789','123'),
  (+4567890123456789,'4567890123456789'), ('+4567890123456789','-4567890123456789');

CREATE TABLE TEXT_TBL (f1 text);
INSERT INTO TEXT_TBL VALUES ('doh!'), ('hi de ho neighbor');

CREATE TABLE VARCHAR_TBL(f1 varchar(4));
INSERT INTO VARCHAR_TBL (f1) VALUES ('a'), ('ab'), ('abcd'), ('abcd    ');

CREATE TABLE onek (
	unique1 int4, unique2 int4, two int4, four int4, ten int4, twenty int4, hundred int4, thousand int4,
	twothousand int4, fivethous int4, tenthous int4, odd int4, even int4, stringu1 name, stringu2 name, string4 name
);
INSERT INTO onek
SELECT u1, i, u1 % 2, u1 % 4, u1 % 10, u1 % 20, u1 % 100, u1 % 1000, u1 % 2000, u1 % 5000, u1,
	(u1 % 100) * 2, (u1 % 100) * 2 + 1,
	chr(65 + u1 % 26) || chr(65 + u1 / 26 % 26) || chr(65 + u1 / 676 % 26) || 'AAA',
	chr(65 + i % 26) || chr(65 + i / 26 % 26) || chr(65 + i / 676 % 26) || 'AAA',
	(ARRAY['AAAA', 'HHHH', 'OOOO', 'VVVV'])[i % 4 + 1] || 'xx'
FROM (SELECT i, (i * 211 + 7) % 1000 AS u1 FROM generate_series(0, 999) i) s;

CREATE TABLE onek2 AS SELECT * FROM onek;

CREATE TABLE tenk1 (
	unique1 int4, unique2 int4, two int4, four int4, ten int4, twenty int4, hundred int4, thousand int4,
	twothousand int4, fivethous int4, tenthous int4, odd int4, even int4, stringu1 name, stringu2 name, string4 name
);
INSERT INTO tenk1
SELECT u1, i, u1 % 2, u1 % 4, u1 % 10, u1 % 20, u1 % 100, u1 % 1000, u1 % 2000, u1 % 5000, u1,
	(u1 % 100) * 2, (u1 % 100) * 2 + 1,
	chr(65 + u1 % 26) || chr(65 + u1 / 26 % 26) || chr(65 + u1 / 676 % 26) || 'AAA',
	chr(65 + i % 26) || chr(65 + i / 26 % 26) || chr(65 + i / 676 % 26) || 'AAA',
	(ARRAY['AAAA', 'HHHH', 'OOOO', 'VVVV'])[i % 4 + 1] || 'xx'
FROM (SELECT i, (i * 7919 + 1234) % 10000 AS u1 FROM generate_series(0, 9999) i) s;

CREATE TABLE tenk2 AS SELECT * FROM tenk1;

ANALYZE;
