package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// exportTestDataset writes a small dataset of two variants and returns it.
func exportTestDataset(t *testing.T, seeds []int64, run string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := dataset.Create(dir, dataset.Manifest{
		CampaignID: "c", ModelHash: "m1",
		Variants: []dataset.Variant{{Name: "a", BinaryHash: "ha"}, {Name: "b", BinaryHash: "hb"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seeds {
		for _, v := range []string{"a", "b"} {
			verdict := dataset.Holds
			if v == "b" && s%2 == 0 {
				verdict = dataset.Violated
			}
			row := dataset.Row{CampaignID: "c", RunID: run, ModelHash: "m1", BinaryHash: "h" + v, Variant: v, Seed: s, Verdict: verdict, Steps: s}
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExportCommand(t *testing.T) {
	ds := exportTestDataset(t, []int64{1, 2, 3, 4}, "run1")
	out := t.TempDir()
	tests := []struct {
		args []string
		code int
		rows int    // rows reported, when code is 0
		err  string // substring of the error otherwise
	}{
		{[]string{ds, "--format", "parquet", "-o", filepath.Join(out, "x.parquet")}, 0, 8, ""},
		{[]string{ds, "-o", filepath.Join(out, "x.arrow")}, 0, 8, ""},
		{[]string{ds, "-o", filepath.Join(out, "x.csv"), "--verdict", "violated"}, 0, 2, ""},
		{[]string{ds, "-o", filepath.Join(out, "y.csv"), "--variant", "a", "--run", "run1"}, 0, 4, ""},
		{[]string{ds, "-o", filepath.Join(out, "x.data")}, exitUsage, 0, "no known extension"},
		{[]string{ds, "--format", "json", "-o", filepath.Join(out, "x.json")}, exitUsage, 0, "unknown export format"},
		{[]string{ds, "-o", filepath.Join(out, "z.csv"), "--verdict", "ok"}, exitUsage, 0, `--verdict "ok"`},
		{[]string{ds}, exitUsage, 0, "missing -o"},
		{[]string{"-o", filepath.Join(out, "x.csv")}, exitUsage, 0, "missing DATASET"},
		{[]string{out, "-o", filepath.Join(out, "w.csv")}, exitUsage, 0, "not a dataset"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			code, stdout, err := runCommand(t, "export", append([]string{"--json"}, tc.args...))
			if code != tc.code || (tc.code != 0 && (err == nil || !strings.Contains(err.Error(), tc.err))) {
				t.Fatalf("code %d, err %v; want %d %q", code, err, tc.code, tc.err)
			}
			if tc.code != 0 {
				return
			}
			var got struct{ Rows int }
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Rows != tc.rows {
				t.Errorf("output %q: want %d rows", stdout, tc.rows)
			}
		})
	}
	rows, err := dataset.ReadRows(ds)
	if err != nil || len(rows) != 8 {
		t.Fatalf("dataset after exports: %d rows, %v", len(rows), err)
	}
	csv, err := os.ReadFile(filepath.Join(out, "x.csv"))
	if err != nil || strings.Count(string(csv), "\n") != 3 || !strings.HasPrefix(string(csv), strings.Join(dataset.CSVHeader(), ",")) {
		t.Errorf("x.csv = %q, %v", csv, err)
	}
}

func TestMergeCommand(t *testing.T) {
	a := exportTestDataset(t, []int64{1, 2, 3}, "run1")
	b := exportTestDataset(t, []int64{3, 4}, "run1")
	out := filepath.Join(t.TempDir(), "merged")
	code, stdout, err := runCommand(t, "merge", []string{"-o", out, a, b})
	if code != 0 || err != nil {
		t.Fatalf("merge: code %d, %v", code, err)
	}
	if !strings.Contains(stdout, "merged 8 rows") || !strings.Contains(stdout, "2 identical duplicates") {
		t.Errorf("merge output %q", stdout)
	}
	rows, err := dataset.ReadRows(out)
	if err != nil || len(rows) != 8 {
		t.Errorf("merged dataset: %d rows, %v", len(rows), err)
	}
	code, _, err = runCommand(t, "merge", []string{"-o", out, a})
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("merge into a non-empty dir: code %d, %v", code, err)
	}
	code, _, err = runCommand(t, "merge", []string{a, b})
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "missing -o") {
		t.Errorf("merge without -o: code %d, %v", code, err)
	}
}

// runCommand parses args with fresh options of the command and runs it
// with its output captured.
func runCommand(t *testing.T, name string, args []string) (int, string, error) {
	t.Helper()
	type options interface {
		declare(fs *flag.FlagSet)
		run(args []string, stdout io.Writer) (int, error)
	}
	o := map[string]options{"export": &exportOptions{}, "merge": &mergeOptions{}}[name]
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.declare(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	var stdout bytes.Buffer
	code, err := o.run(pos, &stdout)
	return code, stdout.String(), err
}
