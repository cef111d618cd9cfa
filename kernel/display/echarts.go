package display

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/weft-mc/weft/analysis/charts"
)

// EChart is a go-echarts chart (charts.NewBar() and the others): it
// validates its options and gives them as a map.
type EChart = interface {
	Validate()
	JSON() map[string]any
}

// ECharts renders a go-echarts chart for a notebook, offline: the echarts
// library weft's charts use (build/js, see analysis/charts.LoadLibrary) is
// inlined once per page instead of go-echarts' page that loads it from
// the network. A go-echarts chart that is a cell's last value renders this
// way by itself.
func ECharts(c EChart) Data {
	c.Validate()
	opt, err := json.Marshal(c.JSON())
	if err != nil {
		return MakeData(MIMETypeText, "display: echarts option: "+err.Error())
	}
	lib, err := charts.LoadLibrary()
	if err != nil {
		return MakeData3(MIMETypeHTML, "display: "+err.Error(),
			`<div style="color:#b00020;font-family:monospace;">`+html.EscapeString(err.Error())+`</div>`)
	}
	js := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(string(opt))
	sum := sha256.Sum256(opt)
	id := "weft-echarts-" + hex.EncodeToString(sum[:6])
	var b strings.Builder
	b.WriteString(lib.GuardedScript())
	fmt.Fprintf(&b, `<div class="weft-chart" id="%s" data-weft-chart="echarts" style="width:%dpx;height:%dpx;"></div>`+"\n",
		id, charts.DefaultWidth, charts.DefaultHeight)
	fmt.Fprintf(&b, echartsJS, id, js)
	return MakeData3(MIMETypeHTML, "echarts chart "+id, b.String())
}

// echartsJS draws option %[2]s into the element before the script (or the
// one with id %[1]q), retrying briefly until echarts is there.
const echartsJS = `<script type="text/javascript">
(function () {
  var self = document.currentScript, option = %[2]s;
  function draw(tries) {
    var prev = self && self.previousElementSibling;
    var el = (prev && prev.id === %[1]q) ? prev : document.getElementById(%[1]q);
    if (!el || !window.echarts) {
      if (tries < 100) { setTimeout(function () { draw(tries + 1); }, 50); }
      return;
    }
    (window.echarts.getInstanceByDom(el) || window.echarts.init(el, null, {renderer: "canvas"})).setOption(option, true);
  }
  draw(0);
})();
</script>
`
