package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// The object identifier types (regclass, regtype, regnamespace, …): an
// oid whose input and output are a catalog object's name. Their values
// are oids (comparisons, joins and casts to oid and the integers are
// oid's); reading a name and printing one need the catalog the
// statement is planned against, so both are functions the Catalog
// supplies (RegCatalog). A reg value's Type is oid with Mod −(the reg
// type's OID): RegType, RegKind.

// RegCatalog is a Catalog that resolves the object identifier types.
type RegCatalog interface {
	// RegIn reads a name as type kind's input does (text → oid).
	RegIn(kind OID) (*ExtFunc, error)
	// RegOut is kind's output: the oid's object name (oid → text).
	RegOut(kind OID) (*ExtFunc, error)
}

// regTypeNames are the object identifier types by name.
var regTypeNames = map[string]OID{"regclass": 2205, "regtype": 2206, "regproc": 24, "regprocedure": 2202, "regoper": 2203,
	"regoperator": 2204, "regnamespace": 4089, "regrole": 4096, "regconfig": 3734, "regdictionary": 3769, "regcollation": 4191}

// RegTypeName is the reg type's name ("" for another OID).
func RegTypeName(kind OID) string {
	for n, o := range regTypeNames {
		if o == kind {
			return n
		}
	}
	return ""
}

// RegType is the Type of a value of reg type kind.
func RegType(kind OID) Type { return Type{OID: Oid, Mod: -int32(kind)} }

// RegKind says whether t is a reg type's and which.
func RegKind(t Type) (OID, bool) {
	if t.OID == Oid && t.Mod < -1 {
		return OID(-t.Mod), true
	}
	return 0, false
}

// regTypeOf is the reg type a cast's type name names (ok false: not one).
func regTypeOf(tn *pg.TypeName) (OID, bool) {
	if tn == nil || len(tn.Names) == 0 || len(tn.ArrayBounds) > 0 {
		return 0, false
	}
	if len(tn.Names) == 2 && tn.Names[0].GetString_().GetSval() != "pg_catalog" {
		return 0, false
	}
	k, ok := regTypeNames[strings.ToLower(tn.Names[len(tn.Names)-1].GetString_().GetSval())]
	return k, ok
}

// RegTypeOfName is the reg type a type name names (ok false: not one).
func RegTypeOfName(tn *pg.TypeName) (OID, bool) { return regTypeOf(tn) }

// relabel is e as type t with the same value (a binary-coercible cast).
func relabel(e Scalar, t Type) Scalar {
	if e.Type() == t {
		return e
	}
	if c, ok := e.(*Const); ok && !c.Null && c.T.OID == t.OID {
		return &Const{T: t, Text: c.Text}
	}
	from := e.Type()
	return &Func{Name: "oid", T: t, Args: []Scalar{e}, Ext: &ExtFunc{Args: []Type{from}, Result: t,
		Eval: func(a []types.Value) (types.Value, error) { return a[0], nil }}}
}

// regCast binds a cast to or from a reg type (ok false: neither).
func (b *binder) regCast(arg Scalar, tn *pg.TypeName) (Scalar, bool, error) {
	to, toReg := regTypeOf(tn)
	from, fromReg := RegKind(arg.Type())
	if !toReg && !fromReg {
		return nil, false, nil
	}
	rc, ok := b.cat.(RegCatalog)
	if !ok {
		name := RegTypeName(to)
		if !toReg {
			name = RegTypeName(from)
		}
		return nil, true, errorf(CodeFeatureNotSupported, "type %s is not supported", name)
	}
	cannot := func(t string) (Scalar, bool, error) {
		return nil, true, errorf("42846", "cannot cast type %s to %s", typeNameOf(arg.Type()), t)
	}
	if toReg {
		at := arg.Type().OID
		switch {
		case fromReg || at == Oid:
			return relabel(arg, RegType(to)), true, nil
		case at == Int2 || at == Int4 || at == Int8:
			return relabel(cast(arg, T(Oid)), RegType(to)), true, nil
		case at == Unknown || at == Text || at == Varchar || at == Name || at == Bpchar:
			ext, err := rc.RegIn(to)
			if err != nil {
				return nil, true, err
			}
			return &Func{Name: RegTypeName(to) + "in", T: RegType(to), Args: []Scalar{cast(arg, T(Text))}, Ext: ext}, true, nil
		}
		return cannot(RegTypeName(to))
	}
	t, err := TypeOf(tn)
	if err != nil {
		return nil, true, err
	}
	switch t.OID {
	case Oid:
		return relabel(arg, t), true, nil
	case Int4, Int8:
		return cast(relabel(arg, T(Oid)), t), true, nil
	case Text, Varchar, Name, Bpchar:
		ext, err := rc.RegOut(from)
		if err != nil {
			return nil, true, err
		}
		return cast(&Func{Name: RegTypeName(from) + "out", T: T(Text), Args: []Scalar{arg}, Ext: ext}, t), true, nil
	}
	return cannot(t.String())
}

// typeNameOf is t's name in an error message (a reg type's own).
func typeNameOf(t Type) string {
	if k, ok := RegKind(t); ok {
		return RegTypeName(k)
	}
	return t.String()
}
