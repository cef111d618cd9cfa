package mcsdk

import (
	"debug/elf"
	"fmt"

	"github.com/weft-mc/weft/mcsdk/model"
)

// symbol is a declared global located in a target executable.
type symbol struct {
	v    model.StateVar
	addr uint64 // link-time address
	size int
}

// symbolTable locates the model's declared globals in an executable.
type symbolTable struct {
	pie  bool // addresses are relative to the load base
	syms []symbol
}

// readSymbols finds every declared global of m in the ELF file at path,
// checking that the declared type fits the symbol's size. A script ("#!")
// is read as its interpreter, which it runs as; a script has no declared
// globals.
func readSymbols(path string, vars []model.StateVar) (*symbolTable, error) {
	exe, _, err := resolveScript(path, nil)
	if err != nil {
		return nil, err
	}
	if exe != path && len(vars) > 0 {
		return nil, fmt.Errorf("%s is a script: it has no declared globals to read ([state]); read its state with a [[state.query]]", path)
	}
	f, err := elf.Open(exe)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s: not an x86-64 executable (%v)", path, f.Machine)
	}
	all, err := f.Symbols()
	if err != nil && len(vars) > 0 {
		return nil, fmt.Errorf("%s: no symbol table (was it stripped?): %v", path, err)
	}
	byName := map[string]elf.Symbol{}
	for _, s := range all {
		if elf.ST_TYPE(s.Info) == elf.STT_OBJECT || elf.ST_TYPE(s.Info) == elf.STT_TLS || elf.ST_TYPE(s.Info) == elf.STT_NOTYPE {
			if _, dup := byName[s.Name]; !dup {
				byName[s.Name] = s
			}
		}
	}
	t := &symbolTable{pie: f.Type == elf.ET_DYN}
	var minVaddr uint64 = ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr < minVaddr {
			minVaddr = p.Vaddr
		}
	}
	for _, v := range vars {
		s, ok := byName[v.Name]
		if !ok {
			return nil, fmt.Errorf("%s: declared global %q not found in %s (declare it at file scope, not static inline or optimised away)", v.Pos, v.Name, path)
		}
		if int(s.Size) < v.Type.Size() {
			return nil, fmt.Errorf("%s: global %q is %d bytes in %s, smaller than its declared type %s", v.Pos, v.Name, s.Size, path, v.Type)
		}
		addr := s.Value
		if t.pie {
			addr -= minVaddr
		}
		t.syms = append(t.syms, symbol{v: v, addr: addr, size: v.Type.Size()})
	}
	return t, nil
}
