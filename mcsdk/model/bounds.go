package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Bounds are the model's [bounds]: the most one node may hold at once,
// beyond which its run ends with verdict error naming the node and the
// bound (issue 36, §4). Zero: weft's default (the supervisor's
// DefaultMaxTasks, DefaultMaxFDs, DefaultMaxMemory).
//
//	[bounds]
//	tasks = 512            # live processes and threads
//	descriptors = 4096     # open descriptors of one process
//	memory = "2GiB"        # bytes of memory (a count or "N[KMGT]iB")
type Bounds struct {
	Tasks       int
	Descriptors int
	Memory      int64
}

// boundKeys are the keys of [bounds], with the least and most each may be.
var boundKeys = []struct {
	key      string
	min, max int64
}{
	{"tasks", 2, 1 << 16},
	{"descriptors", 16, 1 << 20},
	{"memory", 16 << 20, 1 << 50},
}

// bounds decodes [bounds], once, at load.
func (p *parser) bounds() {
	t := p.table("bounds")
	if t == nil {
		return
	}
	allowed := make([]string, len(boundKeys))
	for i, k := range boundKeys {
		allowed[i] = k.key
	}
	p.checkKeys("bounds", t, allowed...)
	for _, k := range boundKeys {
		v, ok := p.boundValue(t, k.key)
		if !ok {
			continue
		}
		if v < k.min || v > k.max {
			p.errAt(p.loc.valPos("bounds."+k.key), "bounds.%s must be between %d and %d, not %d", k.key, k.min, k.max, v)
			continue
		}
		switch k.key {
		case "tasks":
			p.m.Bounds.Tasks = int(v)
		case "descriptors":
			p.m.Bounds.Descriptors = int(v)
		case "memory":
			p.m.Bounds.Memory = v
		}
	}
}

// boundValue reads bounds.key: an integer, or for memory also a size
// string ("512MiB").
func (p *parser) boundValue(t map[string]any, key string) (int64, bool) {
	v, present := t[key]
	s, isString := v.(string)
	_, isInt := v.(int64)
	switch {
	case !present:
		return 0, false
	case key != "memory":
		return p.getInt(t, "bounds", key)
	case !isString && !isInt:
		p.errAt(p.loc.valPos("bounds."+key), "bounds.memory must be an integer or a size such as \"2GiB\", not %s", tomlType(t[key]))
		return 0, false
	case isInt:
		return p.getInt(t, "bounds", key)
	}
	n, err := ParseSize(s)
	if err != nil {
		p.errAt(p.loc.valPos("bounds."+key), "bounds.%s: %v", key, err)
		return 0, false
	}
	return n, true
}

// sizeUnits are ParseSize's suffixes, upper case, longest first. K, M, G
// and T (with or without B) are binary too, as in 512M or 2GB.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{
	{"TIB", 40}, {"GIB", 30}, {"MIB", 20}, {"KIB", 10},
	{"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10},
	{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0},
}

// ParseSize reads a size in bytes: a count with an optional binary unit
// (B, KiB, MiB, GiB, TiB, or K, M, G, T with or without a B; any case),
// as "2GiB", "512 MiB" or "512M". It is the one size syntax of weft: the
// model's bounds, the CLI's size flags and the kernel's WEFT_CELL_MEMORY.
func ParseSize(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	upper := strings.ToUpper(num)
	for _, u := range sizeUnits {
		if strings.HasSuffix(upper, u.suffix) {
			num, shift = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q is not a size (a count of bytes, or N with a unit: KiB, MiB, GiB, TiB or K, M, G, T)", s)
	}
	return n << shift, nil
}
