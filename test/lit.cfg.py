# lit configuration for Keel: tools, the pass plugin and end-to-end flows.
import os
import re
import shutil
import subprocess

import lit.formats

config.name = "Keel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".ll", ".c", ".s", ".yaml"]
config.excludes = ["Inputs", "unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.keel_obj_root, "test")

# Keel's tools first, then LLVM 22's (FileCheck, not, split-file, llvm-mc, ...).
config.environment["PATH"] = os.pathsep.join(
    [config.keel_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Sanitizer settings reach the tools of a KEEL_SANITIZE build (scripts/keel-test-asan.sh).
for var in ["HOME", "TMPDIR", "LANG", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

plugin = os.path.join(config.keel_lib_dir, "LayoutOpt.so")
config.substitutions.append(("%layoutopt", plugin))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%lld", os.path.join(config.llvm_tools_dir, "ld.lld")))
config.substitutions.append(("%keel_src", config.keel_src_root))
config.substitutions.append(("%keel_lib", config.keel_lib_dir))
config.substitutions.append(("%keel_obj", config.keel_obj_root))
config.substitutions.append(("%keel_version", config.keel_version))
config.substitutions.append(("%python", "/usr/bin/python3"))

# Optional machine features, so tests that need them skip themselves elsewhere.
def _works(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False

if shutil.which("valgrind"):
    config.available_features.add("valgrind")
# keel-sim, Keel's Valgrind tool (checker/keel-sim), is built only where
# valgrind's tool API is installed; its tests need it and valgrind itself.
keel_sim_dir = os.path.join(config.keel_lib_dir, "keel-sim")
config.substitutions.append(("%keel_sim_lib", keel_sim_dir))
if shutil.which("valgrind") and os.path.exists(os.path.join(keel_sim_dir, "keel-sim-amd64-linux")):
    config.available_features.add("keel-sim")
if os.path.exists(os.path.join(config.llvm_tools_dir, "llvm-bolt")):
    config.available_features.add("bolt")
# Two CPUs or more to run on (a test pins threads to CPUs 0 and 1).
if len(os.sched_getaffinity(0)) >= 2:
    config.available_features.add("multi-cpu")
if shutil.which("gcc"):
    config.available_features.add("gcc")
if shutil.which("ld.bfd"):
    config.available_features.add("ld.bfd")
# `perf stat` exits 0 even when it prints "<not supported>" for cycles (as in
# VMs without a PMU), so look at the count it reports (-x, CSV: count first).
def _counts_cycles():
    try:
        r = subprocess.run(["perf", "stat", "-x,", "-e", "cycles", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return r.returncode == 0 and bool(lines) and lines[-1].split(",")[0].isdigit()

# perf itself (reading files needs no PMU): the oracle of the perf.data tests.
if shutil.which("perf") and _works(["perf", "version"]):
    config.available_features.add("perf")
    # perf record of a software clock (no PMU needed, but perf_event_paranoid
    # and the container may still forbid it).
    if _works(["perf", "record", "-q", "-e", "cpu-clock", "-o", "/dev/null", "true"]):
        config.available_features.add("perf-record")
    # perf built with zstd: it reads (and records, with -z) compressed
    # records.
    try:
        _opts = subprocess.run(["perf", "version", "--build-options"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        _opts = ""
    if re.search(r"zstd: \[ on", _opts):
        config.available_features.add("perf-zstd")
if shutil.which("perf") and _counts_cycles():
    config.available_features.add("pmu")
# Memory-access sampling (layout-falseshare record) needs Intel PEBS.
try:
    if "GenuineIntel" in open("/proc/cpuinfo").read():
        config.available_features.add("intel-cpu")
except OSError:
    pass
if shutil.which("chromium"):
    config.available_features.add("chromium")
# A private one-node Slurm cluster (test/Inputs/slurm-cluster.py: munged,
# slurmctld, slurmd under a temporary directory) for layout-sweep
# --executor=slurm. The feature is set only when one really starts here (the
# packages are installed and we are root); it takes about 4 s.
if shutil.which("sbatch") and shutil.which("slurmctld", path="/usr/sbin:" + os.environ.get("PATH", "")):
    import tempfile
    _probe = os.path.join(tempfile.mkdtemp(prefix="keel-slurm-probe-"), "cluster")
    if _works(["/usr/bin/python3", os.path.join(config.test_source_root, "Inputs", "slurm-cluster.py"),
               "probe", _probe]):
        config.available_features.add("slurm")
    shutil.rmtree(os.path.dirname(_probe), ignore_errors=True)
