package main

import (
	"fmt"
	"sort"
	"strings"
)

func main() {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys, m)
	s := []int{5, 2, 8, 1}
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	fmt.Println(s, s[1:3], cap(s[1:3]))
	fmt.Println(strings.Fields(" a b  c "), strings.Repeat("ab", 3))
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&sb, "%d;", i)
	}
	fmt.Println(sb.String())
}
