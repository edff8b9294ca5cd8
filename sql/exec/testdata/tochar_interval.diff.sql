-- to_char(interval, text): interval2itm's fields through DCH_to_char in
-- interval mode (negative fields one digit wider, no BC adjustment, CC
-- = years/100, DDD of 30-day months, calendar fields 22007).
select to_char(interval '1 day 2 hours', 'DD HH24:MI:SS');
select to_char(interval '15h 2m 12s', 'HH24:MI:SS'), to_char(interval '15h 2m 12s', 'HH:MI:SS AM'), to_char(interval '15h 2m 12s', 'HH12 pm a.m.');
select to_char(interval '-15h -2m -12s', 'HH24:MI:SS'), to_char(interval '-15h -2m -12s', 'HH:MI:SS'), to_char(interval '-12h', 'HH12 HH'), to_char(interval '-13h', 'AM');
select to_char(interval '1 year 2 months 3 days', 'YYYY-MM-DD'), to_char(interval '-1 year -2 months -3 days', 'YYYY-MM-DD');
select to_char(interval '1 year 2 months 3 days', 'FMYYYY-FMMM-FMDD'), to_char(interval '-1 year -2 months -3 days', 'FMYYYY FMMM FMDD');
select to_char(interval '1234 years', 'Y,YYY YYY YY Y CC'), to_char(interval '-1234 years', 'Y,YYY YYY YY Y CC'), to_char(interval '0', 'Y,YYY YYYY CC');
select to_char(interval '25 years 7 months 12 days', 'DDD WW W Q'), to_char(interval '11 days', 'DDD WW W Q'), to_char(interval '-11 days -2 months', 'DDD WW W Q');
select to_char(interval '1.234567 seconds', 'SS.MS.US FF1 FF2 FF3 FF4 FF5 FF6'), to_char(interval '-1.234567 seconds', 'SS.MS.US FF1 FF6');
select to_char(interval '3 hours 25 minutes 7 seconds', 'SSSS SSSSS'), to_char(interval '-3 hours', 'SSSS');
select to_char(interval '3 days 4 hours', 'DDth HH24TH MIth'), to_char(interval '1 day 1 hour 2 minutes 3 seconds', 'DDth HHth MIth SSth'), to_char(interval '11 days 12 hours 13 minutes', 'DDth HH24th MIth'), to_char(interval '-21 days', 'DDth');
select to_char(interval '3 months', 'RM rm FMRM'), to_char(interval '-3 months', 'RM'), to_char(interval '2 years', 'RM'), to_char(interval '-2 years', 'RM'), to_char(interval '0', 'RM|'), to_char(interval '12 months', 'rm');
select to_char(interval '3 months', 'Q QTH'), to_char(interval '0 months', 'Q|QTH|');
select to_char(interval '100 hours', 'HH24 HH12 HH'), to_char(interval '2147483647 hours', 'HH24'), to_char(interval '-2147483648 hours', 'HH24 MI');
select to_char(interval '1 day', '"day "DD" text" \"x'), to_char(interval '5 minutes', 'MI€ä');
select to_char(interval '1 day', ''), to_char(null::interval, 'HH'), to_char(interval '1 day', null);
select to_char(interval '1 day', 'Day');
select to_char(interval '1 month', 'Mon');
select to_char(interval '1 month', 'MONTH');
select to_char(interval '1 year', 'BC');
select to_char(interval '1 year', 'TZ');
select to_char(interval '1 year', 'OF');
select to_char(interval '1 year', 'D');
select to_char(interval '1 year', 'tzh');
select to_char(interval '1 year', 'FX YYYY');
select to_char(interval '1 year', 'IYYY') /* refused: ISO calendar fields of an interval */;
select to_char(interval '1 year', 'J') /* refused: Julian day of an interval */;
select to_char(interval '2147483647 hours' + interval '1 hour', 'HH24') /* refused: hours past int4 */;
select to_char(interval '700000 hours', 'SSSS') /* refused: SSSS past int4 */;
select to_char(interval '700000 hours', 'HH24:MI');
select to_char(interval '1 mon -1 day 3 hours', 'MM DD HH24'), to_char(interval '-1 mon +1 day -3 hours', 'MM DD HH24');
select id, to_char(make_interval(0, id, 0, id * 3, id, id * 7, id * 1.5), 'YYYY MM DD HH24:MI:SS.US') from nums;
select to_char(ts - '2024-01-01', 'DD HH24:MI') from wd where ts is not null and ts < 'infinity' and ts > '-infinity';
