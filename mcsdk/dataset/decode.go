package dataset

import (
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// decodeRecord converts a record batch to rows. It accepts the verdict
// schema and the looser shapes other tools produce from it (plain strings
// instead of dictionaries, int64 microseconds instead of durations), so
// exports can be read back with the same code.
func decodeRecord(rec arrow.RecordBatch) ([]Row, error) {
	return appendRows(nil, rec)
}

// appendRows appends rec's rows to dst.
func appendRows(dst []Row, rec arrow.RecordBatch) (out []Row, err error) {
	defer recoverInto(&err, "decoding record batch")
	c, err := newColumns(rec)
	if err != nil {
		return nil, err
	}
	n := len(dst)
	out = slices.Grow(dst, int(rec.NumRows()))[:n+int(rec.NumRows())]
	for i := range int(rec.NumRows()) {
		c.row(i, &out[n+i])
	}
	return out, nil
}

// recoverInto turns a panic inside arrow-go (which trusts buffer contents
// it did not validate) into an error, so a corrupt file is reported and
// never crashes the caller.
func recoverInto(err *error, what string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("dataset: %s: malformed data (%v)", what, p)
	}
}

type strFn func(i int) (string, bool)
type intFn func(i int) (int64, bool)

type columns struct {
	campaign, run, model, binary, variant, verdict, recording, detail strFn
	seed, firstStep, firstTime, steps, states, virtual, wall          intFn
	violated                                                          func(i int) []string
	// Format 2; nil when the table lacks the column.
	latency, order                             strFn
	sent, delivered, dropped, duplicated, held intFn
	refused, ops, opsIndet                     intFn
	faults                                     func(i int) []Fault
	firstViolations                            func(i int) []InvariantViolation
}

func newColumns(rec arrow.RecordBatch) (*columns, error) {
	var c columns
	var errs []error
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			idx = rec.Schema().FieldIndices(name + "_us") // Parquet and CSV exports
		}
		if len(idx) != 1 {
			errs = append(errs, fmt.Errorf("no single column %q", name))
			return nil
		}
		return rec.Column(idx[0])
	}
	str := func(name string) strFn { return stringsOf(name, col(name), &errs) }
	num := func(name string) intFn { return intsOf(name, col(name), &errs) }
	c.campaign, c.run, c.model, c.binary = str(ColCampaignID), str(ColRunID), str(ColModelHash), str(ColBinaryHash)
	c.variant, c.verdict, c.recording, c.detail = str(ColVariant), str(ColVerdict), str(ColRecordingPath), str(ColDetail)
	c.seed, c.firstStep, c.firstTime = num(ColSeed), num(ColFirstViolationStep), num(ColFirstViolationTime)
	c.steps, c.states, c.virtual, c.wall = num(ColSteps), num(ColDistinctStates), num(ColVirtualDuration), num(ColWallTime)
	c.violated = listOf(ColViolatedInvariants, col(ColViolatedInvariants), &errs)
	opt := func(name string) arrow.Array {
		if idx := rec.Schema().FieldIndices(name); len(idx) == 1 {
			return rec.Column(idx[0])
		}
		return nil
	}
	c.latency, c.order = stringsOf(ColLatency, opt(ColLatency), &errs), stringsOf(ColOrder, opt(ColOrder), &errs)
	c.sent, c.delivered = intsOf(ColMessagesSent, opt(ColMessagesSent), &errs), intsOf(ColMessagesDelivered, opt(ColMessagesDelivered), &errs)
	c.dropped, c.duplicated = intsOf(ColMessagesDropped, opt(ColMessagesDropped), &errs), intsOf(ColMessagesDuplicated, opt(ColMessagesDuplicated), &errs)
	c.held = intsOf(ColMessagesHeld, opt(ColMessagesHeld), &errs)
	c.refused = intsOf(ColRefusedWrites, opt(ColRefusedWrites), &errs)
	c.ops, c.opsIndet = intsOf(ColOps, opt(ColOps), &errs), intsOf(ColOpsIndeterminate, opt(ColOpsIndeterminate), &errs)
	c.faults = faultsOf(opt(ColFaults), &errs)
	c.firstViolations = firstViolationsOf(opt(ColFirstViolations), &errs)
	if len(errs) > 0 {
		return nil, fmt.Errorf("dataset: not a verdict table: %v", errs[0])
	}
	return &c, nil
}

func (c *columns) row(i int, r *Row) {
	r.CampaignID, _ = c.campaign(i)
	r.RunID, _ = c.run(i)
	r.ModelHash, _ = c.model(i)
	r.BinaryHash, _ = c.binary(i)
	r.Variant, _ = c.variant(i)
	r.Seed, _ = c.seed(i)
	r.Verdict, _ = c.verdict(i)
	r.ViolatedInvariants = c.violated(i)
	if v, ok := c.firstStep(i); ok {
		r.FirstViolationStep = &v
	}
	if v, ok := c.firstTime(i); ok {
		d := time.Duration(v) * time.Microsecond
		r.FirstViolationTime = &d
	}
	r.Steps, _ = c.steps(i)
	r.DistinctStates, _ = c.states(i)
	v, _ := c.virtual(i)
	r.VirtualDuration = time.Duration(v) * time.Microsecond
	w, _ := c.wall(i)
	r.WallTime = time.Duration(w) * time.Microsecond
	r.RecordingPath, _ = c.recording(i)
	r.Detail, _ = c.detail(i)
	if c.latency != nil {
		r.Latency, _ = c.latency(i)
	}
	if c.order != nil {
		r.Order, _ = c.order(i)
	}
	r.MessagesSent, r.MessagesDelivered = optInt(c.sent, i), optInt(c.delivered, i)
	r.MessagesDropped, r.MessagesDuplicated, r.MessagesHeld = optInt(c.dropped, i), optInt(c.duplicated, i), optInt(c.held, i)
	r.RefusedWrites = optInt(c.refused, i)
	r.Ops, r.OpsIndeterminate = optInt(c.ops, i), optInt(c.opsIndet, i)
	if c.faults != nil {
		r.Faults = c.faults(i)
	}
	if c.firstViolations != nil {
		r.FirstViolations = c.firstViolations(i)
	}
}

func optInt(f intFn, i int) *int64 {
	if f == nil {
		return nil
	}
	if v, ok := f(i); ok {
		return &v
	}
	return nil
}

// structList gives access to a list<struct> column: the element range of
// row i and the struct's fields by name.
type structList struct {
	l  *array.List
	st *array.Struct
}

func newStructList(name string, a arrow.Array, errs *[]error) *structList {
	if a == nil {
		return nil
	}
	if l, ok := a.(*array.List); ok {
		if st, ok := l.ListValues().(*array.Struct); ok {
			return &structList{l: l, st: st}
		}
	}
	*errs = append(*errs, fmt.Errorf("column %q has type %s, want list<struct>", name, a.DataType()))
	return nil
}

func (s *structList) field(name string, errs *[]error) arrow.Array {
	st := s.st.DataType().(*arrow.StructType)
	i, ok := st.FieldIdx(name)
	if !ok {
		*errs = append(*errs, fmt.Errorf("struct %s has no field %q", st, name))
		return nil
	}
	return s.st.Field(i)
}

// ints reads an integer field of any width; the second result is false
// for null.
func ints(a arrow.Array, i int) (int64, bool) {
	if a == nil || a.IsNull(i) {
		return 0, false
	}
	switch a := a.(type) {
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int8:
		return int64(a.Value(i)), true
	}
	return 0, false
}

func strAt(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	}
	return ""
}

func checkKinds(errs *[]error, what string, as ...arrow.Array) {
	for _, a := range as {
		if a == nil {
			return
		}
	}
	for _, a := range as[:1] {
		if _, ok := a.(*array.String); !ok {
			if _, ok := a.(*array.LargeString); !ok {
				*errs = append(*errs, fmt.Errorf("%s: first field has type %s, want utf8", what, a.DataType()))
			}
		}
	}
}

func faultsOf(a arrow.Array, errs *[]error) func(int) []Fault {
	s := newStructList(ColFaults, a, errs)
	if s == nil {
		return nil
	}
	kind, node, peer := s.field("kind", errs), s.field("node", errs), s.field("peer", errs)
	at, until, sides, applied := s.field("at_us", errs), s.field("until_us", errs), s.field("sides", errs), s.field("applied", errs)
	checkKinds(errs, ColFaults, kind)
	ap, _ := applied.(*array.Boolean)
	sl, _ := sides.(*array.List)
	if ap == nil || sl == nil {
		*errs = append(*errs, fmt.Errorf("column %q: applied or sides has the wrong type", ColFaults))
		return nil
	}
	return func(i int) []Fault {
		if s.l.IsNull(i) {
			return nil
		}
		lo, hi := s.l.ValueOffsets(i)
		if lo == hi {
			return nil
		}
		out := make([]Fault, 0, hi-lo)
		for j := int(lo); j < int(hi); j++ {
			f := Fault{Kind: strAt(kind, j), Node: -1, Peer: -1, Applied: ap.Value(j)}
			if n, ok := ints(node, j); ok {
				f.Node = int(n)
			}
			if n, ok := ints(peer, j); ok {
				f.Peer = int(n)
			}
			v, _ := ints(at, j)
			f.At = time.Duration(v) * time.Microsecond
			v, _ = ints(until, j)
			f.Until = time.Duration(v) * time.Microsecond
			f.Sides = sidesAt(sl, j)
			out = append(out, f)
		}
		return out
	}
}

// sidesAt reads list<list<int>> element j; nil for null.
func sidesAt(l *array.List, j int) [][]int32 {
	if l.IsNull(j) {
		return nil
	}
	inner, ok := l.ListValues().(*array.List)
	if !ok {
		return nil
	}
	lo, hi := l.ValueOffsets(j)
	out := make([][]int32, 0, hi-lo)
	for g := int(lo); g < int(hi); g++ {
		a, b := inner.ValueOffsets(g)
		group := make([]int32, 0, b-a)
		for k := int(a); k < int(b); k++ {
			v, _ := ints(inner.ListValues(), k)
			group = append(group, int32(v))
		}
		out = append(out, group)
	}
	return out
}

func firstViolationsOf(a arrow.Array, errs *[]error) func(int) []InvariantViolation {
	s := newStructList(ColFirstViolations, a, errs)
	if s == nil {
		return nil
	}
	name, step, at := s.field("invariant", errs), s.field("step", errs), s.field("at_us", errs)
	checkKinds(errs, ColFirstViolations, name)
	if step == nil || at == nil {
		return nil
	}
	return func(i int) []InvariantViolation {
		if s.l.IsNull(i) {
			return nil
		}
		lo, hi := s.l.ValueOffsets(i)
		if lo == hi {
			return nil
		}
		out := make([]InvariantViolation, 0, hi-lo)
		for j := int(lo); j < int(hi); j++ {
			v := InvariantViolation{Invariant: strAt(name, j)}
			if n, ok := ints(step, j); ok {
				v.Step = &n
			}
			if n, ok := ints(at, j); ok {
				d := time.Duration(n) * time.Microsecond
				v.At = &d
			}
			out = append(out, v)
		}
		return out
	}
}

func stringsOf(name string, a arrow.Array, errs *[]error) strFn {
	switch a := a.(type) {
	case nil:
		return nil
	case *array.String:
		return func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
	case *array.LargeString:
		return func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
	case *array.Dictionary:
		dict, ok := a.Dictionary().(*array.String)
		if !ok {
			break
		}
		return func(i int) (string, bool) {
			if a.IsNull(i) {
				return "", false
			}
			return dict.Value(a.GetValueIndex(i)), true
		}
	}
	*errs = append(*errs, fmt.Errorf("column %q has type %s, want a string type", name, a.DataType()))
	return nil
}

func intsOf(name string, a arrow.Array, errs *[]error) intFn {
	switch a := a.(type) {
	case nil:
		return nil
	case *array.Int64:
		return func(i int) (int64, bool) { return a.Value(i), a.IsValid(i) }
	case *array.Duration:
		if a.DataType().(*arrow.DurationType).Unit != arrow.Microsecond {
			break
		}
		return func(i int) (int64, bool) { return int64(a.Value(i)), a.IsValid(i) }
	}
	*errs = append(*errs, fmt.Errorf("column %q has type %s, want int64 or duration[us]", name, a.DataType()))
	return nil
}

func listOf(name string, a arrow.Array, errs *[]error) func(int) []string {
	if a == nil {
		return nil
	}
	l, ok := a.(*array.List)
	if ok {
		vals, ok := l.ListValues().(*array.String)
		if ok {
			return func(i int) []string {
				lo, hi := l.ValueOffsets(i)
				if lo == hi {
					return nil
				}
				out := make([]string, 0, hi-lo)
				for j := lo; j < hi; j++ {
					out = append(out, vals.Value(int(j)))
				}
				return out
			}
		}
	}
	*errs = append(*errs, fmt.Errorf("column %q has type %s, want list<utf8>", name, a.DataType()))
	return nil
}
