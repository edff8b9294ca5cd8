package types_test

// Array inputs for TestInputOutputMatchesPostgres (pg_test.go): text
// output with PostgreSQL's quoting, binary send and receive, ::text,
// and array_in's errors, per element type.
func init() {
	for typ, inputs := range map[string][]string{
		"int4[]":         {"{}", " { } ", "{1,2,3}", "{ 1 , -2 ,3 }", "{NULL,1}", "{null}", `{"1"}`, "{1,}", "{,1}", "{1", "1,2", "{1}x", "{1}  ", "{a}", "{2147483648}", `{"NULL"}`, "{{1,2},{3,4}}", "[1:2]={1,2}", "{1 2}", `{1"2"}`, ""},
		"int2[]":         {"{1,32767}", "{32768}"},
		"int8[]":         {"{9223372036854775807,NULL}"},
		"float4[]":       {"{1.5,NaN,-Infinity}"},
		"float8[]":       {"{0.1,1e300,NULL}"},
		"numeric[]":      {"{1.50,NaN,-0.001}"},
		"numeric(5,2)[]": {"{1.234,NULL}", "{12345}"},
		"text[]":         {`{a,b}`, `{"",a}`, `{"a b"," c ",d}`, `{NULL,"NULL",nulL}`, `{"a\"b","c\\d",e\,f}`, `{a\ b}`, `{ a b , c }`, `{"{x}"}`, `{a}}`, `{"a"  ,b}`, `{x y\ }`, "{é,ü}", `{"a,b"}`},
		"varchar[]":      {"{abc,NULL}"},
		"varchar(2)[]":   {"{ab,abc}", "{ab,\"ab   \"}"},
		"bool[]":         {"{t,f,true,NULL}", "{maybe}"},
		"date[]":         {"{2020-01-01,infinity}"},
		"timestamp[]":    {`{"2020-01-01 10:00:00",NULL}`},
		"timestamptz[]":  {`{"2020-01-01 10:00:00+02"}`},
		"oid[]":          {"{1,4294967295}"},
		"name[]":         {"{pg_catalog,public}"},
		"char(2)[]":      {"{a,bb}"},
	} {
		inputCases[typ] = inputs
	}
}
