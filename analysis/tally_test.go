package analysis

import (
	"reflect"
	"strings"
	"testing"
)

func TestTally(t *testing.T) {
	rows := []Outcome{
		{"orig", "1", VerdictViolated, 0}, {"orig", "1", VerdictHolds, 1}, {"orig", "1", VerdictInvalid, 2},
		{"orig", "2", VerdictViolated, 0}, {"orig", "2", VerdictError, 1}, {"orig", "2", VerdictHolds, 2},
		{"fix", "1", VerdictHolds, 0}, {"fix", "1", VerdictHolds, 1},
	}
	tab, err := Tally(rows)
	if err != nil {
		t.Fatal(err)
	}
	want := Table{
		Variants: []TallyRow{
			{Variant: "orig", Runs: 6, Valid: 4, Invalid: 1, Violated: 2, Errors: 1},
			{Variant: "fix", Runs: 2, Valid: 2},
		},
		Runs: []TallyRow{
			{Variant: "orig", Run: "1", Runs: 3, Valid: 2, Invalid: 1, Violated: 1},
			{Variant: "orig", Run: "2", Runs: 3, Valid: 2, Violated: 1, Errors: 1},
			{Variant: "fix", Run: "1", Runs: 2, Valid: 2},
		},
		outcomes: rows,
	}
	if !reflect.DeepEqual(tab, want) {
		t.Fatalf("Tally =\n%+v\nwant\n%+v", tab, want)
	}
	if r := tab.Variants[0].Rate(); r != 0.5 {
		t.Errorf("orig rate = %v, want 0.5 (errors and invalid excluded)", r)
	}
	if got := tab.RunCounts("orig"); !reflect.DeepEqual(got, []Count{{"orig@1", 1, 2}, {"orig@2", 1, 2}}) {
		t.Errorf("RunCounts = %v", got)
	}
	if _, err := Tally([]Outcome{{"v", "1", "passed", 3}}); err == nil || !strings.Contains(err.Error(), "passed") {
		t.Errorf("unknown verdict: err = %v", err)
	}
}

func TestTableFromCounts(t *testing.T) {
	tab, err := TableFromCounts([]Count{{"orig@1", 57, 500}, {"orig@2", 74, 500}, {"fix", 8, 444}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Counts(); !reflect.DeepEqual(got, []Count{{"orig", 131, 1000}, {"fix", 8, 444}}) {
		t.Errorf("Counts = %v", got)
	}
	if got := tab.RunCounts("orig"); len(got) != 2 || got[1] != (Count{"orig@2", 74, 500}) {
		t.Errorf("RunCounts = %v", got)
	}
	bad := [][]Count{
		{{"a", 1, 2}, {"a", 1, 2}},
		{{"a", 1, 2}, {"a@1", 1, 2}},
		{{"a@1", 1, 2}, {"a", 1, 2}},
		{{"a", 3, 2}},
	}
	for _, b := range bad {
		if _, err := TableFromCounts(b); err == nil {
			t.Errorf("TableFromCounts(%v): no error", b)
		}
	}
}

func TestReorder(t *testing.T) {
	tab, _ := TableFromCounts([]Count{{"b@1", 1, 2}, {"a@1", 1, 3}, {"c", 0, 4}, {"b@2", 2, 5}})
	got := tab.Reorder([]string{"c", "a", "zzz", "a"})
	var names []string
	for _, r := range got.Variants {
		names = append(names, r.Name())
	}
	for _, r := range got.Runs {
		names = append(names, r.Name())
	}
	if want := []string{"c", "a", "b", "a@1", "b@1", "b@2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Reorder = %v, want %v", names, want)
	}
	if tab.Variants[0].Variant != "b" {
		t.Error("Reorder changed its receiver")
	}
}
