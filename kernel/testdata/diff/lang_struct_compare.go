package main

import "fmt"

type key struct {
	a string
	b int
}

func main() {
	m := map[key]int{{"x", 1}: 10}
	m[key{"x", 1}]++
	fmt.Println(m[key{"x", 1}], key{"a", 1} == key{"a", 1})
	var i1, i2 any = key{"a", 1}, key{"a", 1}
	fmt.Println(i1 == i2)
	arr := [3]int{1, 2, 3}
	cp := arr
	cp[0] = 9
	fmt.Println(arr, cp, arr == [3]int{1, 2, 3})
}
