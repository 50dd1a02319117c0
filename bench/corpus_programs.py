"""The corpus's C++ programs (bench/corpus.py PROGRAMS): the sources of a Debian source
package compiled file by file with clang++ (as corpus.py compiles lua and zstd) and
linked with libstdc++; a library's with a small driver of the bench's own
(bench/workloads/*.cc) that runs a deterministic workload on an input file. Objects are
kept by name (corpus.py reuses them): remove WORKDIR/<program>/builds after changing a
driver.

  re2        re2 20220601+dfsg-1: bench/workloads/re2-match.cc (compile, match, find-all,
             rewrite, RE2::Set) on a pattern file and a text from the package
  yaml-cpp   yaml-cpp 0.7.0+dfsg-8: bench/workloads/yaml-roundtrip.cc (load, convert with
             exceptions, events, emit and reload) on a generated YAML file
  glslang    glslang 12.0.0-2: its own glslangValidator (GLSL to SPIR-V, printed) on
             shaders of the package's Test/ directory (no driver of the bench's)
"""
import concurrent.futures as cf
import os
import shlex
import subprocess
import sys

import keelbench
from keelbench import TOP, Program, debian_source, run

CXX = "clang++-22"
WORKLOADS = os.path.join(TOP, "bench", "workloads")


class CxxProgram(Program):
    """A C++ program compiled file by file: SOURCES (absolute paths) with clang++ -std=STD,
    DEFINES and the bench's CFLAGS; linked by keelbench.link (clang) with libstdc++."""

    def __init__(self, name, work, sources, defines, std="c++17", jobs=2):
        super().__init__(name, work)
        self.srcs, self.defs, self.std, self.jobs = sources, defines, std, jobs
        self.libs = ["-lstdc++", "-lm", "-pthread"]

    def objname(self, outdir, src):
        rel = os.path.relpath(src, self.src) if src.startswith(self.src + os.sep) else os.path.basename(src)
        return os.path.join(outdir, os.path.splitext(rel.replace(os.sep, "_"))[0] + ".o")

    def compile(self, outdir, extra):
        os.makedirs(outdir, exist_ok=True)
        jobs = []
        for c in self.srcs:
            o = self.objname(outdir, c)
            if not (keelbench.KEEP and os.path.exists(o)):
                jobs.append([CXX, "-c", f"-std={self.std}", *self.defs, *keelbench.CFLAGS, *extra, c, "-o", o])
        with cf.ThreadPoolExecutor(self.jobs) as ex:
            list(ex.map(run, jobs))
        return [self.objname(outdir, c) for c in self.srcs]


    def product_build(self, d):
        """(directory, argv) of the build layout-optimize runs for keel-rec: a script
        (D/build.sh) that compiles the sources as compile() does and links them as
        keelbench.link() does, with $CC (keel-cc: clang, which compiles .cc/.cpp as
        C++ and links libstdc++ through self.libs), into D/build/NAME."""
        b = os.path.join(d, "build")
        os.makedirs(b, exist_ok=True)
        q = lambda args: " ".join(shlex.quote(a) for a in args)
        lines, objs = ["set -e"], []
        for c in self.srcs:
            o = self.objname(b, c)
            objs.append(o)
            lines.append('"$CC" ' + q(["-c", f"-std={self.std}", *self.defs, *keelbench.CFLAGS, c, "-o", o]))
        lines.append('"$CC" ' + q(["-fuse-ld=lld", f"--ld-path={keelbench.LLD}", "-Wl,--emit-relocs",
                                   *objs, *self.libs, "-o", os.path.join(b, self.binary_name())]))
        script = os.path.join(d, "build.sh")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\n")
        return d, ["sh", script]


def generated(out, argv, cwd):
    """OUT = the standard output of ARGV run in CWD (once)."""
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out + ".tmp", "w") as f:
            r = subprocess.run(argv, cwd=cwd, stdout=f, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"corpus: {' '.join(argv)} failed:\n{r.stderr[-2000:]}")
        os.rename(out + ".tmp", out)
    return out


def concat(out, files):
    """OUT = the files concatenated (from a source package: deterministic)."""
    if not os.path.exists(out):
        with open(out + ".tmp", "wb") as f:
            for p in files:
                f.write(open(p, "rb").read())
        os.rename(out + ".tmp", out)
    return out


# re2's library objects: its Makefile's OFILES.
RE2_FILES = ["util/rune", "util/strutil"] + [f"re2/{f}" for f in (
    "bitstate", "compile", "dfa", "filtered_re2", "mimics_pcre", "nfa", "onepass", "parse", "perl_groups",
    "prefilter", "prefilter_tree", "prog", "re2", "regexp", "set", "simplify", "stringpiece", "tostring",
    "unicode_casefold", "unicode_groups")]


def re2(work, env, inputs, jobs):
    src = os.path.realpath(debian_source(work, "re2"))
    # The dfsg tarball has no generated tables: made as Debian's rules make them
    # (REBUILD_TABLES=1: perl and python3 scripts of the package, the Unicode data of
    # the unicode-data package), into WORK/gen/re2/.
    gen = os.path.join(work, "gen")
    if not os.path.exists("/usr/share/unicode/CaseFolding.txt"):
        sys.exit("corpus: re2: its tables are made from the Unicode data of Debian's unicode-data "
                 "package (/usr/share/unicode/CaseFolding.txt is missing): apt-get install unicode-data")
    tables = {"perl_groups": ["perl", "re2/make_perl_groups.pl"],
              "unicode_casefold": ["python3", "re2/make_unicode_casefold.py"],
              "unicode_groups": ["python3", "re2/make_unicode_groups.py"]}
    for name, argv in tables.items():
        generated(os.path.join(gen, "re2", name + ".cc"), argv, src)
    sources = [os.path.join(gen, f + ".cc") if f[4:] in tables else os.path.join(src, f + ".cc") for f in RE2_FILES]
    sources.append(os.path.join(WORKLOADS, "re2-match.cc"))
    p = CxxProgram("re2", work, sources, [f"-I{src}", "-DNDEBUG", "-pthread"], jobs=jobs)
    p.src = src
    train = concat(os.path.join(inputs, "re2-train.txt"), [os.path.join(src, "re2", "nfa.cc")])
    test = concat(os.path.join(inputs, "re2-test.txt"), [os.path.join(src, "re2", "onepass.cc")])
    p.run_args = [os.path.join(WORKLOADS, "re2-train.pat"), train]
    p.test_args = [os.path.join(WORKLOADS, "re2-test.pat"), test]
    p.run_env = env
    p.inputs = ("re2-match PATTERNS TEXT (bench/workloads/re2-match.cc); train: re2-train.pat on "
                "re2/nfa.cc, test: re2-test.pat on re2/onepass.cc")
    return p


def yaml_cpp(work, env, inputs, jobs):
    src = os.path.realpath(debian_source(work, "yaml-cpp"))
    lib = sorted(os.path.join(d, f) for d in (os.path.join(src, "src"), os.path.join(src, "src", "contrib"))
                 for f in os.listdir(d) if f.endswith(".cpp"))
    p = CxxProgram("yaml-cpp", work, lib + [os.path.join(WORKLOADS, "yaml-roundtrip.cc")],
                   [f"-I{src}/include", f"-I{src}/src"], jobs=jobs)
    p.src = src
    for kind, n, seed in (("train", 36, 3), ("test", 28, 11)):
        yaml_input(os.path.join(inputs, f"yaml-{kind}.yaml"), n, seed)
    p.run_args = [os.path.join(inputs, "yaml-train.yaml")]
    p.test_args = [os.path.join(inputs, "yaml-test.yaml")]
    p.run_env = env
    p.inputs = ("yaml-roundtrip FILE (bench/workloads/yaml-roundtrip.cc); generated YAML (36 and 28 "
                "records, different seeds)")
    return p


# glslangValidator's sources: the glslang, MachineIndependent, GenericCodeGen,
# OSDependent, OGLCompiler, HLSL, SPIRV and glslang-default-resource-limits libraries
# and StandAlone.cpp, as the package's CMakeLists.txt builds them with ENABLE_OPT=OFF
# (no SPIRV-Tools) and ENABLE_HLSL on.
GLSLANG_DIRS = ["glslang/GenericCodeGen", "glslang/MachineIndependent",
                "glslang/MachineIndependent/preprocessor", "glslang/HLSL"]
GLSLANG_FILES = ["glslang/CInterface/glslang_c_interface.cpp", "glslang/OSDependent/Unix/ossource.cpp",
                 "OGLCompilersDLL/InitializeDll.cpp", "StandAlone/ResourceLimits.cpp",
                 "StandAlone/resource_limits_c.cpp", "StandAlone/StandAlone.cpp"] + \
    [f"SPIRV/{f}.cpp" for f in ("GlslangToSpv", "InReadableOrder", "Logger", "SpvBuilder", "SpvPostProcess",
                                "doc", "SpvTools", "disassemble", "CInterface/spirv_c_interface")]
# Shaders of the package's Test/ directory, three stages each: train #version 450
# (desktop GLSL), test #version 310 es (other built-in declarations: glslang parses the
# built-ins of a version and profile once, for every stage, the larger part of a run).
GLSLANG_TRAIN = ["spv.controlFlowAttributes.frag", "spv.multiStruct.comp", "spv.specConstantOperations.vert"]
GLSLANG_TEST = ["spv.paramMemory.frag", "spv.for-continue-break.vert", "spv.precise.tese"]


def glslang(work, env, inputs, jobs):
    src = os.path.realpath(debian_source(work, "glslang"))
    # The generated headers, as the package's build makes them: build_info.h by its
    # cmake configure (from CHANGES.md), glsl_intrinsic_header.h by its python3 script.
    gen = os.path.join(work, "gen")
    info = os.path.join(gen, "cmake", "include", "glslang", "build_info.h")
    if not os.path.exists(info):
        run(["cmake", "-S", src, "-B", os.path.join(gen, "cmake"), "-G", "Unix Makefiles",
             "-DCMAKE_C_COMPILER=clang-22", "-DCMAKE_CXX_COMPILER=clang++-22", "-DENABLE_OPT=OFF",
             "-DBUILD_TESTING=OFF", "-DENABLE_GLSLANG_INSTALL=OFF", "-DBUILD_SHARED_LIBS=OFF"])
    intrinsic = os.path.join(gen, "cmake", "include", "glslang", "glsl_intrinsic_header.h")
    if not os.path.exists(intrinsic):
        run(["python3", "gen_extension_headers.py", "-i", "glslang/ExtensionHeaders", "-o", intrinsic], cwd=src)
    sources = sorted(os.path.join(src, d, f) for d in GLSLANG_DIRS for f in os.listdir(os.path.join(src, d))
                     if f.endswith(".cpp")) + [os.path.join(src, f) for f in GLSLANG_FILES]
    p = CxxProgram("glslang", work, sources,
                   ["-DENABLE_HLSL", "-DENABLE_OPT=0", "-DGLSLANG_OSINCLUDE_UNIX", "-fno-rtti", "-fno-exceptions",
                    f"-I{src}", f"-I{os.path.join(gen, 'cmake', 'include')}", f"-I{src}/External",
                    f"-I{src}/StandAlone"], jobs=jobs)
    p.src = src
    test_dir = os.path.join(src, "Test")
    # -V: SPIR-V for Vulkan, -H: print it disassembled (to stdout), -o: the binary
    # into one file the next compile overwrites.
    p.run_args = ["-V", "-H", "-o", os.path.join(inputs, "glslang-train.out"),
                  *(os.path.join(test_dir, f) for f in GLSLANG_TRAIN)]
    p.test_args = ["-V", "-H", "-o", os.path.join(inputs, "glslang-test.out"),
                   *(os.path.join(test_dir, f) for f in GLSLANG_TEST)]
    p.run_env = env
    p.inputs = (f"glslangValidator -V -H -o OUT SHADERS; train: Test/{{{','.join(GLSLANG_TRAIN)}}}, "
                f"test: Test/{{{','.join(GLSLANG_TEST)}}}")
    return p


def yaml_input(path, n, seed):
    """A deterministic YAML stream: documents of records (linear congruential data) with
    block and flow collections, anchors and aliases, plain, quoted, literal and folded
    scalars, tags, comments, integers, floats, booleans and nulls."""
    if os.path.exists(path):
        return
    x = seed
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    out = ["%YAML 1.2", "---"]
    for i in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        w = [words[(x >> s) % 10] for s in (3, 7, 11, 15)]
        if i and i % 8 == 0:
            out.append("---")
        out.append(f"- # record {i}")
        out.append(f"  id: {i}")
        out.append(f"  name: {w[0].title()} {w[1]}")
        out.append(f'  quoted: "{w[2]}\\t{w[3]} \\u00e9 \\"{i}\\""')
        out.append(f"  single: '{w[1]}''s {w[0]}'")
        out.append(f"  price: {x % 100000 / 100:.2f}")
        out.append(f"  ratio: {(x % 997) / 7:.4e}")
        out.append(f"  hex: 0x{x % 65536:x}")
        out.append(f"  active: {['true', 'false', 'yes', 'no'][x % 4]}")
        out.append(f"  missing: {['~', 'null', ''][x % 3]}")
        out.append(f"  tags: &t{i} [{', '.join(w)}]")
        out.append(f"  dims: {{w: {x % 640}, h: {x % 480}, unit: px}}")
        out.append(f"  text: !!str {x % 1000}")
        if x % 3 == 0:
            out.append("  notes: |")
            out.extend(f"    line {j} of {w[j % 4]} notes" for j in range(x % 5 + 1))
        else:
            out.append("  summary: >")
            out.extend(f"    {w[j % 4]} folded text {j}" for j in range(x % 4 + 1))
        out.append("  children:")
        for j in range(x % 4):
            out.append(f"    - {{key: {w[j]}{j}, value: {x % (j + 7)}}}")
        if i % 8 and x % 2 == 0:   # the tags of the record before, in the same document
            out.append(f"  previous: *t{i - 1}")
        out.append(f"  ? [complex, key, {i}]")
        out.append(f"  : {w[3]}")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    os.rename(path + ".tmp", path)
