"""Add a measuring script to a layout-sweep HTML report: measure-report.py IN OUT.

Headless Chromium (--dump-dom) runs the script after layout; it writes one
line per finding into <pre id="measured">, for FileCheck:
  viewport W                      the layout viewport's width (px)
  title inside|CLIPPED left= right=   the chart title against the viewport
  svg texts clipped N             SVG text boxes outside the chart or viewport
  label NAME                      each series' legend label (before ':')
  labels distinct|SAME N          whether the series labels differ
  provenance shown|MISSING rows N the provenance block laid out, its rows
  legend shown|MISSING lines N    the first chart's legend laid out, its lines
  timeline legends N entries M    the LBR time line's legends (one per chart)
  timeline colours per function N the most fills one function has across charts
A page without some of these (a time line has no sweep chart) skips them.
"""
import sys

SCRIPT = r"""<script>
(function () {
  var out = [], vw = document.documentElement.clientWidth;
  function box(e) { return e.getBoundingClientRect(); }
  function shown(e) { if (!e) return false; var b = box(e); return b.width > 0 && b.height > 0; }
  out.push('viewport ' + vw);
  var te = document.querySelector('svg text.chart-title');
  if (te) {
  var t = box(te);
  out.push('title ' + (t.left >= 0 && t.right <= vw ? 'inside' : 'CLIPPED') +
           ' left=' + Math.round(t.left) + ' right=' + Math.round(t.right));
  }
  var svg = box(document.querySelector('svg')), clipped = 0;
  document.querySelectorAll('svg text').forEach(function (e) {
    var b = box(e);
    if (b.left < Math.max(svg.left, 0) - 0.5 || b.right > Math.min(svg.right, vw) + 0.5) {
      clipped++;
      out.push('clipped: ' + e.textContent);
    }
  });
  out.push('svg texts clipped ' + clipped);
  var labels = [];
  document.querySelectorAll('svg text.series-label').forEach(function (e) {
    labels.push(e.textContent.split(':')[0]);
  });
  labels.forEach(function (l) { out.push('label ' + l); });
  if (te)
  out.push('labels ' + (new Set(labels).size == labels.length ? 'distinct' : 'SAME') +
           ' ' + labels.length);
  var prov = document.querySelector('details.provenance');
  if (te)
    out.push('provenance ' + (shown(prov) ? 'shown' : 'MISSING') + ' rows ' +
             (prov ? prov.querySelectorAll('tr').length : 0));
  var legend = document.querySelector('svg g.legend');
  if (te)
    out.push('legend ' + (shown(legend) ? 'shown' : 'MISSING') + ' lines ' +
             (legend ? legend.querySelectorAll('text').length : 0));
  var tls = document.querySelectorAll('svg g.timeline-legend');
  if (tls.length) {
    var entries = 0, fills = {}, most = 0;
    tls.forEach(function (g) { if (shown(g)) entries += g.querySelectorAll('text').length; });
    out.push('timeline legends ' + tls.length + ' entries ' + entries);
    document.querySelectorAll('svg rect').forEach(function (r) {
      var title = r.querySelector('title');
      if (!title) return;
      var f = title.textContent.split(' window ')[0];
      (fills[f] = fills[f] || new Set()).add(r.getAttribute('fill'));
    });
    Object.keys(fills).forEach(function (f) { most = Math.max(most, fills[f].size); });
    out.push('timeline colours per function ' + most);
  }
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();
</script>
"""

html = open(sys.argv[1], encoding="utf-8").read()
if "</body>" not in html:
    sys.exit("measure-report.py: no </body> in " + sys.argv[1])
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(html.replace("</body>", SCRIPT + "</body>"))
