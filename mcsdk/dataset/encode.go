package dataset

import (
	"fmt"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dicts holds the dictionaries every record of one file or stream shares:
// a fixed variant dictionary (sorted names) and the fixed verdict one.
// Sharing the same arrays lets the IPC file writer emit each dictionary
// once, as the file format requires.
type dicts struct {
	mem        memory.Allocator
	variants   *array.String
	variantIdx map[string]int32
	verdicts   *array.String
}

// newDicts builds the dictionaries for the given variant names
// (deduplicated and sorted).
func newDicts(mem memory.Allocator, variants []string) *dicts {
	names := uniqueSorted(variants)
	d := &dicts{mem: mem, variantIdx: make(map[string]int32, len(names))}
	for i, n := range names {
		d.variantIdx[n] = int32(i)
	}
	d.variants = stringArray(mem, names)
	d.verdicts = stringArray(mem, Verdicts())
	return d
}

func (d *dicts) release() {
	d.variants.Release()
	d.verdicts.Release()
}

func uniqueSorted(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func stringArray(mem memory.Allocator, ss []string) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(ss, nil)
	return b.NewStringArray()
}

// encode builds one record batch of rows. Every row's variant must be in
// the dictionary and its verdict valid.
func (d *dicts) encode(rows []Row) (arrow.RecordBatch, error) {
	b := newRowBuilder(d.mem, len(rows))
	defer b.release()
	for i := range rows {
		if err := b.append(d, &rows[i]); err != nil {
			return nil, err
		}
	}
	cols := b.finish(d)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return array.NewRecordBatch(Schema(), cols, int64(len(rows))), nil
}

// rowBuilder accumulates the columns of a record batch.
type rowBuilder struct {
	campaign, run, model, binary *array.StringBuilder
	variant                      *array.Int32Builder
	seed                         *array.Int64Builder
	verdict                      *array.Int8Builder
	violated                     *array.ListBuilder
	firstStep                    *array.Int64Builder
	firstTime                    *array.DurationBuilder
	steps, states                *array.Int64Builder
	virtual, wall                *array.DurationBuilder
	recording, detail            *array.StringBuilder
	faults                       *array.ListBuilder
	latency, order               *array.StringBuilder
	sent, delivered, dropped     *array.Int64Builder
	duplicated, held             *array.Int64Builder
	firstViolations              *array.ListBuilder
	refused, ops, opsIndet       *array.Int64Builder
}

func newRowBuilder(mem memory.Allocator, n int) *rowBuilder {
	b := &rowBuilder{
		campaign: array.NewStringBuilder(mem), run: array.NewStringBuilder(mem),
		model: array.NewStringBuilder(mem), binary: array.NewStringBuilder(mem),
		variant: array.NewInt32Builder(mem), seed: array.NewInt64Builder(mem),
		verdict:   array.NewInt8Builder(mem),
		violated:  array.NewListBuilder(mem, arrow.BinaryTypes.String),
		firstStep: array.NewInt64Builder(mem), firstTime: array.NewDurationBuilder(mem, durationType),
		steps: array.NewInt64Builder(mem), states: array.NewInt64Builder(mem),
		virtual: array.NewDurationBuilder(mem, durationType), wall: array.NewDurationBuilder(mem, durationType),
		recording: array.NewStringBuilder(mem), detail: array.NewStringBuilder(mem),
		faults:  array.NewListBuilder(mem, FaultType),
		latency: array.NewStringBuilder(mem), order: array.NewStringBuilder(mem),
		sent: array.NewInt64Builder(mem), delivered: array.NewInt64Builder(mem), dropped: array.NewInt64Builder(mem),
		duplicated: array.NewInt64Builder(mem), held: array.NewInt64Builder(mem),
		firstViolations: array.NewListBuilder(mem, FirstViolationType),
		refused:         array.NewInt64Builder(mem),
		ops:             array.NewInt64Builder(mem),
		opsIndet:        array.NewInt64Builder(mem),
	}
	for _, x := range b.all() {
		x.Reserve(n)
	}
	return b
}

func (b *rowBuilder) all() []array.Builder {
	return []array.Builder{b.campaign, b.run, b.model, b.binary, b.variant, b.seed, b.verdict,
		b.violated, b.firstStep, b.firstTime, b.steps, b.states, b.virtual, b.wall, b.recording, b.detail,
		b.faults, b.latency, b.order, b.sent, b.delivered, b.dropped, b.duplicated, b.held, b.firstViolations, b.refused, b.ops, b.opsIndet}
}

func (b *rowBuilder) release() {
	for _, x := range b.all() {
		x.Release()
	}
}

func (b *rowBuilder) append(d *dicts, r *Row) error {
	vi, ok := d.variantIdx[r.Variant]
	if !ok {
		return fmt.Errorf("dataset: row %s: variant %q is not in the manifest", r.Key(), r.Variant)
	}
	ve := verdictIndex(r.Verdict)
	if ve < 0 {
		return r.validate()
	}
	b.campaign.Append(r.CampaignID)
	b.run.Append(r.RunID)
	b.model.Append(r.ModelHash)
	b.binary.Append(r.BinaryHash)
	b.variant.Append(vi)
	b.seed.Append(r.Seed)
	b.verdict.Append(int8(ve))
	b.violated.Append(true)
	vals := b.violated.ValueBuilder().(*array.StringBuilder)
	for _, v := range r.ViolatedInvariants {
		vals.Append(v)
	}
	appendOptInt(b.firstStep, r.FirstViolationStep)
	if r.FirstViolationTime != nil {
		b.firstTime.Append(toMicros(*r.FirstViolationTime))
	} else {
		b.firstTime.AppendNull()
	}
	b.steps.Append(r.Steps)
	b.states.Append(r.DistinctStates)
	b.virtual.Append(toMicros(r.VirtualDuration))
	b.wall.Append(toMicros(r.WallTime))
	if r.RecordingPath != "" {
		b.recording.Append(r.RecordingPath)
	} else {
		b.recording.AppendNull()
	}
	b.detail.Append(r.Detail)
	b.appendFaults(r.Faults)
	appendOptString(b.latency, r.Latency)
	appendOptString(b.order, r.Order)
	appendOptInt(b.sent, r.MessagesSent)
	appendOptInt(b.delivered, r.MessagesDelivered)
	appendOptInt(b.dropped, r.MessagesDropped)
	appendOptInt(b.duplicated, r.MessagesDuplicated)
	appendOptInt(b.held, r.MessagesHeld)
	b.appendFirstViolations(r.FirstViolations)
	appendOptInt(b.refused, r.RefusedWrites)
	appendOptInt(b.ops, r.Ops)
	appendOptInt(b.opsIndet, r.OpsIndeterminate)
	return nil
}

// appendFaults appends one list of faults (empty, never null).
func (b *rowBuilder) appendFaults(fs []Fault) {
	b.faults.Append(true)
	st := b.faults.ValueBuilder().(*array.StructBuilder)
	kind := st.FieldBuilder(0).(*array.StringBuilder)
	node := st.FieldBuilder(1).(*array.Int32Builder)
	peer := st.FieldBuilder(2).(*array.Int32Builder)
	at := st.FieldBuilder(3).(*array.Int64Builder)
	until := st.FieldBuilder(4).(*array.Int64Builder)
	sides := st.FieldBuilder(5).(*array.ListBuilder)
	applied := st.FieldBuilder(6).(*array.BooleanBuilder)
	for _, f := range fs {
		st.Append(true)
		kind.Append(f.Kind)
		appendNode(node, f.Node)
		appendNode(peer, f.Peer)
		at.Append(int64(toMicros(f.At)))
		if f.Kind == "partition" {
			until.Append(int64(toMicros(f.Until)))
		} else {
			until.AppendNull()
		}
		if f.Sides == nil {
			sides.AppendNull()
		} else {
			sides.Append(true)
			group := sides.ValueBuilder().(*array.ListBuilder)
			members := group.ValueBuilder().(*array.Int32Builder)
			for _, g := range f.Sides {
				group.Append(true)
				members.AppendValues(g, nil)
			}
		}
		applied.Append(f.Applied)
	}
}

func appendNode(b *array.Int32Builder, n int) {
	if n < 0 {
		b.AppendNull()
	} else {
		b.Append(int32(n))
	}
}

// appendFirstViolations appends one list (empty, never null).
func (b *rowBuilder) appendFirstViolations(vs []InvariantViolation) {
	b.firstViolations.Append(true)
	st := b.firstViolations.ValueBuilder().(*array.StructBuilder)
	name := st.FieldBuilder(0).(*array.StringBuilder)
	step := st.FieldBuilder(1).(*array.Int64Builder)
	at := st.FieldBuilder(2).(*array.Int64Builder)
	for _, v := range vs {
		st.Append(true)
		name.Append(v.Invariant)
		appendOptInt(step, v.Step)
		if v.At != nil {
			at.Append(int64(toMicros(*v.At)))
		} else {
			at.AppendNull()
		}
	}
}

func appendOptString(b *array.StringBuilder, s string) {
	if s == "" {
		b.AppendNull()
	} else {
		b.Append(s)
	}
}

func appendOptInt(b *array.Int64Builder, v *int64) {
	if v != nil {
		b.Append(*v)
	} else {
		b.AppendNull()
	}
}

// finish returns the columns in schema order; the caller releases them.
func (b *rowBuilder) finish(d *dicts) []arrow.Array {
	variantIdx := b.variant.NewArray()
	defer variantIdx.Release()
	verdictIdx := b.verdict.NewArray()
	defer verdictIdx.Release()
	return []arrow.Array{
		b.campaign.NewArray(), b.run.NewArray(), b.model.NewArray(), b.binary.NewArray(),
		array.NewDictionaryArray(variantType, variantIdx, d.variants),
		b.seed.NewArray(),
		array.NewDictionaryArray(verdictType, verdictIdx, d.verdicts),
		b.violated.NewArray(), b.firstStep.NewArray(), b.firstTime.NewArray(),
		b.steps.NewArray(), b.states.NewArray(), b.virtual.NewArray(), b.wall.NewArray(),
		b.recording.NewArray(), b.detail.NewArray(),
		b.faults.NewArray(), b.latency.NewArray(), b.order.NewArray(),
		b.sent.NewArray(), b.delivered.NewArray(), b.dropped.NewArray(), b.duplicated.NewArray(), b.held.NewArray(),
		b.firstViolations.NewArray(),
		b.refused.NewArray(), b.ops.NewArray(), b.opsIndet.NewArray(),
	}
}

func toMicros(d time.Duration) arrow.Duration { return arrow.Duration(d / time.Microsecond) }
