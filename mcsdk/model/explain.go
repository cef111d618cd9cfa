package model

// explain says why n evaluates to want's opposite... placeholder.
func (c *evalCtx) explain(n *node, want bool) string {
	return c.text(n) + " is false"
}
