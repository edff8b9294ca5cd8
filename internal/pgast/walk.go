// Package pgast walks PostgreSQL parse trees (pg_query_go's protobuf
// messages) generically, so a caller looking for one kind of node need
// not list every node type that may hold it.
package pgast

import "google.golang.org/protobuf/reflect/protoreflect"

// Walk calls visit for m and, where visit returns true, for every
// message below it (singular fields and list elements, depth first, in
// field order). Returning false skips that message's children: a caller
// that has found what it looked for returns false from then on.
func Walk(m protoreflect.Message, visit func(protoreflect.Message) bool) {
	if !visit(m) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				Walk(l.Get(i).Message(), visit)
			}
		case fd.Message() != nil && !fd.IsMap():
			Walk(v.Message(), visit)
		}
		return true
	})
}
