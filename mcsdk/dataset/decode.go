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
}

func newColumns(rec arrow.RecordBatch) (*columns, error) {
	var c columns
	var errs []error
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
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
