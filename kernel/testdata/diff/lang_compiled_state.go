package main

import "fmt"

// Package vars declared by a cell that runs compiled (it declares a
// generic function), then cells of main's statements that use them (so
// they run compiled too): each sees the vars' current values, and the
// initialisers and the init function run once, as in one Go program.

func Sum[T ~int | ~float64](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func loud(n int) int {
	fmt.Println("initialiser ran")
	return n
}

var total = Sum([]int{loud(1), 2})

var trail []string

func init() { trail = append(trail, "init") }

type stats struct {
	N    int
	Mean float64
}

var last = stats{}

var double = func(x int) int { return Sum([]int{x, x}) }

var seen = map[string]int{}

func main() {
	total += 10
	trail = append(trail, "a")
	seen["a"]++
	// cell
	fmt.Println(total, trail, seen)
	last = stats{N: 2, Mean: Sum([]float64{1.5, 2.5}) / 2}
	seen["b"] += 2
	// cell
	fmt.Println(total, trail, last, double(total), seen)
	total = double(total)
	// cell
	fmt.Println(total, last.N, len(seen))
}
