package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(2.5, 1), min("b", "a"), max(1, 2, 3))
	x, y := 7, 9
	fmt.Println(min(x, y), max(x, y))
}
