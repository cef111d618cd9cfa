package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestClusterUsageErrors: mistakes are refused before anything is
// submitted, with exit 2 and a message naming the problem.
func TestClusterUsageErrors(t *testing.T) {
	model := "../../targets/election/election.model"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"campaign", model, "--status", "x"}, "takes no MODEL"},
		{[]string{"campaign", model, "--slurm", "--emit", "k8s"}, "exclusive"},
		{[]string{"campaign", model, "--slurm", "--shard", "1/2"}, "--shard is chosen per task"},
		{[]string{"campaign", model, "--emit", "helm"}, "want k8s"},
		{[]string{"campaign", model, "--slurm", "--seeds", "2", "--array-size", "3"}, "want 1 to 2"},
		{[]string{"campaign", "--slurm"}, "exactly one MODEL"},
		{[]string{"campaign", "--status", t.TempDir()}, "not a campaign submitted with --slurm"},
		{[]string{"campaign", model, "--partition", "p"}, "--partition needs --slurm"},
		{[]string{"campaign", model, "--slurm", "--image", "x"}, "--image needs --emit k8s"},
		{[]string{"campaign", model, "--array-size", "3"}, "--array-size needs --slurm or --emit k8s"},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		if code := runMain(tc.args, io.Discard, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
