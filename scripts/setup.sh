#!/bin/sh
# Install everything Keel needs on Debian bookworm (as root; only the Debian
# archive is needed). Skips apt when every package is already installed.
# chromium: headless rendering checks of layout-sweep's HTML report
# (test/tools/layout-sweep/report-chromium*.test need it; lit's "chromium"
# feature is present when it is on PATH).
# slurmctld slurmd slurm-client munge: layout-sweep --executor=slurm, tested
# against a private one-node cluster (test/Inputs/slurm-cluster.py).
# libzstd-dev: the perf.data reader decompresses the records of
# `perf record -z` files (and the writer's --compress writes them).
set -eu
PKGS="cmake ninja-build clang-22 lld-22 llvm-22-dev llvm-22-tools bolt-22 \
libclang-rt-22-dev libpfm4-dev libfmt-dev valgrind googletest libgtest-dev \
binutils linux-perf python3 file time chromium \
slurmctld slurmd slurm-client munge libzstd-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "keel setup: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing
fi
