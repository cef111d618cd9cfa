package dataset

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Version is the dataset format version this package writes and the newest
// it reads. It is stored in every verdict file's schema metadata under
// [VersionKey] and in the manifest.
const Version = 1

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
//
// with metadata weft.dataset.version = "1".
func Schema() *arrow.Schema {
	md := arrow.NewMetadata([]string{VersionKey}, []string{fmt.Sprint(Version)})
	return arrow.NewSchema(fields(), &md)
}

func fields() []arrow.Field {
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
