// Package display builds rich outputs for weft's Jupyter kernel. Its API is
// compatible with gophernotes's display package, so notebooks written for
// gophernotes render the same:
//
//	display.HTML("<b>hi</b>")     // as a cell's last value, or
//	display.Display(display.Markdown("# title"))
//
// A Data holds one representation per MIME type; text/plain is always
// present as the fallback. Values whose types have HTML(), Markdown(),
// SVG(), PNG(), JPEG(), JSON(), Latex(), JavaScript(), PDF(), Render() or
// SimpleRender() methods render through them (see Auto).
//
// Display, Update, Show and NewProgress talk to the kernel. The kernel binds
// them to the running cell; in an ordinary Go program they print the
// text/plain form to standard output.
package display

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"strings"
)

// MIME types understood by Jupyter front ends.
const (
	MIMETypeHTML       = "text/html"
	MIMETypeJavaScript = "application/javascript"
	MIMETypeJPEG       = "image/jpeg"
	MIMETypeJSON       = "application/json"
	MIMETypeLatex      = "text/latex"
	MIMETypeMarkdown   = "text/markdown"
	MIMETypePNG        = "image/png"
	MIMETypePDF        = "application/pdf"
	MIMETypeSVG        = "image/svg+xml"
	MIMETypeText       = "text/plain"
)

// MIMEMap maps a MIME type to its representation: a string, a []byte
// (sent base64-encoded) or any JSON-encodable value.
type MIMEMap = map[string]any

// Data is one rich output: the representations, their metadata, and
// transient fields such as display_id (see WithID).
type Data = struct {
	Data      MIMEMap
	Metadata  MIMEMap
	Transient MIMEMap
}

// Renderer is implemented by values that choose every representation.
type Renderer = interface{ Render() Data }

// SimpleRenderer is implemented by values that give a MIMEMap.
type SimpleRenderer = interface{ SimpleRender() MIMEMap }

// Interfaces for one MIME type each. They are aliases: only the method
// signature matters, so libraries implement them without importing display.
type (
	HTMLer       = interface{ HTML() string }
	JavaScripter = interface{ JavaScript() string }
	JPEGer       = interface{ JPEG() []byte }
	JSONer       = interface{ JSON() map[string]any }
	Latexer      = interface{ Latex() string }
	Markdowner   = interface{ Markdown() string }
	PNGer        = interface{ PNG() []byte }
	PDFer        = interface{ PDF() []byte }
	SVGer        = interface{ SVG() string }
)

// MakeData returns data as mimeType with a text/plain fallback of fmt.Sprint(data).
func MakeData(mimeType string, data any) Data {
	d := Data{Data: MIMEMap{mimeType: data}}
	if mimeType != MIMETypeText {
		d.Data[MIMETypeText] = plainOf(data)
	}
	return d
}

// MakeData3 returns data as mimeType with the given text/plain fallback.
func MakeData3(mimeType, plaintext string, data any) Data {
	return Data{Data: MIMEMap{MIMETypeText: plaintext, mimeType: data}}
}

// plainOf is the text/plain fallback: strings as they are, bytes by size.
func plainOf(data any) string {
	switch v := data.(type) {
	case string:
		return v
	case []byte:
		return fmt.Sprintf("[%d bytes]", len(v))
	}
	return fmt.Sprint(data)
}

// HTML returns an HTML fragment.
func HTML(html string) Data { return MakeData(MIMETypeHTML, html) }

// Markdown returns Markdown text.
func Markdown(markdown string) Data { return MakeData(MIMETypeMarkdown, markdown) }

// SVG returns an SVG image.
func SVG(svg string) Data { return MakeData(MIMETypeSVG, svg) }

// PNG returns an encoded PNG image.
func PNG(png []byte) Data { return MakeData(MIMETypePNG, png) }

// JPEG returns an encoded JPEG image.
func JPEG(jpeg []byte) Data { return MakeData(MIMETypeJPEG, jpeg) }

// PDF returns an encoded PDF document.
func PDF(pdf []byte) Data { return MakeData(MIMETypePDF, pdf) }

// JSON returns a JSON document.
func JSON(json map[string]any) Data { return MakeData(MIMETypeJSON, json) }

// JavaScript returns JavaScript for the front end to run.
func JavaScript(javascript string) Data { return MakeData(MIMETypeJavaScript, javascript) }

// Javascript is JavaScript under gophernotes's name.
func Javascript(javascript string) Data { return JavaScript(javascript) }

// Latex returns inline LaTeX math, shown as $latex$.
func Latex(latex string) Data {
	return MakeData3(MIMETypeLatex, latex, "$"+strings.Trim(latex, "$")+"$")
}

// Math returns display LaTeX math, shown as $$latex$$.
func Math(latex string) Data {
	return MakeData3(MIMETypeLatex, latex, "$$"+strings.Trim(latex, "$")+"$$")
}

// MIME wraps data and metadata maps into a Data, adding text/plain if missing.
func MIME(data, metadata MIMEMap) Data {
	d := Data{Data: data, Metadata: metadata}
	return ensureText(d, "")
}

// String returns s as mimeType.
func String(mimeType, s string) Data { return MakeData(mimeType, s) }

// Bytes returns b as mimeType, detecting the type when mimeType is empty.
func Bytes(mimeType string, b []byte) Data {
	if mimeType == "" {
		mimeType = http.DetectContentType(b)
	}
	return MakeData(mimeType, b)
}

// Reader reads r to the end and returns it as mimeType (detected if empty).
func Reader(mimeType string, r io.Reader) (Data, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Data{}, err
	}
	return Bytes(mimeType, b), nil
}

// File reads path and returns it as mimeType (detected if empty).
func File(mimeType, path string) (Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Data{}, err
	}
	return Bytes(mimeType, b), nil
}

// Image encodes img as PNG, with its size as metadata.
func Image(img image.Image) (Data, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Data{}, err
	}
	b := img.Bounds()
	d := MakeData3(MIMETypePNG, fmt.Sprintf("image %dx%d", b.Dx(), b.Dy()), buf.Bytes())
	d.Metadata = MIMEMap{MIMETypePNG: map[string]any{"width": b.Dx(), "height": b.Dy()}}
	return d, nil
}

// WithID returns d carrying display id id, so a later Update(id, …)
// replaces it in place.
func WithID(id string, d Data) Data {
	t := MIMEMap{}
	for k, v := range d.Transient {
		t[k] = v
	}
	t["display_id"] = id
	d.Transient = t
	return d
}

// ID returns d's display id, or "".
func ID(d Data) string {
	id, _ := d.Transient["display_id"].(string)
	return id
}

// ensureText adds a text/plain representation if d lacks one.
func ensureText(d Data, fallback string) Data {
	if d.Data == nil {
		d.Data = MIMEMap{}
	}
	if s, ok := d.Data[MIMETypeText].(string); !ok || s == "" {
		d.Data[MIMETypeText] = fallback
	}
	return d
}
