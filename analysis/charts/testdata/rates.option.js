// id weft-rates-7ae2a86c5620
{"animation":false,"color":["#5470c6","#91cc75","#fac858","#ee6666","#73c0de","#3ba272","#fc8452","#9a60b4","#ea7ccc"],"grid":[{"left":"64","top":"56","right":"64","bottom":"72","containLabel":true}],"legend":{"type":"scroll","show":true,"bottom":"0"},"series":[{"barWidth":"45%","data":[{"label":{"color":"#1b1f24","formatter":"0/100","position":"top","show":true},"name":"correct","value":0},{"label":{"formatter":"31/100","position":"insideBottom","show":true},"name":"bug","value":0.31},{"label":{"formatter":"7/100","position":"insideBottom","show":true},"name":"bug-\u003cb\u003e\u0026co","value":0.07}],"itemStyle":{"color":"#5470c6"},"name":"violation rate","type":"bar"},{"data":[{"value":[0,0,0.0362,0,0,100]},{"value":[1,0.2264,0.4085,0.31,31,100]},{"value":[2,0.0343,0.1375,0.07,7,100]}],"encode":{"x":0,"y":[1,2]},"itemStyle":{"color":"#333333"},"name":"violation rate","renderItem":function (params, api) {
  var x = api.value(0);
  var lo = api.coord([x, api.value(1)]);
  var hi = api.coord([x, api.value(2)]);
  var half = api.size([1, 0])[0] * 0.12;
  var style = {stroke: api.visual("color"), lineWidth: 1.5, fill: null};
  return {type: "group", children: [
    {type: "line", shape: {x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1]}, style: style},
    {type: "line", shape: {x1: lo[0] - half, y1: lo[1], x2: lo[0] + half, y2: lo[1]}, style: style},
    {type: "line", shape: {x1: hi[0] - half, y1: hi[1], x2: hi[0] + half, y2: hi[1]}, style: style}
  ]};
},"type":"custom","z":10}],"title":{"left":"left","text":"Violation rate by variant","textStyle":{"fontSize":14}},"tooltip":{"formatter":function (ps) {
  var enc = window.echarts.format.encodeHTML;
  if (!Array.isArray(ps)) { ps = [ps]; }
  var out = ps.length ? enc(String(ps[0].axisValueLabel || ps[0].name || "")) : "";
  for (var i = 0; i < ps.length; i++) {
    var p = ps[i];
    if (p.seriesType !== "custom") { continue; }
    var v = p.value;
    out += "<br/>" + p.marker + enc(p.seriesName) + ": " + v[3].toFixed(4) +
      " [" + v[1].toFixed(4) + ", " + v[2].toFixed(4) + "], " + v[4] + " of " + v[5] + " runs";
  }
  return out;
},"trigger":"axis"},"xAxis":[{"data":["correct","bug","bug-\u003cb\u003e\u0026co"]}],"yAxis":[{"name":"violation rate","min":0}]}
