package sqlfront

// pgAggregates are the names of PostgreSQL's built-in aggregates
// (pg_proc rows of pg_catalog with prokind 'a', the union over 14–18:
// any_value and the json*_strict/unique ones are 16+). isAggName's
// aggregates are computed by the flat evaluator; a call of any other
// of these is planned by sql/exec, never compiled as a scalar function.
var pgAggregates = map[string]bool{
	"any_value": true, "array_agg": true, "avg": true, "bit_and": true, "bit_or": true, "bit_xor": true,
	"bool_and": true, "bool_or": true, "corr": true, "count": true, "covar_pop": true, "covar_samp": true,
	"cume_dist": true, "dense_rank": true, "every": true, "json_agg": true, "json_agg_strict": true,
	"json_object_agg": true, "json_object_agg_strict": true, "json_object_agg_unique": true,
	"json_object_agg_unique_strict": true, "jsonb_agg": true, "jsonb_agg_strict": true,
	"jsonb_object_agg": true, "jsonb_object_agg_strict": true, "jsonb_object_agg_unique": true,
	"jsonb_object_agg_unique_strict": true, "max": true, "min": true, "mode": true, "percent_rank": true,
	"percentile_cont": true, "percentile_disc": true, "range_agg": true, "range_intersect_agg": true,
	"rank": true, "regr_avgx": true, "regr_avgy": true, "regr_count": true, "regr_intercept": true,
	"regr_r2": true, "regr_slope": true, "regr_sxx": true, "regr_sxy": true, "regr_syy": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "string_agg": true, "sum": true,
	"var_pop": true, "var_samp": true, "variance": true, "xmlagg": true,
}
