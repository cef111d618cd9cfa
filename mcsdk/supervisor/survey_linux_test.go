//go:build linux && amd64

package supervisor

import (
	"reflect"
	"slices"
	"testing"
)

// TestSyscallSurvey runs testdata/survey.c, which makes known numbers of
// calls of every kind of answer, and checks the survey's counts exactly:
// served, answered with an errno, refused by the table, parked then
// answered, passthrough calls absent unless every call notifies, and the
// unsupported call that ends a run counted as failed with its reason; two
// runs give the same survey.
func TestSyscallSurvey(t *testing.T) {
	bin := buildC(t, "testdata/survey.c")
	tests := []struct {
		name      string
		notifyAll bool
		args      []string
		want      []SyscallUse // only the fields compared below
		absent    []string
	}{
		{name: "notified", want: []SyscallUse{
			{Name: "getrandom", Decision: "served", Count: 5, Served: 5},
			{Name: "kill", Decision: "served", Count: 3, Errors: []ErrnoN{{"EPERM", 3}}},
			{Name: "mincore", Decision: "refused", Count: 2, Errors: []ErrnoN{{"ENOSYS", 2}}},
			{Name: "nanosleep", Decision: "served", Count: 1, Served: 1},
		}, absent: []string{"getuid", "mmap"}},
		{name: "all", notifyAll: true, want: []SyscallUse{
			{Name: "getrandom", Decision: "served", Count: 5, Served: 5},
			{Name: "getuid", Decision: "passthrough", Count: 4, Kernel: 4},
			{Name: "exit_group", Decision: "served", Count: 1, Kernel: 1}, // the main process ends natively
		}},
		{name: "stop", args: []string{"stop"}, want: []SyscallUse{
			{Name: "nanosleep", Decision: "served", Count: 1, Served: 1},
			{Name: "io_uring_setup", Decision: "unsupported", Count: 1, Failed: 1, Note: "io_uring is not modelled"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			survey := func() []SyscallUse {
				w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: tc.args, Env: []string{"PATH=/usr/bin:/bin"}}},
					BasePort: 7000, Survey: true, NotifyAll: tc.notifyAll})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				for acts := w.Enabled(); len(acts) > 0; acts = w.Enabled() {
					if err := w.Apply(acts[0]); err != nil {
						break
					}
				}
				return w.Syscalls()
			}
			got := survey()
			if again := survey(); !reflect.DeepEqual(got, again) {
				t.Errorf("two runs survey differently:\n%+v\n%+v", got, again)
			}
			for _, want := range tc.want {
				i := slices.IndexFunc(got, func(u SyscallUse) bool { return u.Name == want.Name })
				if i < 0 {
					t.Errorf("no row for %s in %+v", want.Name, got)
					continue
				}
				g := got[i]
				if g.Node != 0 || g.Decision != want.Decision || g.Count != want.Count || g.Served != want.Served ||
					g.Kernel != want.Kernel || g.Failed != want.Failed || !slices.Equal(g.Errors, want.Errors) ||
					want.Note != "" && g.Note != want.Note {
					t.Errorf("%s: got %+v, want %+v", want.Name, g, want)
				}
			}
			for _, name := range tc.absent {
				if slices.ContainsFunc(got, func(u SyscallUse) bool { return u.Name == name }) {
					t.Errorf("%s is a passthrough call, which the filter allows unseen, yet it has a row", name)
				}
			}
			for i := 1; i < len(got); i++ {
				if a, b := got[i-1], got[i]; a.Count+a.Pending < b.Count+b.Pending || a.Count+a.Pending == b.Count+b.Pending && a.Name > b.Name {
					t.Errorf("rows not sorted by count, then name: %s (%d) before %s (%d)", a.Name, a.Count, b.Name, b.Count)
				}
			}
		})
	}
}

// TestSyscallSurveyPending checks that a call parked when the survey is
// taken counts as pending, not as answered, and that taking the survey
// changes nothing.
func TestSyscallSurveyPending(t *testing.T) {
	bin := buildC(t, "testdata/survey.c")
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7000, Survey: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 2 { // the second must equal the first
		got := w.Syscalls()
		i := slices.IndexFunc(got, func(u SyscallUse) bool { return u.Name == "nanosleep" })
		if i < 0 || got[i].Count != 0 || got[i].Pending != 1 {
			t.Fatalf("before its timer the sleep must be 1 pending, 0 answered: %+v", got)
		}
	}
}
