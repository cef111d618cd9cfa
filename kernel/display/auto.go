package display

import (
	"fmt"
	"image"
	"io"
	"reflect"
	"strings"
)

// Auto renders v through every rendering interface it implements (Data,
// Renderer, SimpleRenderer, HTMLer, Markdowner, SVGer, PNGer, JPEGer,
// JSONer, Latexer, JavaScripter, PDFer, image.Image), always adding a
// text/plain fallback of fmt.Sprint(v). A nil v gives an empty Data.
func Auto(v any) Data {
	if v == nil {
		return Data{}
	}
	if d, ok := v.(Data); ok {
		return ensureText(d, "")
	}
	return Merge(v)
}

// Merge renders v through the interfaces it implements on the host side,
// then lays parts over the result (later parts win), and adds fmt.Sprint(v)
// as the text/plain fallback. The kernel calls it with the representations
// it found inside the interpreter, where methods of interpreted types are
// visible (host-side reflection cannot see them).
func Merge(v any, parts ...Data) Data {
	if c, ok := v.(EChart); ok && isGoECharts(v) {
		return ECharts(c)
	}
	d := methods{}.from(v).build()
	for _, p := range parts {
		d.Data = merge(d.Data, p.Data)
		d.Metadata = merge(d.Metadata, p.Metadata)
		d.Transient = merge(d.Transient, p.Transient)
	}
	if len(d.Transient) == 0 {
		d.Transient = nil
	}
	if len(d.Metadata) == 0 {
		d.Metadata = nil
	}
	if len(d.Data) == 0 || onlyText(d.Data) {
		// Tabular values without a representation of their own.
		if g, ok := gridOf(v, TableRows, false); ok {
			return g.data()
		}
	}
	return ensureText(d, fmt.Sprint(v))
}

// isGoECharts reports whether v is one of go-echarts' chart types.
func isGoECharts(v any) bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.HasPrefix(t.PkgPath(), "github.com/go-echarts/go-echarts/")
}

// onlyText reports whether m holds nothing but text/plain.
func onlyText(m MIMEMap) bool {
	_, ok := m[MIMETypeText]
	return ok && len(m) == 1
}

// Any renders data as mimeType: strings and byte slices become that type
// (bytes detected when mimeType is empty); other values go through Auto.
func Any(mimeType string, data any) Data {
	switch v := data.(type) {
	case string:
		if mimeType == "" {
			mimeType = MIMETypeText
		}
		return MakeData(mimeType, v)
	case []byte:
		return Bytes(mimeType, v)
	case io.Reader:
		d, err := Reader(mimeType, v)
		if err != nil {
			return MakeData(MIMETypeText, "display: "+err.Error())
		}
		return d
	}
	return Auto(data)
}

// methods holds the rendering methods a value has, as plain functions.
type methods struct {
	Render       func() Data
	SimpleRender func() MIMEMap
	HTML         func() string
	Markdown     func() string
	SVG          func() string
	Latex        func() string
	JavaScript   func() string
	PNG          func() []byte
	JPEG         func() []byte
	PDF          func() []byte
	JSON         func() map[string]any
	Image        image.Image
}

// from fills m from the interfaces v implements on the host side.
func (m methods) from(v any) methods {
	if x, ok := v.(Renderer); ok {
		m.Render = x.Render
	}
	if x, ok := v.(SimpleRenderer); ok {
		m.SimpleRender = x.SimpleRender
	}
	m.strings(v)
	m.bytes(v)
	if x, ok := v.(JSONer); ok {
		m.JSON = x.JSON
	}
	if x, ok := v.(image.Image); ok {
		m.Image = x
	}
	return m
}

func (m *methods) strings(v any) {
	if x, ok := v.(HTMLer); ok {
		m.HTML = x.HTML
	}
	if x, ok := v.(Markdowner); ok {
		m.Markdown = x.Markdown
	}
	if x, ok := v.(SVGer); ok {
		m.SVG = x.SVG
	}
	if x, ok := v.(Latexer); ok {
		m.Latex = x.Latex
	}
	if x, ok := v.(JavaScripter); ok {
		m.JavaScript = x.JavaScript
	}
}

func (m *methods) bytes(v any) {
	if x, ok := v.(PNGer); ok {
		m.PNG = x.PNG
	}
	if x, ok := v.(JPEGer); ok {
		m.JPEG = x.JPEG
	}
	if x, ok := v.(PDFer); ok {
		m.PDF = x.PDF
	}
}

// build calls every method present and merges the results.
func (m methods) build() Data {
	var d Data
	if m.Render != nil {
		d = m.Render()
	}
	d.Data = merge(d.Data, nil)
	if m.SimpleRender != nil {
		d.Data = merge(d.Data, m.SimpleRender())
	}
	for mime, f := range map[string]func() string{
		MIMETypeHTML: m.HTML, MIMETypeMarkdown: m.Markdown, MIMETypeSVG: m.SVG,
		MIMETypeLatex: m.Latex, MIMETypeJavaScript: m.JavaScript,
	} {
		if f != nil {
			d.Data[mime] = f()
		}
	}
	for mime, f := range map[string]func() []byte{MIMETypePNG: m.PNG, MIMETypeJPEG: m.JPEG, MIMETypePDF: m.PDF} {
		if f != nil {
			d.Data[mime] = f()
		}
	}
	if m.JSON != nil {
		d.Data[MIMETypeJSON] = m.JSON()
	}
	if m.Image != nil {
		if img, err := Image(m.Image); err == nil {
			d.Data[MIMETypePNG] = img.Data[MIMETypePNG]
			d.Metadata = merge(d.Metadata, img.Metadata)
		}
	}
	return d
}

// merge copies b's entries over a's into a new map.
func merge(a, b MIMEMap) MIMEMap {
	out := make(MIMEMap, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
