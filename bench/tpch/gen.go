// Package tpch generates TPC-H data at any scale factor (fractional too)
// and carries the 22 queries, for `sidecar-bench tpch` (issue 22 item 7).
//
// The generator follows the specification's column definitions (TPC-H
// 3.0.1 section 4.2.3): table cardinalities, key relations (four
// suppliers per part by the specification's formula, sparse order keys,
// customers whose key is a multiple of 3 have no orders), value domains
// and the derived columns (extended price from the part's retail price,
// order status and total price from the lines, return flag and line status
// from the current date 1995-06-17). Comments are drawn from a small word
// list rather than dbgen's text grammar, with the words the queries look
// for ("special … requests", "Customer … Complaints"), so the rows are not
// dbgen's byte for byte: results are compared between the engines on the
// same rows, never with published answers. Everything is seeded: the same
// scale factor and seed give the same rows.
package tpch

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Schema creates the eight tables with the specification's types and
// primary keys.
const Schema = `CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name char(25) NOT NULL, r_comment varchar(152));
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name char(25) NOT NULL, n_regionkey int NOT NULL, n_comment varchar(152));
CREATE TABLE part (p_partkey int PRIMARY KEY, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL, p_brand char(10) NOT NULL,
	p_type varchar(25) NOT NULL, p_size int NOT NULL, p_container char(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL, p_comment varchar(23) NOT NULL);
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL, s_nationkey int NOT NULL,
	s_phone char(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
CREATE TABLE partsupp (ps_partkey int NOT NULL, ps_suppkey int NOT NULL, ps_availqty int NOT NULL, ps_supplycost numeric(15,2) NOT NULL,
	ps_comment varchar(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL, c_nationkey int NOT NULL,
	c_phone char(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL, c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL);
CREATE TABLE orders (o_orderkey bigint PRIMARY KEY, o_custkey int NOT NULL, o_orderstatus char(1) NOT NULL, o_totalprice numeric(15,2) NOT NULL,
	o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL, o_shippriority int NOT NULL, o_comment varchar(79) NOT NULL);
CREATE TABLE lineitem (l_orderkey bigint NOT NULL, l_partkey int NOT NULL, l_suppkey int NOT NULL, l_linenumber int NOT NULL,
	l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL, l_tax numeric(15,2) NOT NULL,
	l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
	l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber));`

// Tables are the eight tables in load order.
var Tables = []string{"region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

var (
	regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	nations = []struct {
		name   string
		region int
	}{{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3},
		{"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0},
		{"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3}, {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3},
		{"UNITED KINGDOM", 3}, {"UNITED STATES", 1}}
	colors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished
		chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest
		frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen
		magenta maroon medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink
		plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan
		thistle tomato turquoise violet wheat white yellow`)
	typeS1     = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2     = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3     = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	contS1     = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	contS2     = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments   = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructs  = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes      = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	words      = strings.Fields(`furiously quickly carefully blithely slyly ironic final regular express special pending bold
		even silent unusual requests deposits packages accounts instructions theodolites foxes pinto beans ideas
		dependencies excuses platelets asymptotes courts dolphins sleep wake are cajole haggle nag use boost affix
		detect integrate among above against along according about after`)
	startDate   = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	currentDate = time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
	orderDays   = int(time.Date(1998, 12, 31, 0, 0, 0, 0, time.UTC).Sub(startDate).Hours()/24) - 151
)

// Sizes are the row counts of the scaled tables at scale factor sf.
type Sizes struct{ Part, Supplier, Customer, Orders int }

// SizesFor scales the specification's SF 1 counts (at least one row each;
// suppliers at least 4, since every part has four).
func SizesFor(sf float64) Sizes {
	n := func(base float64, least int) int { return max(least, int(base*sf)) }
	return Sizes{Part: n(200000, 1), Supplier: n(10000, 4), Customer: n(150000, 3), Orders: n(1500000, 1)}
}

// gen holds the generator's state for one table.
type gen struct {
	r  *rand.Rand
	sz Sizes
	w  *bufio.Writer
}

func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// money is a random amount in [lo, hi] cents, printed with two decimals.
func (g *gen) money(lo, hi int) string { return cents(g.between(lo, hi)) }

func cents(c int) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// text is a comment of random words between lo and hi characters.
func (g *gen) text(lo, hi int) string {
	n := g.between(lo, hi)
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.r.IntN(len(words))])
	}
	return strings.TrimSpace(b.String()[:n])
}

// vstring is an address: random letters and digits.
func (g *gen) vstring(lo, hi int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,"
	b := make([]byte, g.between(lo, hi))
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) phone(nation int) string {
	return fmt.Sprintf("%02d-%03d-%03d-%04d", nation+10, g.between(100, 999), g.between(100, 999), g.between(1000, 9999))
}

// row writes one COPY text row (no value here needs escaping).
func (g *gen) row(fields ...string) {
	g.w.WriteString(strings.Join(fields, "\t"))
	g.w.WriteByte('\n')
}

// retailPrice is the specification's p_retailprice, in cents.
func retailPrice(partkey int) int { return 90000 + (partkey/10)%20001 + 100*(partkey%1000) }

// partSupplier is the i-th (0..3) supplier of a part, by the
// specification's formula. At small scale factors its step can wrap
// around the supplier count and name one supplier twice; the step is
// then s/4, which keeps the four distinct.
func partSupplier(partkey, i, s int) int {
	step := s/4 + (partkey-1)/s
	if 3*step >= s {
		step = s / 4
	}
	return (partkey+i*step)%s + 1
}

// Write generates table's rows at scale factor sf in COPY text format.
func Write(w io.Writer, table string, sf float64, seed uint64) error {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(len(table)))), sz: SizesFor(sf), w: bufio.NewWriterSize(w, 1<<16)}
	itoa := func(i int) string { return fmt.Sprint(i) }
	date := func(t time.Time) string { return t.Format("2006-01-02") }
	switch table {
	case "region":
		for i, r := range regions {
			g.row(itoa(i), r, g.text(31, 115))
		}
	case "nation":
		for i, n := range nations {
			g.row(itoa(i), n.name, itoa(n.region), g.text(31, 114))
		}
	case "part":
		for k := 1; k <= g.sz.Part; k++ {
			perm := g.r.Perm(len(colors))[:5]
			name := make([]string, 5)
			for i, c := range perm {
				name[i] = colors[c]
			}
			m := g.between(1, 5)
			g.row(itoa(k), strings.Join(name, " "), fmt.Sprintf("Manufacturer#%d", m), fmt.Sprintf("Brand#%d%d", m, g.between(1, 5)),
				typeS1[g.r.IntN(6)]+" "+typeS2[g.r.IntN(5)]+" "+typeS3[g.r.IntN(5)], itoa(g.between(1, 50)),
				contS1[g.r.IntN(5)]+" "+contS2[g.r.IntN(8)], cents(retailPrice(k)), g.text(5, 22))
		}
	case "supplier":
		for k := 1; k <= g.sz.Supplier; k++ {
			n := g.r.IntN(25)
			c := g.text(25, 100)
			// Five per 10,000 suppliers complain, five recommend (spec 4.2.3).
			switch x := g.r.IntN(2000); {
			case x == 0 && len(c) > 30:
				c = c[:10] + " Customer Complaints " + c[10:len(c)-21]
			case x == 1 && len(c) > 30:
				c = c[:10] + " Customer Recommends " + c[10:len(c)-21]
			}
			g.row(itoa(k), fmt.Sprintf("Supplier#%09d", k), g.vstring(10, 40), itoa(n), g.phone(n), g.money(-99999, 999999), strings.TrimSpace(c))
		}
	case "partsupp":
		for k := 1; k <= g.sz.Part; k++ {
			for i := range 4 {
				g.row(itoa(k), itoa(partSupplier(k, i, g.sz.Supplier)), itoa(g.between(1, 9999)), g.money(100, 100000), g.text(49, 198))
			}
		}
	case "customer":
		for k := 1; k <= g.sz.Customer; k++ {
			n := g.r.IntN(25)
			g.row(itoa(k), fmt.Sprintf("Customer#%09d", k), g.vstring(10, 40), itoa(n), g.phone(n), g.money(-99999, 999999),
				segments[g.r.IntN(5)], g.text(29, 116))
		}
	case "orders", "lineitem":
		g.orders(table == "orders", itoa, date)
	default:
		return fmt.Errorf("tpch: no table %q", table)
	}
	return g.w.Flush()
}

// orders generates orders and their lines together (the order's status
// and total come from its lines) and writes the rows of one of the two.
// The same seed for both tables keeps them consistent.
func (g *gen) orders(writeOrders bool, itoa func(int) string, date func(time.Time) string) {
	g.r = rand.New(rand.NewPCG(1, 2)) // shared by orders and lineitem
	clerks := max(1, g.sz.Orders/1500)
	for i := 1; i <= g.sz.Orders; i++ {
		key := (i-1)/8*32 + (i-1)%8 + 1 // sparse keys: 8 of every 32
		cust := g.between(1, g.sz.Customer)
		for cust%3 == 0 {
			cust = g.between(1, g.sz.Customer)
		}
		od := startDate.AddDate(0, 0, g.r.IntN(orderDays))
		prio, clerk := priorities[g.r.IntN(5)], fmt.Sprintf("Clerk#%09d", g.between(1, clerks))
		comment := g.text(19, 78)
		if g.r.IntN(100) == 0 {
			comment = "special " + comment[:min(len(comment), 40)] + " requests"
		}
		lines := g.between(1, 7)
		total, nF, nO := 0.0, 0, 0
		for ln := 1; ln <= lines; ln++ {
			part := g.between(1, g.sz.Part)
			supp := partSupplier(part, g.r.IntN(4), g.sz.Supplier)
			qty := g.between(1, 50)
			ext := qty * retailPrice(part)
			disc, tax := g.between(0, 10), g.between(0, 8)
			ship := od.AddDate(0, 0, g.between(1, 121))
			commit := od.AddDate(0, 0, g.between(30, 90))
			receipt := ship.AddDate(0, 0, g.between(1, 30))
			flag := "N"
			if !receipt.After(currentDate) {
				flag = [2]string{"R", "A"}[g.r.IntN(2)]
			}
			status := "O"
			if !ship.After(currentDate) {
				status = "F"
				nF++
			} else {
				nO++
			}
			total += float64(ext) / 100 * (1 + float64(tax)/100) * (1 - float64(disc)/100)
			instr, mode, lc := instructs[g.r.IntN(4)], modes[g.r.IntN(7)], g.text(10, 43)
			if !writeOrders {
				g.row(itoa(key), itoa(part), itoa(supp), itoa(ln), itoa(qty), cents(ext), cents(disc), cents(tax), flag, status,
					date(ship), date(commit), date(receipt), instr, mode, lc)
			}
		}
		st := "P"
		if nO == 0 {
			st = "F"
		} else if nF == 0 {
			st = "O"
		}
		if writeOrders {
			g.row(itoa(key), itoa(cust), st, fmt.Sprintf("%.2f", total), date(od), prio, clerk, "0", comment)
		}
	}
}
