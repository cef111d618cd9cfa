package display

import (
	"bytes"
	"image"
	"image/color"
	"os"
	"strings"
	"testing"
)

func TestConstructors(t *testing.T) {
	tests := []struct {
		name  string
		d     Data
		mime  string
		value any
		plain string
	}{
		{"HTML", HTML("<b>x</b>"), MIMETypeHTML, "<b>x</b>", "<b>x</b>"},
		{"Markdown", Markdown("# t"), MIMETypeMarkdown, "# t", "# t"},
		{"SVG", SVG("<svg/>"), MIMETypeSVG, "<svg/>", "<svg/>"},
		{"JavaScript", JavaScript("1"), MIMETypeJavaScript, "1", "1"},
		{"Latex", Latex("x^2"), MIMETypeLatex, "$x^2$", "x^2"},
		{"Math", Math("$x^2$"), MIMETypeLatex, "$$x^2$$", "$x^2$"},
		{"String", String("text/csv", "a,b"), "text/csv", "a,b", "a,b"},
		{"MIME keeps data, adds empty text", MIME(MIMEMap{"text/csv": "a"}, nil), "text/csv", "a", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.d.Data[tc.mime] != tc.value {
				t.Errorf("%s = %v, want %v", tc.mime, tc.d.Data[tc.mime], tc.value)
			}
			if tc.d.Data[MIMETypeText] != tc.plain {
				t.Errorf("text/plain = %q, want %q", tc.d.Data[MIMETypeText], tc.plain)
			}
		})
	}
}

func TestBinaryConstructors(t *testing.T) {
	pngHeader := []byte("\x89PNG\r\n\x1a\n0000")
	tests := []struct {
		name string
		d    Data
		mime string
	}{
		{"PNG", PNG([]byte{1, 2}), MIMETypePNG},
		{"JPEG", JPEG([]byte{1, 2}), MIMETypeJPEG},
		{"PDF", PDF([]byte{1, 2}), MIMETypePDF},
		{"Bytes detects PNG", Bytes("", pngHeader), MIMETypePNG},
		{"Any of bytes", Any("", pngHeader), MIMETypePNG},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := tc.d.Data[tc.mime].([]byte); !ok {
				t.Errorf("no %s bytes in %v", tc.mime, tc.d.Data)
			}
			if s, _ := tc.d.Data[MIMETypeText].(string); !strings.HasSuffix(s, "bytes]") {
				t.Errorf("text/plain = %q, want a byte count", s)
			}
		})
	}
}

// card has rendering methods on the host side.
type card struct{ n int }

func (c card) HTML() string     { return "<i>card</i>" }
func (c card) Markdown() string { return "*card*" }
func (c card) PNG() []byte      { return []byte{0x89} }
func (c card) String() string   { return "card" }

func TestAutoUsesMethods(t *testing.T) {
	d := Auto(card{1})
	want := map[string]any{MIMETypeHTML: "<i>card</i>", MIMETypeMarkdown: "*card*", MIMETypeText: "card"}
	for k, v := range want {
		if d.Data[k] != v {
			t.Errorf("%s = %v, want %v", k, d.Data[k], v)
		}
	}
	if b, _ := d.Data[MIMETypePNG].([]byte); len(b) != 1 {
		t.Errorf("png = %v", d.Data[MIMETypePNG])
	}
	if got := Auto(42).Data[MIMETypeText]; got != "42" {
		t.Errorf("Auto(42) text = %v", got)
	}
	if len(Auto(nil).Data) != 0 {
		t.Error("Auto(nil) should be empty")
	}
}

func TestAutoImage(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.White)
	d := Auto(img)
	b, _ := d.Data[MIMETypePNG].([]byte)
	if !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("image not encoded as PNG: %v", d.Data)
	}
	meta, _ := d.Metadata[MIMETypePNG].(map[string]any)
	if meta["width"] != 3 || meta["height"] != 2 {
		t.Errorf("metadata %v", d.Metadata)
	}
}

func TestMergeLaterPartsWin(t *testing.T) {
	d := Merge(card{1},
		Data{Data: MIMEMap{MIMETypeText: "first", "text/csv": "a"}},
		Data{Data: MIMEMap{"text/csv": "b"}, Metadata: MIMEMap{"k": 1}})
	if d.Data["text/csv"] != "b" || d.Data[MIMETypeText] != "first" || d.Data[MIMETypeHTML] != "<i>card</i>" || d.Metadata["k"] != 1 {
		t.Fatalf("merged %+v", d)
	}
}

func TestWithID(t *testing.T) {
	d := HTML("x")
	e := WithID("id-1", d)
	if ID(e) != "id-1" || ID(d) != "" {
		t.Fatalf("ID(e)=%q ID(d)=%q: WithID must not modify its argument", ID(e), ID(d))
	}
}

// recorder is an Output that keeps what it receives.
type recorder struct {
	shown   []Data
	updated []string
}

func (r *recorder) Display(d Data) error { r.shown = append(r.shown, d); return nil }
func (r *recorder) Update(id string, d Data) error {
	r.updated = append(r.updated, id+"="+d.Data[MIMETypeText].(string))
	return nil
}

func TestBindShowAndUpdate(t *testing.T) {
	var r recorder
	f := Bind(&r)
	h := f.Show(Markdown("a"))
	if err := h.Update(Markdown("b")); err != nil {
		t.Fatal(err)
	}
	f.Update(h.ID, Markdown("c"))
	if len(r.shown) != 1 || ID(r.shown[0]) != h.ID || h.Err() != nil {
		t.Fatalf("shown %v", r.shown)
	}
	want := []string{h.ID + "=b", h.ID + "=c"}
	if strings.Join(r.updated, ",") != strings.Join(want, ",") {
		t.Fatalf("updates %v, want %v", r.updated, want)
	}
	if f.Show(HTML("x")).ID == h.ID {
		t.Fatal("display ids repeat")
	}
}

func TestProgressUpdatesOnPercentChange(t *testing.T) {
	var r recorder
	p := Bind(&r).NewProgress("seeds", 200)
	for i := 1; i <= 200; i++ {
		p.Set(i)
	}
	p.Add(0)
	if len(r.updated) != 100 {
		t.Fatalf("%d updates for 200 steps, want 100 (one per percent)", len(r.updated))
	}
	if last := r.updated[len(r.updated)-1]; last != p.ID()+"=seeds: 200/200 (100%)" {
		t.Fatalf("last update %q", last)
	}
	if !strings.Contains(r.shown[0].Data[MIMETypeHTML].(string), "<progress") {
		t.Fatalf("progress html %v", r.shown[0].Data)
	}
}

func TestProgressOfUnknownTotal(t *testing.T) {
	var r recorder
	p := Bind(&r).NewProgress("states", 0)
	for i := 1; i <= 1000; i++ {
		p.Set(i) // far faster than RefreshEvery: at most a few renders
	}
	p.Finish()
	if n := len(r.updated); n < 1 || n > 10 {
		t.Fatalf("%d updates", n)
	}
	if last := r.updated[len(r.updated)-1]; last != p.ID()+"=states: 1000" {
		t.Fatalf("last update %q", last)
	}
}

func TestEscape(t *testing.T) {
	if got := escape(`<a href="x">&</a>`); got != "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;" {
		t.Fatal(got)
	}
}

func TestFileAndReader(t *testing.T) {
	path := t.TempDir() + "/x.svg"
	os.WriteFile(path, []byte("<svg/>"), 0o644)
	d, err := File(MIMETypeSVG, path)
	if err != nil || string(d.Data[MIMETypeSVG].([]byte)) != "<svg/>" {
		t.Fatalf("File: %v %v", d.Data, err)
	}
	if _, err := File("", path+".missing"); err == nil {
		t.Fatal("missing file accepted")
	}
}

// Outside a kernel the output functions print the text/plain form.
func ExampleDisplay() {
	Display(Markdown("**bold**"))
	p := NewProgress("runs", 2)
	p.Set(2)
	// Output:
	// **bold**
	// runs: 0/2 (0%)
	// runs: 2/2 (100%)
}
