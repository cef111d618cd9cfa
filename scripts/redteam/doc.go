// Package redteam holds the test that runs scripts/redteam.sh, issue 36's
// red team of weft's seal, in CI: hostile probes (c/probe.c, goprobe)
// run as weft nodes and judged from the host side. sealed.txt lists the
// probes known to be sealed; the test fails when one of them is open.
package redteam
