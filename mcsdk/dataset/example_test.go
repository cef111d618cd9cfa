package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// A campaign writes rows through a RowWriter; analysis reads them back.
func Example() {
	tmp, _ := os.MkdirTemp("", "weft-example")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "campaign")

	w, err := dataset.Create(dir, dataset.Manifest{
		CampaignID: "c1", ModelHash: "ab12",
		Variants: []dataset.Variant{{Name: "bug", BinaryHash: "cd34"}},
		Seeds:    []dataset.SeedRange{{Lo: 0, Hi: 2}},
	})
	if err != nil {
		panic(err)
	}
	var rw dataset.RowWriter = w
	step := int64(7)
	for seed, verdict := range []string{dataset.Holds, dataset.Violated} {
		row := dataset.Row{CampaignID: "c1", RunID: "run1", ModelHash: "ab12", BinaryHash: "cd34",
			Variant: "bug", Seed: int64(seed), Verdict: verdict, Steps: 10, VirtualDuration: time.Second}
		if verdict == dataset.Violated {
			row.ViolatedInvariants, row.FirstViolationStep = []string{"agree_on_ack"}, &step
		}
		if err := rw.Write(row); err != nil {
			panic(err)
		}
	}
	if err := rw.Close(); err != nil {
		panic(err)
	}

	done, _ := dataset.Completed(dir)
	fmt.Println("seed 1 done:", done[dataset.Key{Variant: "bug", Seed: 1, Run: "run1"}])
	rows, _ := dataset.ReadRows(dir)
	for _, r := range rows {
		fmt.Println(r.Seed, r.Verdict, r.ViolatedInvariants, r.VirtualDuration)
	}
	// Output:
	// seed 1 done: true
	// 0 holds [] 1s
	// 1 violated [agree_on_ack] 1s
}
