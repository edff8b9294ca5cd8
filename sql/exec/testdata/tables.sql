CREATE TABLE t1 (name text, n int4);
CREATE TABLE t2 (name text, n int4);
CREATE TABLE t3 (name text, n int4);
CREATE TABLE nums (id int4 PRIMARY KEY, i2 int2, i8 int8, f float8, d numeric, s text, c char(4), v varchar(10), b bool, dt date);
CREATE TABLE w (id int4, grp text, k int4, x int4, y numeric, f float8);
CREATE TABLE wd (id int4, d date, ts timestamp, t time, f float8, n numeric);
CREATE TABLE arr (id int4, ia int4[], ta text[], na numeric[]);
CREATE TABLE js (id int4, j jsonb, t json);
CREATE TABLE jo (id int4, j jsonb, t json);
