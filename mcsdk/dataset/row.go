package dataset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Version is the dataset format version this package writes and the newest
// it reads. It is stored in every verdict file's schema metadata under
// [VersionKey] and in the manifest.
//
// Version 2 added the structured fault schedule, the network model, the
// message counts and the first violation of each invariant (columns
// appended after version 1's, which files of version 1 lack: they read as
// null), and checksums in the manifest.
const Version = 2

// VersionKey is the schema metadata key that carries the format version.
const VersionKey = "weft.dataset.version"

// Verdicts a run can end with. They are the values of the verdict
// dictionary, in this order (index 0 is holds).
const (
	Holds    = "holds"    // every invariant held
	Violated = "violated" // at least one invariant was violated
	Invalid  = "invalid"  // the run broke a precondition (e.g. a fault budget)
	Error    = "error"    // the tool failed; Detail says why
)

// Verdicts lists the valid verdicts in dictionary order.
func Verdicts() []string { return []string{Holds, Violated, Invalid, Error} }

// Row is one verdict: one seed of one variant in one run of a campaign.
// Durations are stored with microsecond resolution (finer parts are
// truncated on write).
type Row struct {
	CampaignID string // campaign identifier
	RunID      string // run within the campaign, e.g. "run1"
	ModelHash  string // hex sha256 of the model file
	BinaryHash string // hex sha256 of the variant's binary
	Variant    string // variant name (dictionary-encoded)
	Seed       int64  // scheduler seed
	Verdict    string // one of Holds, Violated, Invalid, Error

	// ViolatedInvariants names the violated invariants; nil when none (an
	// empty list is stored, never null).
	ViolatedInvariants []string
	// FirstViolationStep is the step of the first violation; nil (null) when none.
	FirstViolationStep *int64
	// FirstViolationTime is the virtual time of the first violation; nil (null) when none.
	FirstViolationTime *time.Duration

	Steps           int64         // scheduler steps taken
	DistinctStates  int64         // distinct states seen
	VirtualDuration time.Duration // virtual time the run covered
	WallTime        time.Duration // real time the run took

	// RecordingPath is the recording's path relative to the dataset
	// directory (e.g. "recordings/bug-42.weftrec"); "" is stored as null.
	RecordingPath string
	// Detail is free-form: the error or invalid reason, drawn parameters.
	Detail string

	// Faults is the run's fault schedule in time order (format 2).
	Faults []Fault
	// Latency is the network's latency model, e.g. "uniform:1000-60000"
	// (µs); Order is "fifo" or "bag" (format 2; "" is stored as null).
	Latency, Order string
	// Message counts of the run; nil (null) when the runner did not count.
	MessagesSent, MessagesDelivered, MessagesDropped, MessagesDuplicated, MessagesHeld *int64
	// RefusedWrites counts the writes outside their run directory that
	// the run's nodes attempted and weft refused (null when unknown).
	RefusedWrites *int64
	// Ops and OpsIndeterminate count the workload's operations and those
	// without a known outcome (null without a workload).
	Ops, OpsIndeterminate *int64
	// FirstViolations gives, per violated invariant, when it first failed
	// (format 2).
	FirstViolations []InvariantViolation
}

// Fault is one entry of a run's fault schedule.
type Fault struct {
	Kind string // "crash", "restart", "notice" or "partition"
	// Node is the node crashed, restarted or told of a crash; -1 (null)
	// for a partition.
	Node int
	// Peer is, for a notice, the node whose crash is told; -1 (null)
	// otherwise.
	Peer int
	At   time.Duration // virtual time since the start of the run
	// Until is when a partition heals; 0 (null) for other faults.
	Until time.Duration
	// Sides are a partition's groups of nodes; nil (null) otherwise.
	Sides [][]int32
	// Applied reports whether the fault happened before the run ended (a
	// run that stops at a violation leaves later faults unapplied).
	Applied bool
}

// InvariantViolation is when one invariant first failed in a run.
type InvariantViolation struct {
	Invariant string
	// Step and At are nil (null) when the runner knows only that the
	// invariant failed in the final state.
	Step *int64
	At   *time.Duration
}

// Key identifies a row within a dataset: a (variant, seed, run) triple is
// run at most once.
type Key struct {
	Variant string
	Seed    int64
	Run     string
}

// Key returns the row's identity.
func (r *Row) Key() Key { return Key{Variant: r.Variant, Seed: r.Seed, Run: r.RunID} }

// String formats the key as "variant/seed/run" for messages.
func (k Key) String() string {
	return fmt.Sprintf("variant %q seed %d run %q", k.Variant, k.Seed, k.Run)
}

// Column names of the verdict schema, in schema order.
const (
	ColCampaignID         = "campaign_id"
	ColRunID              = "run_id"
	ColModelHash          = "model_hash"
	ColBinaryHash         = "binary_hash"
	ColVariant            = "variant"
	ColSeed               = "seed"
	ColVerdict            = "verdict"
	ColViolatedInvariants = "violated_invariants"
	ColFirstViolationStep = "first_violation_step"
	ColFirstViolationTime = "first_violation_time"
	ColSteps              = "steps"
	ColDistinctStates     = "distinct_states"
	ColVirtualDuration    = "virtual_duration"
	ColWallTime           = "wall_time"
	ColRecordingPath      = "recording_path"
	ColDetail             = "detail"
	// Format 2.
	ColFaults             = "faults"
	ColLatency            = "latency"
	ColOrder              = "order"
	ColMessagesSent       = "messages_sent"
	ColMessagesDelivered  = "messages_delivered"
	ColMessagesDropped    = "messages_dropped"
	ColMessagesDuplicated = "messages_duplicated"
	ColMessagesHeld       = "messages_held"
	ColFirstViolations    = "first_violations"
	ColRefusedWrites      = "refused_writes"
	ColOps                = "ops"
	ColOpsIndeterminate   = "ops_indeterminate"
)

// FaultType is the element type of the faults column: times are int64
// microseconds named *_us, so every tool reads them the same way.
var FaultType = arrow.StructOf(
	arrow.Field{Name: "kind", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "node", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	arrow.Field{Name: "peer", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	arrow.Field{Name: "at_us", Type: arrow.PrimitiveTypes.Int64},
	arrow.Field{Name: "until_us", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	arrow.Field{Name: "sides", Type: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)), Nullable: true},
	arrow.Field{Name: "applied", Type: arrow.FixedWidthTypes.Boolean},
)

// FirstViolationType is the element type of the first_violations column.
var FirstViolationType = arrow.StructOf(
	arrow.Field{Name: "invariant", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "step", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	arrow.Field{Name: "at_us", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
)

var (
	durationType = &arrow.DurationType{Unit: arrow.Microsecond}
	variantType  = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	verdictType  = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
)

// Schema returns the Arrow schema of verdict files (format [Version]):
//
//	campaign_id           utf8
//	run_id                utf8
//	model_hash            utf8
//	binary_hash           utf8
//	variant               dictionary<int32, utf8>
//	seed                  int64
//	verdict               dictionary<int8, utf8>  (holds, violated, invalid, error)
//	violated_invariants   list<utf8>
//	first_violation_step  int64, nullable
//	first_violation_time  duration[us], nullable
//	steps                 int64
//	distinct_states       int64
//	virtual_duration      duration[us]
//	wall_time             duration[us]
//	recording_path        utf8, nullable
//	detail                utf8
//	faults                list<struct<kind utf8, node int32?, peer int32?, at_us int64,
//	                           until_us int64?, sides list<list<int32>>?, applied bool>>, nullable
//	latency               utf8, nullable
//	order                 utf8, nullable
//	messages_sent         int64, nullable (and _delivered, _dropped, _duplicated, _held)
//	first_violations      list<struct<invariant utf8, step int64?, at_us int64?>>, nullable
//
// with metadata weft.dataset.version = "2". The columns from faults on
// are format 2's; files of format 1 end at detail.
func Schema() *arrow.Schema {
	md := arrow.NewMetadata([]string{VersionKey}, []string{fmt.Sprint(Version)})
	return arrow.NewSchema(fields(), &md)
}

// fields returns the columns of the current format.
func fields() []arrow.Field {
	i64 := arrow.PrimitiveTypes.Int64
	str := arrow.BinaryTypes.String
	return append(fieldsV1(),
		arrow.Field{Name: ColFaults, Type: arrow.ListOf(FaultType), Nullable: true},
		arrow.Field{Name: ColLatency, Type: str, Nullable: true},
		arrow.Field{Name: ColOrder, Type: str, Nullable: true},
		arrow.Field{Name: ColMessagesSent, Type: i64, Nullable: true},
		arrow.Field{Name: ColMessagesDelivered, Type: i64, Nullable: true},
		arrow.Field{Name: ColMessagesDropped, Type: i64, Nullable: true},
		arrow.Field{Name: ColMessagesDuplicated, Type: i64, Nullable: true},
		arrow.Field{Name: ColMessagesHeld, Type: i64, Nullable: true},
		arrow.Field{Name: ColFirstViolations, Type: arrow.ListOf(FirstViolationType), Nullable: true},
		arrow.Field{Name: ColRefusedWrites, Type: i64, Nullable: true},
		arrow.Field{Name: ColOps, Type: i64, Nullable: true},
		arrow.Field{Name: ColOpsIndeterminate, Type: i64, Nullable: true},
	)
}

// fieldsOf returns the columns of format version v.
func fieldsOf(v int) []arrow.Field {
	if v == 1 {
		return fieldsV1()
	}
	return fields()
}

// fieldsV1 returns the columns of format 1.
func fieldsV1() []arrow.Field {
	str := arrow.BinaryTypes.String
	i64 := arrow.PrimitiveTypes.Int64
	return []arrow.Field{
		{Name: ColCampaignID, Type: str},
		{Name: ColRunID, Type: str},
		{Name: ColModelHash, Type: str},
		{Name: ColBinaryHash, Type: str},
		{Name: ColVariant, Type: variantType},
		{Name: ColSeed, Type: i64},
		{Name: ColVerdict, Type: verdictType},
		{Name: ColViolatedInvariants, Type: arrow.ListOf(str)},
		{Name: ColFirstViolationStep, Type: i64, Nullable: true},
		{Name: ColFirstViolationTime, Type: durationType, Nullable: true},
		{Name: ColSteps, Type: i64},
		{Name: ColDistinctStates, Type: i64},
		{Name: ColVirtualDuration, Type: durationType},
		{Name: ColWallTime, Type: durationType},
		{Name: ColRecordingPath, Type: str, Nullable: true},
		{Name: ColDetail, Type: str},
	}
}

// validate reports a row the writer must refuse.
func (r *Row) validate() error {
	switch {
	case r.Variant == "":
		return fmt.Errorf("dataset: row for seed %d has no variant", r.Seed)
	case r.RunID == "":
		return fmt.Errorf("dataset: row %s has no run id", r.Key())
	case verdictIndex(r.Verdict) < 0:
		return fmt.Errorf("dataset: row %s has verdict %q (want holds, violated, invalid or error)", r.Key(), r.Verdict)
	}
	return nil
}

func verdictIndex(v string) int {
	for i, s := range Verdicts() {
		if s == v {
			return i
		}
	}
	return -1
}

// Schema metadata keys that describe what a verdict file or export holds,
// so the file explains itself without its manifest.
const (
	MetaModelHash   = "weft.model.hash"   // hex sha256 of the model file(s), comma-separated
	MetaModelText   = "weft.model.text"   // the model file (when all rows share one model)
	MetaVariants    = "weft.variants"     // JSON: [{name, binary_hash, cflags}]
	MetaToolVersion = "weft.tool.version" // the weft version(s) that wrote the rows
	MetaFaultModel  = "weft.fault_model"  // JSON: the model's [faults] and [network] sections
	MetaSeeds       = "weft.seeds"        // JSON: [{lo, hi}], half-open seed ranges
)

// metadataOf describes the datasets of mans as schema metadata.
func metadataOf(mans []Manifest) arrow.Metadata {
	var hashes, tools []string
	var variants []Variant
	var ranges []SeedRange
	text, faults := "", ""
	for _, m := range mans {
		hashes, tools = append(hashes, m.ModelHash), append(tools, m.ToolVersion)
		for _, v := range m.Variants {
			if !slices.ContainsFunc(variants, func(x Variant) bool { return x.Name == v.Name }) {
				variants = append(variants, v)
			}
		}
		ranges = append(ranges, m.Seeds...)
		if text == "" {
			text, faults = m.ModelText, m.FaultModel
		}
	}
	hashes, tools = uniqueInOrder(hashes), uniqueInOrder(tools)
	if len(hashes) > 1 {
		text, faults = "", ""
	}
	vj, _ := json.Marshal(variants)
	sj, _ := json.Marshal(normalizeSeeds(ranges))
	return arrow.NewMetadata(
		[]string{VersionKey, MetaModelHash, MetaModelText, MetaVariants, MetaToolVersion, MetaFaultModel, MetaSeeds},
		[]string{fmt.Sprint(Version), strings.Join(hashes, ","), text, string(vj), strings.Join(tools, ","), faults, string(sj)})
}

// schemaWith is the verdict schema with metadata md (which must hold the
// version key).
func schemaWith(md arrow.Metadata) *arrow.Schema { return arrow.NewSchema(fields(), &md) }
