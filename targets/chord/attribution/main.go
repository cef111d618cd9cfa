// Command attribution prints the analysis of issue 21 for the Chord target
// (targets/chord/README.md, "Beyond the seed") from the datasets of
// chord-attribution.model and chord-perfect.model, as Markdown tables (or
// JSON), and writes the attribution chart as an offline HTML page.
//
//	go run ./targets/chord/attribution [--perfect DIR] [--chart FILE] [--json] DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "attribution:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("attribution", flag.ContinueOnError)
	fs.SetOutput(stderr)
	perfect := fs.String("perfect", "", "the dataset of chord-perfect.model (variants orig, fix1, fix2)")
	chart := fs.String("chart", "", "write the attribution chart (offline HTML) to this file")
	asJSON := fs.Bool("json", false, "print the analysis as JSON")
	markdown := fs.String("markdown", "", "also write the analysis as Markdown to this file")
	section := fs.String("section", "", "write the analysis as a weft report section (HTML) to this file, for weft report --section")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attribution [--perfect DIR] [--chart FILE] [--section FILE] [--markdown FILE] [--json] DIR\n\nthe 16-mask attribution, intention-to-treat comparison and perfect-detection rates of the Chord target\n\nflags (before or after the argument):")
		fs.PrintDefaults()
	}
	var dirs []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(dirs) != 1 {
		fs.Usage()
		return fmt.Errorf("want one dataset directory, got %d", len(dirs))
	}
	a, err := chordcheck.Attribute(dirs[0], *perfect)
	if err != nil {
		return err
	}
	if *chart != "" {
		cs, err := a.Charts()
		if err != nil {
			return err
		}
		p := &charts.Page{Title: "Chord: which liveness check does what (issue 21)", Charts: cs}
		if err := p.WriteFile(*chart); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", *chart)
	}
	if *section != "" {
		html, err := a.ReportSection()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*section, []byte(html), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", *section)
	}
	if *markdown != "" {
		if err := os.WriteFile(*markdown, []byte(a.Markdown()), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", *markdown)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	}
	_, err = io.WriteString(stdout, a.Markdown())
	return err
}
