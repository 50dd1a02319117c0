"""Add a measuring script to a layout-sweep HTML report: measure-report.py IN OUT.

Headless Chromium (--dump-dom) runs the script after layout; it writes one
line per finding into <pre id="measured">, for FileCheck:
  viewport W                      the layout viewport's width (px)
  title inside|CLIPPED left= right=   the chart title against the viewport
  svg texts clipped N             SVG text boxes outside the chart or viewport
  label NAME                      each series' legend label (before ':')
  labels distinct|SAME N          whether the series labels differ
"""
import sys

SCRIPT = r"""<script>
(function () {
  var out = [], vw = document.documentElement.clientWidth;
  function box(e) { return e.getBoundingClientRect(); }
  out.push('viewport ' + vw);
  var t = box(document.querySelector('svg text.chart-title'));
  out.push('title ' + (t.left >= 0 && t.right <= vw ? 'inside' : 'CLIPPED') +
           ' left=' + Math.round(t.left) + ' right=' + Math.round(t.right));
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
  out.push('labels ' + (new Set(labels).size == labels.length ? 'distinct' : 'SAME') +
           ' ' + labels.length);
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
