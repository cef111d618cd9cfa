package main

import "fmt"

// Package vars that interpreted statements change, then cells that run
// compiled (min and max are not in the interpreter): a compiled cell
// sees the current values, with their types, and does not run the
// initialisers again; what it changes or defines, later cells see.

func loud(n int) int {
	fmt.Println("initialiser ran")
	return n
}

var counter = loud(0)

type point struct{ X, Y int }

var origin = point{1, 2}

var hist = map[string][]int{"a": {1}}

type celsius float64

func main() {
	counter++
	counter++
	origin.X = 5
	hist["b"] = []int{2, 3}
	temp := celsius(21.5)
	// cell
	fmt.Println(min(counter, 10), origin, hist)
	fmt.Printf("%T %v\n", temp, max(temp, 30))
	// cell
	counter = max(counter, 7)
	origin.Y = min(origin.Y, -1)
	label := fmt.Sprint("n=", counter)
	// cell
	fmt.Println(counter, origin, label)
	counter++
	// cell
	fmt.Println(max(counter, 0), label)
}
