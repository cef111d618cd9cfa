package main

import "fmt"

func counter() func() int {
	n := 0
	return func() int { n++; return n }
}

func main() {
	c := counter()
	c()
	c()
	fmt.Println(c())
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i * i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
