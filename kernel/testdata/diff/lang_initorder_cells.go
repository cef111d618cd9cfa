package main

import "fmt"

var total = sum(weights)

var weights = []int{1, 2, 3}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// cell

var doubled = total * 2

func main() { fmt.Println(total, doubled) }
