package main

import "fmt"

var A = f()

var tbl = map[string]int{"x": 2}

func f() int { return tbl["x"] }

func main() { fmt.Println(A) }
