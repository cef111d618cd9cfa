package main

import (
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// registry returns the Go invariants and predicates models may reference
// as "go:NAME".
func registry() model.Registry {
	return model.Registry{}
}

// preconditions returns the Go fault preconditions models may reference.
func preconditions() map[string]mcsdk.FaultPrecondition {
	return map[string]mcsdk.FaultPrecondition{}
}
