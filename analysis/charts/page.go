package charts

import (
	"html"
	"os"
	"strings"
)

// ContentSecurityPolicy is the policy every standalone page carries: inline
// scripts and styles only, images only from data: and blob: URLs, and no
// fetch of any kind, so a page cannot reach the network even by mistake.
const ContentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:"

// CSPMeta is ContentSecurityPolicy as a <meta> element for a page's <head>.
const CSPMeta = `<meta http-equiv="Content-Security-Policy" content="` + ContentSecurityPolicy + `">`

// Page is a standalone HTML page holding several charts, with echarts inlined
// once in its head.
type Page struct {
	Title  string
	Charts []*Chart
}

// Render returns the page with lib inlined.
func (p *Page) Render(lib *Library) []byte {
	var body strings.Builder
	for _, c := range p.Charts {
		body.WriteString(c.Element())
	}
	return []byte(pageHTML(p.Title, lib.Script(), body.String()))
}

// Bytes is Render with the library found by LoadLibrary.
func (p *Page) Bytes() ([]byte, error) {
	lib, err := LoadLibrary()
	if err != nil {
		return nil, err
	}
	return p.Render(lib), nil
}

// WriteFile writes the page to path.
func (p *Page) WriteFile(path string) error {
	b, err := p.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func pageHTML(title, head, body string) string {
	t := html.EscapeString(title)
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" + CSPMeta + "\n" +
		"<title>" + t + "</title>\n" +
		"<style>body{font-family:sans-serif;margin:24px;color:#222;} .weft-chart{margin:12px 0 28px 0;}</style>\n" +
		head + "</head>\n<body>\n<h1 style=\"font-size:20px;\">" + t + "</h1>\n" + body + "</body>\n</html>\n"
}
