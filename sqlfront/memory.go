package sqlfront

import (
	"errors"

	"github.com/sidecar-dev/sidecar/membudget"
)

// codeOutOfMemory is PostgreSQL's out_of_memory: a statement whose working
// memory would pass memory.query (Options.QueryMemory) fails with it
// instead of growing the process past its budget.
const codeOutOfMemory = "53200"

// Working memory: the row evaluator's hash-join tables, sort buffers,
// DISTINCT sets and groups are charged to the statement's account, drawn
// from the server's pool (memory.query, shared by every running
// statement), and given back when the statement ends.

// account opens the statement's memory account (once per execCtx); the
// returned func closes it, for the outermost caller only.
func (ex *execCtx) account() func() {
	if ex.mem != nil {
		return func() {}
	}
	ex.mem = membudget.NewAccount(ex.sess.srv.opts.QueryMemory)
	return func() {
		ex.mem.Close()
		ex.mem = nil
	}
}

// grow charges n more bytes to the statement, or fails with 53200.
func (ex *execCtx) grow(n int64) error {
	err := ex.mem.Grow(n)
	if merr := ex.memError(err); merr != nil {
		return merr
	}
	return err
}

// memError is the 53200 error for a working-memory refusal anywhere in
// err (nil when err is not one).
func (ex *execCtx) memError(err error) error {
	var me *membudget.ExceededError
	if !errors.As(err, &me) {
		return nil
	}
	return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
		Detail: me.Error(),
		Hint:   "The statement's hash tables, sorts and groups are bounded by memory.query (shared by the running statements); raise it in the sidecar's config, or narrow the statement."}
}

// valuesBytes estimates the memory a row of values holds: the slice and
// each value's interface word pair and payload.
func valuesBytes(vals []Value) int64 {
	n := int64(24 + 16*len(vals))
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case []byte:
			n += int64(24 + len(x))
		case *Num:
			n += 64
		case nil, bool, int64, float64:
		default:
			n += 32
		}
	}
	return n
}

// QueryPool is the working memory shared by the running statements
// (Options.QueryMemory; membudget.NewPool makes one).
type QueryPool = membudget.Pool

// workMem is one statement's account of its working memory.
type workMem = membudget.Account
