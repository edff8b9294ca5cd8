-- The session's functions (the test catalog answers them as the
-- PostgreSQL session does; sqlfront's catalog as the flat path does):
-- the SQL-standard keywords, their column names and types, in
-- expressions and over tables.
SELECT current_user;
SELECT session_user;
SELECT user;
SELECT current_role;
SELECT current_catalog;
SELECT current_schema;
SELECT current_database();
SELECT current_schema();
SELECT pg_is_in_recovery();
SELECT version();
SELECT current_user, session_user, current_database(), current_schema();
SELECT current_user = session_user, length(current_database()) > 0, NOT pg_is_in_recovery();
SELECT pg_catalog.current_database(), pg_catalog.version() LIKE 'PostgreSQL%';
SELECT id, current_user FROM arr WHERE id < 3;
SELECT upper(current_user::text) = upper(session_user::text);
SELECT current_database() || '/' || current_schema();
SELECT count(*) FROM arr WHERE current_database() IS NOT NULL;
SELECT current_database(1);
SELECT version('x');
SELECT pg_is_in_recovery(true);
