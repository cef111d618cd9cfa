package main

import (
	"fmt"
	"strconv"

	"github.com/weft-mc/weft/mcsdk/model"
)

// byteSize is a flag holding a size in bytes, written as a number with
// an optional binary unit in model.ParseSize's syntax: 512M, 2G, 64K,
// 1GiB, 1048576.
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
	n, err := model.ParseSize(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive size, e.g. 512M or 2G")
	}
	b.n = n
	return nil
}
