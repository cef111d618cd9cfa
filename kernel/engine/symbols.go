package engine

import (
	"reflect"

	"github.com/weft-mc/weft/kernel/symbols"
)

// displaySymbols returns the generated table of the display package.
func displaySymbols() map[string]reflect.Value {
	t, ok := symbols.Exports()[DisplayPath+"/display"]
	if !ok {
		panic("engine: kernel/symbols lacks the display package; run kernel/gen_symbols.sh")
	}
	return t
}
