-- RANGE offset frames over a timestamptz key (a rolling 7-day sum): the
-- bound is timestamptz ± interval in the session's zone (UTC here; other
-- zones in sqlfront's TestTimestamptzComparisons).
SELECT id, tz, sum(v) OVER (ORDER BY tz RANGE BETWEEN interval '7 days' PRECEDING AND CURRENT ROW), count(*) OVER (ORDER BY tz RANGE BETWEEN interval '1 hour' PRECEDING AND interval '1 month' FOLLOWING) FROM ev;
SELECT id, count(*) OVER (ORDER BY tz DESC RANGE BETWEEN interval '2 days' PRECEDING AND interval '1 day' FOLLOWING) FROM ev;
SELECT host, id, max(v) OVER (PARTITION BY host ORDER BY tz RANGE interval '30 days' PRECEDING) FROM ev;
SELECT id, count(*) OVER (ORDER BY tz RANGE BETWEEN interval '-1 day' PRECEDING AND CURRENT ROW) FROM ev;
