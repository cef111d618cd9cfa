package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a size in bytes, written as a number with
// an optional binary unit: 512M, 2G, 64K, 1048576.
type byteSize struct{ n int64 }

func (b *byteSize) String() string {
	if b == nil || b.n == 0 {
		return ""
	}
	for _, u := range []struct {
		s     string
		shift uint
	}{{"G", 30}, {"M", 20}, {"K", 10}} {
		if b.n%(1<<u.shift) == 0 {
			return strconv.FormatInt(b.n>>u.shift, 10) + u.s
		}
	}
	return strconv.FormatInt(b.n, 10)
}

func (b *byteSize) Set(s string) error {
	shift := uint(0)
	num := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	if num != "" {
		switch num[len(num)-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		}
	}
	if shift > 0 {
		num = num[:len(num)-1]
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)>>shift {
		return fmt.Errorf("want a positive size, e.g. 512M or 2G")
	}
	b.n = v << shift
	return nil
}
