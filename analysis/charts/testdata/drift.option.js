// id weft-drift-936fb9948a2a
{"animation":false,"color":["#5470c6","#91cc75","#fac858","#ee6666","#73c0de","#3ba272","#fc8452","#9a60b4","#ea7ccc"],"grid":[{"left":"64","top":"56","right":"64","bottom":"72","containLabel":true}],"legend":{"bottom":0,"data":["bug","correct"],"show":true,"type":"scroll"},"series":[{"data":[{"value":0.28},{"value":0.31},{"value":0.35},{"value":0.3}],"itemStyle":{"color":"#5470c6"},"name":"bug","showSymbol":true,"symbol":"circle","symbolSize":7,"type":"line"},{"data":[{"value":[0,0.2,0.37,0.28,28,100]},{"value":[1,0.22999999999999998,0.4,0.31,31,100]},{"value":[2,0.26999999999999996,0.43999999999999995,0.35,35,100]},{"value":[3,0.21999999999999997,0.39,0.3,30,100]}],"encode":{"x":0,"y":[1,2]},"itemStyle":{"color":"#5470c6"},"name":"bug","renderItem":function (params, api) {
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
},"type":"custom","z":10},{"data":[{"value":0},{"value":0},{"value":0},{"value":0}],"itemStyle":{"color":"#91cc75"},"name":"correct","showSymbol":true,"symbol":"circle","symbolSize":7,"type":"line"},{"data":[{"value":[0,0,0.0362,0,0,100]},{"value":[1,0,0.0362,0,0,100]},{"value":[2,0,0.0362,0,0,100]},{"value":[3,0,0.0362,0,0,100]}],"encode":{"x":0,"y":[1,2]},"itemStyle":{"color":"#91cc75"},"name":"correct","renderItem":function (params, api) {
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
},"type":"custom","z":10}],"title":{"left":"left","text":"Violation rate across runs","textStyle":{"fontSize":14}},"tooltip":{"formatter":function (ps) {
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
},"trigger":"axis"},"xAxis":[{"type":"category","name":"run","nameLocation":"middle","nameGap":30,"data":["campaign-1","campaign-2","campaign-3","campaign-4"]}],"yAxis":[{"name":"violation rate","min":0}]}
