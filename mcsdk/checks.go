package mcsdk

import (
	"github.com/weft-mc/weft/mcsdk/gocheck"
	"github.com/weft-mc/weft/mcsdk/model"
)

// LoadChecks loads the Go invariants and fault preconditions a model's
// target.checks files define (package gocheck interprets them), for
// "go:NAME" references. A model without checks gives empty tables.
func LoadChecks(m *model.Model) (model.Registry, map[string]FaultPrecondition, error) {
	return loadChecks(m, gocheck.Auto, "")
}

// loadChecks is LoadChecks with the checks run as mode says, compiled
// ones cached in cacheDir ("": the default).
func loadChecks(m *model.Model, mode gocheck.Mode, cacheDir string) (model.Registry, map[string]FaultPrecondition, error) {
	c, err := gocheck.LoadCached(m.Checks, mode, cacheDir)
	if err != nil {
		return nil, nil, err
	}
	pre := make(map[string]FaultPrecondition, len(c.Preconditions))
	for name, f := range c.Preconditions {
		pre[name] = f
	}
	return c.Registry, pre, nil
}

// withChecks fills a nil registry and preconditions from the model's own
// checks, so that a model that names its Go checks needs nothing else;
// host says how they run (Host.Checks) and where compiled ones are cached
// (Host.Toolchain).
func withChecks(m *model.Model, host Host, reg *model.Registry, pre *map[string]FaultPrecondition) error {
	if len(m.Checks) == 0 || (*reg != nil && *pre != nil) {
		return nil
	}
	r, p, err := loadChecks(m, gocheck.Mode(host.Checks), host.Toolchain.CacheDir)
	if err != nil {
		return err
	}
	if *reg == nil {
		*reg = r
	}
	if *pre == nil {
		*pre = p
	}
	return nil
}
