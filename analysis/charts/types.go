package charts

import "time"

// Verdict names used by Outcome.Verdict, as in weft's verdict rows.
const (
	VerdictHolds    = "holds"
	VerdictViolated = "violated"
	VerdictInvalid  = "invalid"
	VerdictError    = "error"
)

// Trace event kinds understood by Timeline. Kinds other than KindState and the
// fault kinds are drawn as markPoints (deliveries, timers, client requests…).
const (
	KindState     = "state"     // Var of Node took Value
	KindDeliver   = "deliver"   // a message was delivered to Node
	KindFault     = "fault"     // generic fault; Value describes it
	KindCrash     = "crash"     // Node crashed
	KindRestart   = "restart"   // Node restarted
	KindPartition = "partition" // a partition started; Value describes it
	KindHeal      = "heal"      // a partition healed
)

// RateBar is one variant's violation rate: K violating runs out of N, with a
// confidence interval [Lo, Hi] around Rate (all in [0, 1]).
type RateBar struct {
	Variant string
	Rate    float64
	Lo, Hi  float64
	K, N    int
}

// RunRate is one variant's violation rate in one of several repeated runs
// (campaigns), for drift charts.
type RunRate struct {
	Run     string
	Variant string
	Rate    float64
	Lo, Hi  float64
	K, N    int
}

// InvariantCount is how many runs of Variant violated Invariant.
type InvariantCount struct {
	Variant   string
	Invariant string
	Count     int
}

// Outcome is the verdict of one seed of one variant (VerdictHolds,
// VerdictViolated, VerdictInvalid or VerdictError).
type Outcome struct {
	Variant string
	Seed    int64
	Verdict string
}

// DepthCount is the number of distinct states an exhaustive check had seen
// when it reached Depth. Variant may be empty when there is one series.
type DepthCount struct {
	Variant string
	Depth   int
	States  int
}

// ThroughputPoint says that Done runs had finished Elapsed after a campaign
// started.
type ThroughputPoint struct {
	Elapsed time.Duration
	Done    int
}

// TraceEvent is one event of a recorded run at scheduler step Step and
// virtual time TimeUS (microseconds). For Kind == KindState, Var of Node took
// Value; for other kinds Value describes the event (e.g. the message).
type TraceEvent struct {
	Step   int
	TimeUS int64
	Node   string
	Kind   string
	Var    string
	Value  string
}
