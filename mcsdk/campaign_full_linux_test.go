//go:build linux

package mcsdk_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// TestCampaignOnFullDiskKeepsEveryRun runs an election campaign (every
// run recorded) into a small tmpfs that fills up: the campaign stops with
// the full-disk error and the dataset holds a row for every run it
// finished. After the file system is grown, resuming completes the
// campaign with the verdicts of an uninterrupted one. Needs root (mount).
func TestCampaignOnFullDiskKeepsEveryRun(t *testing.T) {
	m := loadTarget(t, "election/election.model")
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1100k"); err != nil {
		t.Fatalf("mount tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	out := filepath.Join(mnt, "election")
	// 30 seeds of two variants, about 4 KB of recording each, beside the
	// dataset's reserve (dataset.ReserveSize, 1 MB): the 100 KB left fill
	// up after about 10 of the 60 runs.
	const seeds = 30
	done := 0
	opts := mcsdk.CampaignOptions{Seeds: seeds, Out: out, Jobs: 2, RecordAll: true,
		Progress: func(p mcsdk.CampaignProgress) { done = p.Done }}
	_, err := mcsdk.Campaign(context.Background(), m, opts)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("campaign on a full disk: %v, want a no-space error", err)
	}
	rows, rerr := dataset.ReadRows(out)
	if rerr != nil {
		t.Fatalf("the dataset is unreadable after the full disk: %v", rerr)
	}
	t.Logf("stopped after %d runs: %v", done, err)
	if len(rows) != done || done == 0 || done == 2*seeds {
		t.Fatalf("%d runs finished, %d rows kept (want all of them, and the disk full before the end)", done, len(rows))
	}
	unrecorded := 0
	for _, r := range rows {
		if r.RecordingPath == "" && strings.Contains(r.Detail, "recording not written") {
			unrecorded++
		}
	}
	t.Logf("%d kept rows lost their recording to the full disk", unrecorded)
	if err := unix.Mount("", mnt, "", unix.MS_REMOUNT, "size=16m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	opts.Progress = nil
	if _, err := mcsdk.Campaign(context.Background(), m, opts); err != nil {
		t.Fatalf("resume after growing the disk: %v", err)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	opts.Out = ref
	if _, err := mcsdk.Campaign(context.Background(), m, opts); err != nil {
		t.Fatal(err)
	}
	got, want := verdicts(t, out), verdicts(t, ref)
	if len(got) != 2*seeds || len(got) != len(want) {
		t.Fatalf("resumed dataset has %d rows, reference %d, want %d", len(got), len(want), 2*seeds)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%v: resumed %q, uninterrupted %q", k, got[k], v)
		}
	}
}

func verdicts(t *testing.T, dir string) map[dataset.Key]string {
	t.Helper()
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[dataset.Key]string{}
	for _, r := range rows {
		out[r.Key()] = r.Verdict + " " + strings.Join(r.ViolatedInvariants, ",")
	}
	return out
}

// TestResumeIntoReadOnlyRunsNothing: resuming a campaign into a dataset on
// a read-only mount fails before the first run. Needs root (mount).
func TestResumeIntoReadOnlyRunsNothing(t *testing.T) {
	m := loadTarget(t, "election/election.model")
	out := filepath.Join(t.TempDir(), "election")
	if _, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 4, Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(out, out, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(out, unix.MNT_DETACH) })
	if err := unix.Mount("", out, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	ran := 0
	_, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 20, Out: out, Jobs: 2,
		Progress: func(mcsdk.CampaignProgress) { ran++ }})
	if !errors.Is(err, syscall.EROFS) || ran != 0 {
		t.Fatalf("resume into a read-only dataset: %v after %d runs; want a read-only error before any run", err, ran)
	}
}
