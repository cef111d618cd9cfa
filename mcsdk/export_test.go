package mcsdk

// PlainGuided turns the guided strategy's guidance off in opts: every
// execution a fresh seeded run (the baseline its tests compare with).
func PlainGuided(opts *CheckOptions) { opts.plainGuided = true }
