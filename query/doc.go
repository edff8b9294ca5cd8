// Package query is the scan and aggregate engine over one table's HEAD as
// heap pages (issue 14): the engine `sidecar agg`, POST /api/query and the
// SQL front end plan onto.
//
// A Request (JSON-able) names aggregates (count(*), count, sum, min, max,
// avg), GROUP BY columns, a WHERE and a HAVING expression, ORDER BY and
// LIMIT. Bind checks it against a table's schema before any work: every
// bad column, type or literal is an error naming it. Run executes a bound
// plan over a Source: the pages of typed column segments and their
// summaries at one LSN (a heap.Snapshot through FromSnapshot; head/'s
// tables give those).
//
// # Execution
//
// A filter is evaluated on whole segments into per-page bitmaps (the
// selection vector: bit i of word i/64 is slot i), in three-valued logic:
// every node yields the rows where it is TRUE and the rows where it is
// UNKNOWN (NULL); NOT swaps TRUE and FALSE and keeps UNKNOWN, as in SQL.
// Before a page is touched its zone map (per-page min/max and NULL count)
// is checked and the page is skipped when no row can satisfy the filter.
// Only the columns the request names are read (projection). Pages are
// split into contiguous ranges, one per worker (GOMAXPROCS by default);
// the partial aggregates are merged in range order, so a run is
// deterministic for a given worker count.
//
// Primary-key ranges: when the conjuncts of WHERE bound an integer first
// key column (=, <, <=, >, >=, BETWEEN, IN), a HEAD query asks the model
// for the row ids of that key range from its radix index, in the same
// read lock as the heap snapshot (head.Model.SnapshotRange), and scans
// only those rows' pages and slots (Options.Only); an --as-of query
// scans only that key range of the tree. The whole WHERE is still
// evaluated on those rows.
//
// An unfiltered, ungrouped request whose aggregates are all count(*),
// count(col), sum of an integer column or min/max of an integer or float
// column is answered from the table summaries, without touching a value.
//
// GROUP BY one integer column whose value range (from the summaries) is
// small is aggregated into an array indexed by value; every other grouping
// uses a hash table keyed by the encoded group values.
//
// # PostgreSQL semantics
//
// Result types are PostgreSQL's: count is bigint; sum of smallint/integer
// is bigint, of bigint numeric, of real real, of double precision double
// precision; avg of an integer type is numeric (scale chosen as
// PostgreSQL's numeric division does: at least 16 significant digits,
// rounded half away from zero), of a float type double precision; min and
// max keep the column's type. Values are printed as PostgreSQL's output
// functions print them. Floats compare as PostgreSQL does: NaN equals NaN
// and sorts above every other value, -0 equals 0. Text compares bytewise,
// as under the "C" collation (min, max, <, ORDER BY), whatever the
// database's collation. Float sums are added in page order within a
// worker's range, then across ranges, so the last bits may differ from
// PostgreSQL's (whose order is its own physical order); min/max of floats
// that compare equal (-0 and 0) may print either.
//
// numeric is exact: a value is heap's int64 unscaled value and display
// scale (or, for NaN, ±Infinity and values of more than 18 digits, the
// exception text heap keeps); comparisons align scales in 64 bits or
// big.Int, sum(numeric) adds in 128 bits at the largest input scale
// (PostgreSQL's result scale), avg(numeric) divides with select_div_scale,
// NaN absorbs a sum and +Infinity with -Infinity gives NaN, as in
// PostgreSQL. No float is involved. date, timestamp and timestamptz are
// heap's integers (days, µs since 2000-01-01; ±infinity at the integer
// bounds, so integer order is PostgreSQL's order); literals are ISO
// texts as PostgreSQL prints them ('2024-01-31', '2024-01-31 12:00:00',
// timestamptz with an offset or read as UTC, 'infinity'), results print
// as date_out/timestamp_out do under TimeZone=UTC.
//
// Supported column types: smallint, integer, bigint, real, double
// precision, numeric, date, timestamp, timestamptz, boolean (count, min,
// max, filters) and text-like columns (count, min, max, filters); every
// one of them can be a GROUP BY column.
//
// GROUP BY groups as PostgreSQL's equality does: numerics equal in value
// are one group whatever their display scale (1.0, 1.00 and 1: the key
// strips trailing zeros), NaN is one group, float -0 and 0 are one group.
// The group prints the value of its first row in scan order (page order,
// ranges merged in order), as PostgreSQL's HashAggregate does (its sorted
// grouping prints any one of them).
package query
