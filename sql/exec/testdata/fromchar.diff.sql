-- to_date / to_timestamp(text, text): formatting.c's reading (session
-- 27's port: loose separators, short fields, names, errors with
-- PostgreSQL's SQLSTATEs), compared with PostgreSQL.
select to_date('2020-01-05', 'YYYY-MM-DD'), to_date('01/05/2020', 'MM/DD/YYYY'), to_date('05.01.2020', 'DD.MM.YYYY'), to_date('20200105', 'YYYYMMDD');
select to_date('05 Jan 2020', 'DD Mon YYYY'), to_date('05 JAN 2020', 'DD Mon YYYY'), to_date('05 jan 2020', 'DD MON YYYY'), to_date('31 dec 1999', 'DD mon YYYY');
select to_date('January 05 2020', 'Month DD YYYY'), to_date('FEBRUARY 29 2024', 'MONTH DD YYYY'), to_date('september 30 2021', 'month DD YYYY');
select to_date('2020-1-5', 'FMYYYY-FMMM-FMDD'), to_date('2020-12-25', 'FMYYYY-FMMM-FMDD'), to_date('5/1/2020', 'FMDD/FMMM/YYYY');
select to_date('5th Jan 2020', 'FMDDth Mon YYYY'), to_date('01st Mar 2021', 'DDth Mon YYYY'), to_date('22ND Feb 2022', 'DDTH Mon YYYY'), to_date('2020-01-05TH', 'YYYY-MM-DDTH');
select to_timestamp('2020-01-05 10:11:12', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('05 Jan 2020 10:11:12', 'DD Mon YYYY HH24:MI:SS');
select to_timestamp('Mar 7 2021 9:05:00', 'Mon FMDD YYYY FMHH24:MI:SS'), to_timestamp('07/03/2021 23:59:59', 'DD/MM/YYYY HH24:MI:SS');
select to_date(null, 'YYYY'), to_date('2020', null), to_date('2020', 'YYYY'), to_date('2020-07', 'YYYY-MM');
select to_date('January 05, 2020', 'Month DD, YYYY');
select to_date('05 Foo 2020', 'DD Mon YYYY');
select to_date('2020-02-30', 'YYYY-MM-DD');
select to_date('2020-1-5', 'YYYY-MM-DD');
select to_date('123 Jan 2020', 'FMDD Mon YYYY');
select to_date('Jan 05 2020', 'DD Mon YYYY');
select to_date('2020-01-05', 'YYYY-MM-DD HH');
select to_date('05 Janu 2020', 'DD Mon YYYY');
select to_date('Ä5 Jan 2020', 'DD Mon YYYY');
select id, dt, to_date(to_char(dt, 'DD Mon YYYY'), 'DD Mon YYYY'), to_date(to_char(dt, 'FMMonth FMDD YYYY'), 'Month FMDD YYYY') from nums;
