package main

import (
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// registry returns the Go invariants models may reference as "go:NAME".
func registry() model.Registry {
	r := model.Registry{}
	for name, f := range chordcheck.Registry() {
		r[name] = f
	}
	return r
}

// preconditions returns the Go fault preconditions models may reference.
func preconditions() map[string]mcsdk.FaultPrecondition {
	return map[string]mcsdk.FaultPrecondition{
		"CrashPrecondition": chordcheck.CrashPrecondition,
	}
}
