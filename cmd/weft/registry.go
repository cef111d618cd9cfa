package main

import "github.com/weft-mc/weft/mcsdk/model"

// registry returns the Go invariants and predicates models may reference
// as "go:NAME".
func registry() model.Registry {
	return model.Registry{}
}
