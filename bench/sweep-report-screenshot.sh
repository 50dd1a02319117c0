#!/bin/sh
# Render a saved layout-sweep result (--json) as HTML and screenshot it in
# headless Chromium, to look at the plot by eye.
#   usage: bench/sweep-report-screenshot.sh result.json out.png [WxH]
# Needs chromium (Debian package) and layout-sweep-report on PATH or in
# ${KEEL_BUILD:-build}/bin. Not part of CI; the lit test
# test/tools/layout-sweep/report-chromium.test checks the same rendering.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 result.json out.png [WxH]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tool=$(command -v layout-sweep-report || echo "${KEEL_BUILD:-$top/build}/bin/layout-sweep-report")
command -v chromium >/dev/null || { echo "$0: chromium is not installed" >&2; exit 3; }
size=${3:-1200x900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
"$tool" "$1" --quiet --html="$tmp/report.html" || status=$?
[ "$status" -le 1 ] || exit "$status"   # 1 = the gate failed; still render
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --screenshot="$2" \
  --window-size="$(echo "$size" | tr x ,)" "file://$tmp/report.html" 2>/dev/null
echo "$2: $(wc -c < "$2") bytes"
