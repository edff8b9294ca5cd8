package builtin

import (
	"slices"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/types"
)

// This file makes the date/time functions over timestamptz follow the
// session's TimeZone (Context.Zone; nil: UTC), as PostgreSQL's do:
// date_trunc, date_part/extract and to_char read the local time of the
// zone; date_trunc's third argument and AT TIME ZONE (timezone()) take
// any zone: a time zone abbreviation of PostgreSQL's Default set
// (timezone_abbreviations = Default) first, then a zone of the tz
// database or a POSIX offset, as timestamp_zone looks them up.

// zoneOf is the session zone a call reads (nil: UTC).
func zoneOf(c *Context) *types.Zone {
	if c == nil {
		return nil
	}
	return c.Zone
}

// addTimeZone wraps the timestamptz overloads of addDateTime so that
// outside UTC they read local time, and gives date_trunc's zone form
// and AT TIME ZONE their implementations.
func (r *Registry) addTimeZone() {
	inZone := func(f *Func, zoned func(c *Context, a []types.Value, z *types.Zone) (types.Value, error)) {
		orig := f.impl
		f.impl = func(c *Context, a []types.Value, p []OID) (types.Value, error) {
			if z := zoneOf(c); !z.IsUTC() {
				return zoned(c, a, z)
			}
			return orig(c, a, p)
		}
	}
	for _, f := range r.funcs["date_trunc"] {
		switch {
		case len(f.Args) == 2 && f.Args[1] == tsz:
			inZone(f, func(_ *Context, a []types.Value, z *types.Zone) (types.Value, error) {
				return r.truncIn(lowerUnits(str(a[0])), tsArg(a[1]), z)
			})
		case len(f.Args) == 3:
			if from16, _ := r.atLeast(160000); !from16 {
				f.Volatility = Stable // immutable in pg_proc from 16 (the zone is an argument)
			}
			f.impl = func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
				z, err := r.atTimeZone(c, str(a[2]))
				if err != nil {
					return nil, err
				}
				return r.truncIn(lowerUnits(str(a[0])), tsArg(a[1]), z)
			}
		}
	}
	for _, name := range []string{"date_part", "extract"} {
		for _, f := range r.funcs[name] {
			if len(f.Args) != 2 || f.Args[1] != tsz {
				continue
			}
			orig, numeric := f.impl, name == "extract"
			f.Volatility = Stable
			f.impl = func(c *Context, a []types.Value, p []OID) (types.Value, error) {
				z := zoneOf(c)
				if z.IsUTC() {
					return orig(c, a, p)
				}
				pt, err := tsPartIn(lowerUnits(str(a[0])), tsArg(a[1]), z)
				if err != nil {
					return nil, err
				}
				if numeric {
					return pt.numeric()
				}
				return pt.float(), nil
			}
		}
	}
	for _, f := range r.funcs["to_char"] {
		if len(f.Args) == 2 && f.Args[0] == tsz {
			f.Volatility = Stable
			inZone(f, func(_ *Context, a []types.Value, z *types.Zone) (types.Value, error) {
				format := str(a[1])
				up := strings.ToUpper(format)
				if strings.Contains(up, "TZ") || strings.Contains(up, "OF") {
					return nil, unsupported("to_char's time zone patterns (TZ, tz, TZH, TZM, OF) when TimeZone is not UTC")
				}
				t := tsArg(a[0])
				local, err := z.UTCToLocal(t)
				if err != nil {
					return nil, err
				}
				return toChar(local, format, true)
			})
		}
	}
	for _, f := range r.funcs["timezone"] {
		from := f.Args[1]
		switch f.Args[0] {
		case tx:
			f.impl = func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
				z, err := r.atTimeZone(c, str(a[0]))
				if err != nil {
					return nil, err
				}
				return shiftZone(tsArg(a[1]), from, z)
			}
		case iv:
			f.impl = func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				v := a[0].(types.IntervalVal)
				if v.Months != 0 || v.Days != 0 {
					return nil, errorf(CodeInvalidParameter, "interval time zone \"%s\" must not include months or days", types.Out(iv, v))
				}
				return shiftZone(tsArg(a[1]), from, types.ZoneFromSeconds(v.Micros/1000000))
			}
		}
	}
}

// printAnyIn gives the functions that print an argument of any type
// (format, concat, concat_ws) a timestamptz's text in zone z, as text;
// an array of timestamptz is refused outside UTC (its elements would be
// printed at UTC).
func printAnyIn(c *Call, args []types.Value, params []OID, z *types.Zone) ([]types.Value, []OID, error) {
	switch c.Func.Name {
	case "format", "concat", "concat_ws", "array_to_string":
	default:
		return args, params, nil
	}
	cloned := false
	for i, p := range params {
		switch {
		case p == types.Timestamptz+1: // timestamptz[]
			return nil, nil, unsupported("%s of an array of timestamptz when TimeZone is not UTC", c.Func.Name)
		case p == types.Timestamptz && args[i] != nil:
			if !cloned {
				params, args, cloned = slices.Clone(params), slices.Clone(args), true
			}
			args[i], params[i] = types.OutIn(types.Timestamptz, args[i], z), types.Text
		}
	}
	return args, params, nil
}

// shiftZone is AT TIME ZONE: a timestamp (local time of z) to its
// instant, or an instant to z's local time.
func shiftZone(t types.TimestampVal, from OID, z *types.Zone) (types.Value, error) {
	if isInfTs(t) {
		return t, nil
	}
	var v types.TimestampVal
	var err error
	if from == ts {
		v, err = z.LocalToUTC(t)
	} else {
		v, err = z.UTCToLocal(t)
	}
	if err != nil {
		return nil, errorf(CodeDatetimeOverflow, "timestamp out of range")
	}
	return v, nil
}

// atTimeZone looks a zone up as timestamp_zone does: an abbreviation of
// the Default set (a fixed offset), else pg_tzset's zone; 22023 "time
// zone not recognized" when neither. A tz database zone is read from its
// file once per library (r.zones): read per call, AT TIME ZONE 'America/
// New_York' over 345k rows took 30 s (a stat, a directory walk and a
// file parse a row), where PostgreSQL caches the zone too (pg_tzset).
//
// From PostgreSQL 18 an abbreviation of the session's zone comes first
// (tz18.go).
func (r *Registry) atTimeZone(c *Context, name string) (*types.Zone, error) {
	if z, ok, err := r.sessionAbbrev(c, name); ok || err != nil {
		return z, err
	}
	// The zone of a name is looked up once: AT TIME ZONE 'UTC' is called
	// per row, and an abbreviation's zone costs four allocations.
	if z := r.zones.get(name); z != nil {
		return z, nil
	}
	if a, ok := zoneAbbrevs[lowerUnits(name)]; ok { // the Default set (r.defaultAbbrev's)
		if a.dyn != "" {
			return nil, unsupported("the time zone abbreviation \"%s\" (its offset follows %s's history)", name, a.dyn)
		}
		z := types.ZoneFromSeconds(a.east)
		r.zones.put(name, z)
		return z, nil
	}
	z, err := types.LookupZone(name)
	if err != nil {
		return nil, errorf(CodeInvalidParameter, "time zone \"%s\" not recognized", name)
	}
	r.zones.put(name, z)
	return z, nil
}

// zoneCache holds the zones a library's calls have looked up, by the name
// written. Names are bounded by what a client writes (case variants of a
// zone are each a name), so past maxCachedZones it starts over.
type zoneCache struct {
	mu sync.RWMutex // read per row (parallel scans' filters), written once per name
	m  map[string]*types.Zone
}

const maxCachedZones = 256

func (c *zoneCache) get(name string) *types.Zone {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[name]
}

func (c *zoneCache) put(name string, z *types.Zone) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedZones {
		c.m = map[string]*types.Zone{}
	}
	c.m[name] = z
}

// truncIn is timestamptz_trunc_internal in zone z: the local time is
// truncated; for a day or longer unit the result is read back in z,
// else the instant's own offset is kept.
func (r *Registry) truncIn(low string, t types.TimestampVal, z *types.Zone) (types.Value, error) {
	if isInfTs(t) {
		return r.dateTruncFor(low, t, tsz)
	}
	if _, err := dateTrunc(low, 0, tsz); err != nil {
		return nil, err
	}
	u := deltaUnits[tok10(low)]
	off := z.OffsetAt(t)
	lt, err := fromTm(truncTm(toTm(types.TimestampVal(int64(t)+off*1000000)), u))
	if err != nil {
		return nil, err
	}
	switch u {
	case uDay, uWeek, uMonth, uQuarter, uYear, uDecade, uCentury, uMillennium:
		v, err := z.LocalToUTC(lt)
		if err != nil {
			return nil, errorf(CodeDatetimeOverflow, "timestamp out of range")
		}
		return v, nil
	}
	return shiftTs(lt, -off)
}

// tsPartIn is timestamptz_part in zone z: fields of the local time, the
// epoch of the instant, timezone* of the offset.
func tsPartIn(low string, t types.TimestampVal, z *types.Zone) (part, error) {
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		u = specialUnits[tok10(low)]
	}
	if isInfTs(t) || u == uEpoch {
		return tsPart(low, t, tsz)
	}
	off := z.OffsetAt(t)
	switch u {
	case uTZ:
		return intPart(off), nil
	case uTZHour:
		return intPart(off / 3600), nil
	case uTZMinute:
		return intPart((off / 60) % 60), nil
	}
	return tsPart(low, types.TimestampVal(int64(t)+off*1000000), tsz)
}

// zoneAbbrev is an entry of PostgreSQL's timezonesets/Default: a fixed
// offset east, or a zone whose history gives the offset (dyn).
type zoneAbbrev struct {
	east int64
	dyn  string
}

// zoneAbbrevs is PostgreSQL's timezonesets/Default (lower case), the
// abbreviations AT TIME ZONE and date_trunc's zone read first.
var zoneAbbrevs = map[string]zoneAbbrev{
	"eat":    {east: 10800},
	"sast":   {east: 7200},
	"wat":    {east: 3600},
	"act":    {east: -18000},
	"akdt":   {east: -28800},
	"akst":   {east: -32400},
	"art":    {dyn: "America/Argentina/Buenos_Aires"},
	"arst":   {dyn: "America/Argentina/Buenos_Aires"},
	"bot":    {east: -14400},
	"bra":    {east: -10800},
	"brst":   {east: -7200},
	"brt":    {east: -10800},
	"cot":    {east: -18000},
	"cdt":    {east: -18000},
	"clst":   {east: -10800},
	"clt":    {dyn: "America/Santiago"},
	"cst":    {east: -21600},
	"edt":    {east: -14400},
	"egst":   {east: 0},
	"egt":    {east: -3600},
	"est":    {east: -18000},
	"fnt":    {east: -7200},
	"fnst":   {east: -3600},
	"gft":    {east: -10800},
	"gyt":    {dyn: "America/Guyana"},
	"mdt":    {east: -21600},
	"mst":    {east: -25200},
	"ndt":    {east: -9000},
	"nft":    {east: -12600},
	"nst":    {east: -12600},
	"pet":    {east: -18000},
	"pdt":    {east: -25200},
	"pmdt":   {east: -7200},
	"pmst":   {east: -10800},
	"pst":    {east: -28800},
	"pyst":   {east: -10800},
	"pyt":    {dyn: "America/Asuncion"},
	"uyst":   {east: -7200},
	"uyt":    {east: -10800},
	"vet":    {dyn: "America/Caracas"},
	"wgst":   {east: -7200},
	"wgt":    {east: -10800},
	"davt":   {dyn: "Antarctica/Davis"},
	"ddut":   {east: 36000},
	"mawt":   {dyn: "Antarctica/Mawson"},
	"aft":    {east: 16200},
	"almt":   {east: 21600},
	"almst":  {east: 25200},
	"amst":   {dyn: "Asia/Yerevan"},
	"amt":    {east: -14400},
	"anast":  {dyn: "Asia/Anadyr"},
	"anat":   {dyn: "Asia/Anadyr"},
	"azst":   {dyn: "Asia/Baku"},
	"azt":    {dyn: "Asia/Baku"},
	"bdt":    {east: 21600},
	"bnt":    {east: 28800},
	"bort":   {east: 28800},
	"btt":    {east: 21600},
	"cct":    {east: 28800},
	"gest":   {dyn: "Asia/Tbilisi"},
	"get":    {dyn: "Asia/Tbilisi"},
	"hkt":    {east: 28800},
	"ict":    {east: 25200},
	"idt":    {east: 10800},
	"irkst":  {dyn: "Asia/Irkutsk"},
	"irkt":   {dyn: "Asia/Irkutsk"},
	"irt":    {east: 12600},
	"ist":    {east: 7200},
	"jayt":   {east: 32400},
	"jst":    {east: 32400},
	"kdt":    {east: 36000},
	"kgst":   {east: 21600},
	"kgt":    {dyn: "Asia/Bishkek"},
	"krast":  {dyn: "Asia/Krasnoyarsk"},
	"krat":   {dyn: "Asia/Krasnoyarsk"},
	"kst":    {east: 32400},
	"lkt":    {dyn: "Asia/Colombo"},
	"magst":  {dyn: "Asia/Magadan"},
	"magt":   {dyn: "Asia/Magadan"},
	"mmt":    {east: 23400},
	"myt":    {east: 28800},
	"novst":  {dyn: "Asia/Novosibirsk"},
	"novt":   {dyn: "Asia/Novosibirsk"},
	"npt":    {east: 20700},
	"omsst":  {dyn: "Asia/Omsk"},
	"omst":   {dyn: "Asia/Omsk"},
	"petst":  {dyn: "Asia/Kamchatka"},
	"pett":   {dyn: "Asia/Kamchatka"},
	"pht":    {east: 28800},
	"pkt":    {east: 18000},
	"pkst":   {east: 21600},
	"sgt":    {dyn: "Asia/Singapore"},
	"tjt":    {east: 18000},
	"tmt":    {dyn: "Asia/Ashgabat"},
	"ulast":  {east: 32400},
	"ulat":   {dyn: "Asia/Ulaanbaatar"},
	"uzst":   {east: 21600},
	"uzt":    {east: 18000},
	"vlast":  {dyn: "Asia/Vladivostok"},
	"vlat":   {dyn: "Asia/Vladivostok"},
	"xjt":    {east: 21600},
	"yakst":  {dyn: "Asia/Yakutsk"},
	"yakt":   {dyn: "Asia/Yakutsk"},
	"yekst":  {east: 21600},
	"yekt":   {dyn: "Asia/Yekaterinburg"},
	"adt":    {east: -10800},
	"ast":    {east: -14400},
	"azost":  {east: 0},
	"azot":   {east: -3600},
	"fkst":   {dyn: "Atlantic/Stanley"},
	"fkt":    {dyn: "Atlantic/Stanley"},
	"acsst":  {east: 37800},
	"acdt":   {east: 37800},
	"acst":   {east: 34200},
	"acwst":  {east: 31500},
	"aesst":  {east: 39600},
	"aedt":   {east: 39600},
	"aest":   {east: 36000},
	"awsst":  {east: 32400},
	"awst":   {east: 28800},
	"cadt":   {east: 37800},
	"cast":   {east: 34200},
	"lhdt":   {dyn: "Australia/Lord_Howe"},
	"lhst":   {east: 37800},
	"ligt":   {east: 36000},
	"nzt":    {east: 43200},
	"sadt":   {east: 37800},
	"wadt":   {east: 28800},
	"wast":   {east: 25200},
	"wdt":    {east: 32400},
	"gmt":    {east: 0},
	"uct":    {east: 0},
	"ut":     {east: 0},
	"utc":    {east: 0},
	"z":      {east: 0},
	"zulu":   {east: 0},
	"bst":    {east: 3600},
	"bdst":   {east: 7200},
	"cest":   {east: 7200},
	"cet":    {east: 3600},
	"cetdst": {east: 7200},
	"eest":   {east: 10800},
	"eet":    {east: 7200},
	"eetdst": {east: 10800},
	"fet":    {east: 10800},
	"mest":   {east: 7200},
	"mesz":   {east: 7200},
	"met":    {east: 3600},
	"metdst": {east: 7200},
	"mez":    {east: 3600},
	"msd":    {east: 14400},
	"msk":    {dyn: "Europe/Moscow"},
	"volt":   {dyn: "Europe/Volgograd"},
	"wet":    {east: 0},
	"wetdst": {east: 3600},
	"cxt":    {east: 25200},
	"iot":    {dyn: "Indian/Chagos"},
	"mut":    {east: 14400},
	"must":   {east: 18000},
	"mvt":    {east: 18000},
	"ret":    {east: 14400},
	"sct":    {east: 14400},
	"tft":    {east: 18000},
	"chadt":  {east: 49500},
	"chast":  {east: 45900},
	"chut":   {east: 36000},
	"ckt":    {dyn: "Pacific/Rarotonga"},
	"easst":  {dyn: "Pacific/Easter"},
	"east":   {dyn: "Pacific/Easter"},
	"fjst":   {east: 46800},
	"fjt":    {east: 43200},
	"galt":   {east: -21600},
	"gamt":   {east: -32400},
	"gilt":   {east: 43200},
	"hst":    {east: -36000},
	"kost":   {dyn: "Pacific/Kosrae"},
	"lint":   {dyn: "Pacific/Kiritimati"},
	"mart":   {east: -34200},
	"mht":    {east: 43200},
	"mpt":    {east: 36000},
	"nut":    {dyn: "Pacific/Niue"},
	"nzdt":   {east: 46800},
	"nzst":   {east: 43200},
	"pgt":    {east: 36000},
	"pont":   {east: 39600},
	"pwt":    {east: 32400},
	"taht":   {east: -36000},
	"tkt":    {dyn: "Pacific/Fakaofo"},
	"tot":    {east: 46800},
	"trut":   {east: 36000},
	"tvt":    {east: 43200},
	"vut":    {east: 39600},
	"wakt":   {east: 43200},
	"wft":    {east: 43200},
	"yapt":   {east: 36000},
}
