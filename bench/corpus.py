#!/usr/bin/env python3
"""The corpus: real programs built from Debian source packages, each profiled
on one input ("train") and measured on another ("test"), every build measured by the
product (bench/keelbench.py's measure(): a one-point `layout-sweep --json`, cost and
counters from it; cachegrind's cost with --backend=cachegrind, or --model NAME's with
--backend=sim --cost=NAME), I1 32 KB 8-way or 8 KB 2-way, D1 32 KB 8-way, LL 256 KB
8-way, in the sweep's fixed environment (layout-sweep --env adds tcl's TCL_LIBRARY).

usage: corpus.py WORKDIR [--programs lua,zstd,...] [--builds default,cdsort,...] [-j N]
                 [--sweep] [--pads 0:4096:256] [--inside-k 1] [--recommended FILE]
                 [--recipe FILE ...] [--check] [--native N]

Per program: apt-get source into WORKDIR/debsrc (bench/lib-real-programs.sh), build
(lua, zstd: the .c files compiled directly, as layout-compare.py does; re2, yaml-cpp:
the library's .cc/.cpp files compiled directly with clang++ and linked with a driver of
the bench's own, bench/corpus_programs.py; the others: the
package's own ./configure and make, run once with the product's keel-cc --plain as CC and AR so
every compile and the program's link are recorded, then replayed with the bench's
CFLAGS into WORKDIR/<program>/builds/obj*/), profile the default build on the train
input (layout-record --source=valgrind), plan from that profile, link every build, and
measure each on the test input. Without --sweep the table has one link per build;
with --sweep the "mean cost" is the mean over the pads of perturbation (1) (code added
outside the hot region: a pad object between the object files), and the spreads
(the product's formula, max/min - 1 over the pads) of (1) and of (2) (pad after the k-th hottest function)
are printed beside it, and "B spr%", the spread of Bcm+Bim over the pads of (1) (how
much cachegrind's branch predictor, indexed by 7 address bits, moves with the code
alone). keel-rec is the product's one command's binary: `layout-optimize
--workload=TRAIN --binary=NAME -- sh WORKDIR/<program>/builds/rec/build.sh`, the
script being the package's own build steps in a copy of its tree (and, for bzip2 and
lz4, whose packages link the CLI to the shared library, the bench's link of the
objects), or for lua and zstd the bench's compiles and link, run with CC=keel-cc;
keel-rec is its kept program (bench/corpus-identity.py reruns the command in a fresh
source tree and compares the two with cmp).

Every measurement of the test input is kept in WORKDIR/<program>/builds/
sweep-<model>-<tools' sha1>-test-<sha1 of the input's arguments and files>.tsv keyed by the binary's sha1 and I1 geometry, appended and flushed
per measurement, so a killed run (kill -9) resumes without measuring anything twice;
objects and the profile are kept too. Progress goes to stderr, tables to stdout.
--check measures each program's train and test inputs twice (measure(), default
build, I1 32 KB) and prints their instruction counts (must be equal), and the distinct
text executed on the test input (the summed size of the functions with a nonzero count).
KEEL_BUILD=dir: use another build of the Keel tools (e.g. another branch's).
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import math
import os
import shlex
import shutil
import subprocess
import sys

import corpus_programs
from corpus_programs import concat
import keelbench
import native
from keelbench import (GEOMETRIES, TOP, Builds, Lua, Measurements, Program, Zstd, debian_source, run,
                       sha1_of, spread)

# The product's keel-cc records the package's build: `keel-cc --plain -- CMD` appends
# {"argv": [CMD, ARGS...], "cwd"} to $KEEL_CC_LOG and runs CMD as it is (no profiling
# flags: the package's objects only finish its own build; the bench replays the
# recorded compiles with its CFLAGS).
KEEL_CC = os.path.join(keelbench.BIN, "keel-cc")
WORKLOADS = os.path.join(TOP, "bench", "workloads")


def log(msg):
    print(f"corpus: {msg}", file=sys.stderr, flush=True)


def pinned_env(**extra):
    """The environment every run of the corpus gets: this process's, C locale."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.update(LANG="C", LC_ALL="C", **extra)
    return env


# ---------------------------------------------------------------- recorded builds
class Recorded(Program):
    """A program built by its package's own build system, recorded by keel-cc --plain:
    steps (argv lists, run in the source tree; CC/AR are keel-cc) build it once (only
    the record is used); compile() replays the recorded compiles of the objects the
    program's link uses, with the bench's CFLAGS."""

    def __init__(self, name, work, pkg, steps, target, subdir="", link_inputs=None, libs=()):
        super().__init__(name, work)
        self.src = os.path.realpath(debian_source(work, pkg))
        self.steps, self.target, self.subdir = steps, target, subdir
        self.link_inputs, self.extra_libs = link_inputs, list(libs)
        self.record()

    def record(self):
        logf = os.path.join(self.work, "record.jsonl")
        done = os.path.join(self.work, "record.done")
        if not os.path.exists(done):
            log(f"{self.name}: building {self.src} once with the recorder (configure, make)")
            open(logf, "w").close()
            cc, ar = f"{KEEL_CC} --plain -- {keelbench.CC}", f"{KEEL_CC} --plain -- llvm-ar-22"
            for step in self.steps:
                env = dict(pinned_env(), CC=cc, AR=ar)
                env.pop("KEEL_CC_LOG", None)
                argv = [a.replace("@CC@", cc).replace("@AR@", ar) for a in step]
                if argv[0] == "make":
                    env["KEEL_CC_LOG"] = logf
                r = subprocess.run(["nice", *argv], cwd=os.path.join(self.src, self.subdir), env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if r.returncode != 0:
                    sys.exit(f"corpus: {self.name}: {' '.join(argv)} failed:\n{r.stdout[-3000:]}")
            open(done, "w").close()
        self.parse(logf)

    def parse(self, logf):
        self.compiles, archives, links = {}, {}, []
        for line in open(logf):
            r = json.loads(line)
            cwd, tool, argv = r["cwd"], r["argv"][0], r["argv"][1:]
            absp = lambda p: os.path.normpath(os.path.join(cwd, p))
            if os.path.basename(tool).startswith("llvm-ar"):
                ops = [a for a in argv if not a.startswith("-")]
                if len(ops) >= 2 and any(c in ops[0] for c in "qr"):
                    archives.setdefault(absp(ops[1]), []).extend(absp(m) for m in ops[2:])
                continue
            out = argv[argv.index("-o") + 1] if "-o" in argv else None
            if "-c" in argv:
                srcs = [a for a in argv if a.endswith((".c", ".S", ".s"))]
                if len(srcs) != 1 or (out and not out.endswith(".o")):
                    continue
                out = out or os.path.basename(srcs[0])[:-2] + ".o"
                self.compiles[absp(out)] = (cwd, argv)
            elif out and os.path.basename(out) == self.target:
                links.append((cwd, argv))
        if self.link_inputs is not None:
            cwd = os.path.join(self.src, self.subdir)
            inputs, flags = [os.path.normpath(os.path.join(cwd, p)) for p in self.link_inputs], []
        else:
            if not links:
                sys.exit(f"corpus: {self.name}: no recorded link of {self.target}")
            cwd, argv = links[-1]
            inputs, flags, skip = [], [], False
            libdirs = [os.path.normpath(os.path.join(cwd, a[2:])) for a in argv if a.startswith("-L") and a != "-L"]
            for i, a in enumerate(argv):
                if skip:
                    skip = False
                elif a == "-o":
                    skip = True
                elif a.endswith((".o", ".a")) and not a.startswith("-"):
                    inputs.append(os.path.normpath(os.path.join(cwd, a)))
                elif a.startswith("-L") and a != "-L":
                    flags.append("-L" + os.path.normpath(os.path.join(cwd, a[2:])))
                elif a.startswith("-l") and (built := [os.path.join(d, f"lib{a[2:]}.a") for d in libdirs
                                                        if os.path.join(d, f"lib{a[2:]}.a") in archives]):
                    # -lNAME naming an archive the recorded make built (tclsh's
                    # -ltcl8.6): link the replayed members, not the recorder's own
                    # -O0 archive left in the source tree.
                    inputs.append(built[0])
                elif a.startswith(("-l", "-Wl,", "-pthread", "-rdynamic")):
                    flags.append(a)
        self.libs = flags + self.extra_libs
        self.plain, self.groups = [], []
        for p in inputs:
            if p.endswith(".a"):
                if p not in archives:
                    sys.exit(f"corpus: {self.name}: archive {p} was not built by the recorded make")
                self.groups.append([m for m in archives[p] if m in self.compiles])
            elif p in self.compiles:
                self.plain.append(p)
            else:
                sys.exit(f"corpus: {self.name}: no recorded compile of {p}")

    def binary_name(self):
        return self.target

    def product_build(self, d):
        """(directory, argv) of the build layout-optimize runs for keel-rec: the
        package's own steps (CC and AR as the recorder gives them: CC=$CC, keel-cc
        under layout-optimize; AR=llvm-ar-22) in a copy of the source tree (D/src,
        layout-optimize's working directory: the profile and the guard run there too),
        and for a program whose package does not link it the way the bench does
        (link_inputs), the bench's link of those inputs with $CC."""
        src = os.path.join(d, "src")
        if not os.path.exists(src):
            shutil.copytree(self.src, src + ".tmp", symlinks=True)
            os.rename(src + ".tmp", src)
        # The script names no path of its own: run in another tree of the same package
        # (bench/corpus-identity.sh), it is the same command.
        word = lambda a: '"$CC"'.join(shlex.quote(x) if x else "" for x in a.replace("@AR@", "llvm-ar-22").split("@CC@"))
        lines = ["set -e"]
        lines += [" ".join(word(a) for a in step) for step in self.steps]
        if self.link_inputs is not None:
            lines.append('"$CC" ' + " ".join(shlex.quote(a) for a in [
                "-fuse-ld=lld", f"--ld-path={keelbench.LLD}", "-Wl,--emit-relocs", *self.link_inputs,
                *self.extra_libs, "-o", self.target]))
        script = os.path.join(d, "build.sh")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\n")
        return os.path.normpath(os.path.join(src, self.subdir)), ["sh", script]

    def objname(self, outdir, o):
        return os.path.join(outdir, os.path.relpath(o, self.src).replace("/", "_"))

    def replay(self, o, outdir, extra):
        cwd, argv = self.compiles[o]
        out, skip, a2 = self.objname(outdir, o), False, []
        for a in argv:
            if skip:
                skip = False
            elif a in ("-o", "-MF", "-MT", "-MQ"):
                skip = True
            elif a in ("-MD", "-MMD", "-MP") or a.startswith("-Wp,-M"):
                continue
            else:
                a2.append(a)
        if not (keelbench.KEEP and os.path.exists(out)):
            run([keelbench.CC, *a2, *keelbench.CFLAGS, *extra, "-o", out], cwd=cwd)
        return out

    def compile(self, outdir, extra):
        os.makedirs(outdir, exist_ok=True)
        every = self.plain + [m for g in self.groups for m in g]
        with cf.ThreadPoolExecutor(JOBS) as ex:
            objs = dict(zip(every, ex.map(lambda o: self.replay(o, outdir, extra), every)))
        out = [objs[o] for o in self.plain]
        for g in self.groups:
            out += ["-Wl,--start-lib", *(objs[o] for o in g), "-Wl,--end-lib"]
        return out

    def split_at(self, objs):
        return len(self.plain) // 2


JOBS = 2


# ---------------------------------------------------------------- the programs
def inputs_dir(work):
    d = os.path.join(work, "inputs")
    os.makedirs(d, exist_ok=True)
    return d


def head(out, src, nbytes):
    """OUT = the whole lines of SRC within its first NBYTES bytes."""
    if not os.path.exists(out):
        data = open(src, "rb").read()[:nbytes]
        with open(out + ".tmp", "wb") as f:
            f.write(data[:data.rfind(b"\n") + 1])
        os.rename(out + ".tmp", out)
    return out


def lua(work):
    p = Lua(work)
    p.test_args = [os.path.join(WORKLOADS, "lua-test.lua")]
    p.run_env = pinned_env()
    p.inputs = "train: bench/workloads/lua-bench.lua; test: bench/workloads/lua-test.lua"
    return p


def zstd(work):
    p = Zstd(work)
    # train: lib/compress/zstd_compress.c (layout-compare.py's sample); test: another
    # file of the same package, the same arguments.
    test = concat(os.path.join(inputs_dir(work), "zstd-test"),
                  [os.path.join(p.src, "lib", "decompress", f) for f in ("zstd_decompress.c", "zstd_decompress_block.c")])
    p.test_args = p.run_args[:-1] + [test]
    p.run_env = pinned_env()
    p.inputs = ("zstd -b1e3 -B16K -i0 -qq FILE; train: lib/compress/zstd_compress.c, "
                "test: lib/decompress/zstd_decompress.c + zstd_decompress_block.c")
    return p


def bzip2(work):
    p = Recorded("bzip2", work, "bzip2",
                 [["make", "clean"], ["make", "CC=@CC@", "AR=@AR@", "RANLIB=true", "CFLAGS=-O2 -D_FILE_OFFSET_BITS=64",
                   "libbz2.a", "bzip2.o"]],
                 "bzip2", link_inputs=["bzip2.o", "libbz2.a"])
    d = inputs_dir(work)
    train = concat(os.path.join(d, "bz-train"), [os.path.join(p.src, "sample1.ref")])
    test = concat(os.path.join(d, "bz-test"), [os.path.join(p.src, "sample2.ref")])
    p.run_args, p.test_args = ["-9", "-c", train], ["-9", "-c", test]
    p.run_env = pinned_env()
    p.inputs = "bzip2 -9 -c FILE; train: sample1.ref, test: sample2.ref (the package's own test files)"
    return p


def lz4(work):
    # Debian's programs/Makefile links the CLI against -llz4: build its objects only
    # and link them directly.
    objs = [f"../lib/{f}.o" for f in ("lz4", "lz4file", "lz4frame", "lz4hc", "xxhash")] + \
        [f"{f}.o" for f in ("bench", "datagen", "lz4cli", "lz4io")]
    p = Recorded("lz4", work, "lz4", [["make", "clean"], ["make", "CC=@CC@", "AR=@AR@", "CFLAGS=-O2", *objs]], "lz4",
                 subdir="programs", link_inputs=objs)
    d = inputs_dir(work)
    lib = os.path.join(p.src, "lib")
    train = concat(os.path.join(d, "lz4-train"), [os.path.join(lib, "lz4.c"), os.path.join(lib, "lz4hc.c")])
    test = concat(os.path.join(d, "lz4-test"), [os.path.join(lib, "lz4frame.c"), os.path.join(lib, "xxhash.c")])
    p.run_args = ["-9", "-f", train, os.path.join(d, "lz4-train.out")]
    p.test_args = ["-9", "-f", test, os.path.join(d, "lz4-test.out")]
    p.run_env = pinned_env()
    p.inputs = "lz4 -9 -f FILE OUT; train: lib/lz4.c + lz4hc.c, test: lib/lz4frame.c + xxhash.c"
    return p


def xz(work):
    p = Recorded("xz", work, "xz-utils",
                 [["./configure", "CC=@CC@", "AR=@AR@", "CFLAGS=-O2", "--disable-shared", "--disable-threads",
                   "--disable-nls", "--disable-xzdec", "--disable-lzmadec", "--disable-lzmainfo",
                   "--disable-lzma-links", "--disable-scripts", "--disable-doc"],
                  ["make", "clean"], ["make", "-j2"]], "xz")
    d = inputs_dir(work)
    train = concat(os.path.join(d, "xz-train"), [os.path.join(p.src, "src", "liblzma", "lzma", f)
                                                 for f in ("lzma_encoder.c", "lzma_decoder.c",
                                                           "lzma_encoder_optimum_normal.c", "lzma_encoder_presets.c",
                                                           "lzma_encoder_optimum_fast.c")])
    test = concat(os.path.join(d, "xz-test"), [os.path.join(p.src, "src", "xz", f)
                                               for f in ("coder.c", "file_io.c", "message.c")])
    p.run_args, p.test_args = ["-3", "-c", "-T1", train], ["-3", "-c", "-T1", test]
    p.run_env = pinned_env()
    p.inputs = ("xz -3 -c -T1 FILE; train: src/liblzma/lzma/lzma_encoder.c + lzma_decoder.c + "
                "lzma_encoder_optimum_normal.c + lzma_encoder_presets.c + lzma_encoder_optimum_fast.c, test: src/xz/coder.c + file_io.c + message.c")
    return p


def gawk(work):
    p = Recorded("gawk", work, "gawk",
                 [["./configure", "CC=@CC@", "AR=@AR@", "CFLAGS=-O2", "--disable-nls", "--disable-mpfr",
                   "--disable-extensions", "--without-readline"],
                  ["make", "clean"], ["make", "-C", "support", "-j2"], ["make", "-j2", "gawk"]], "gawk")
    d = inputs_dir(work)
    train = head(os.path.join(d, "gawk-train"), os.path.join(p.src, "ChangeLog.0"), 40000)
    test = head(os.path.join(d, "gawk-test"), os.path.join(p.src, "NEWS.0"), 30000)
    script = os.path.join(WORKLOADS, "gawk-bench.awk")
    p.run_args, p.test_args = ["-f", script, train], ["-f", script, test]
    p.run_env = pinned_env()
    p.inputs = ("gawk -f bench/workloads/gawk-bench.awk FILE; train: ChangeLog.0's first 40000 bytes, "
                "test: NEWS.0's first 30000 bytes (whole lines)")
    return p


def tcl(work):
    p = Recorded("tcl", work, "tcl8.6",
                 [["./configure", "CC=@CC@", "AR=@AR@", "CFLAGS=-O2", "--disable-shared", "--disable-threads",
                   "--disable-load"],
                  ["make", "clean"], ["make", "-j2", "tclsh"]], "tclsh", subdir="unix")
    script = os.path.join(WORKLOADS, "tcl-bench.tcl")
    p.run_args, p.test_args = [script, "train"], [script, "test"]
    p.run_env = pinned_env(TCL_LIBRARY=os.path.join(p.src, "library"))
    p.sweep_env = {"TCL_LIBRARY": os.path.join(p.src, "library")}
    p.inputs = "tclsh bench/workloads/tcl-bench.tcl MODE; train: MODE=train, test: MODE=test"
    return p


def xmllint(work):
    p = Recorded("xmllint", work, "libxml2",
                 # Debian's patches leave Makefile.am newer than Makefile.in: keep
                 # make from re-running automake (not installed).
                 [["touch", "aclocal.m4"], ["touch", "configure", "config.h.in"],
                  ["find", ".", "-name", "Makefile.in", "-exec", "touch", "{}", "+"],
                  ["./configure", "CC=@CC@", "AR=@AR@", "CFLAGS=-O2", "--disable-shared", "--without-python",
                   "--without-zlib", "--without-lzma", "--without-icu", "--without-threads",
                   "--without-http", "--without-ftp", "--without-readline", "--without-modules",
                   # dict.c and hash.c seed their hashes from time() when rand, srand and
                   # time exist (DICT_RANDOMIZATION): pinned by telling configure that
                   # rand and srand do not (nothing else uses them; no source patch).
                   "ac_cv_func_rand=no", "ac_cv_func_srand=no", "ac_cv_func_rand_r=no"],
                  ["make", "clean"], ["make", "-j2", "xmllint"]], "xmllint")
    d = inputs_dir(work)
    for kind, n, seed in (("train", 700, 1), ("test", 500, 7)):
        xml_input(os.path.join(d, f"xml-{kind}.xml"), n, seed)
    xsd = xml_schema(os.path.join(d, "xml.xsd"))
    p.run_args, p.test_args = ([*XMLLINT_ARGS(xsd, os.path.join(d, f"xml-{k}.out")), os.path.join(d, f"xml-{k}.xml")]
                               for k in ("train", "test"))
    p.run_env = pinned_env()
    p.inputs = ("xmllint --schema GENERATED.xsd --c14n ... FILE; generated documents (700 and 500 "
                "records, different seeds)")
    return p


def XMLLINT_ARGS(xsd, out):
    return ["--schema", xsd, "--noent", "--c14n", "--output", out]


def xml_input(path, n, seed):
    """A deterministic document: n records (linear congruential data) in a namespace,
    with entities, CDATA, comments and mixed content."""
    if os.path.exists(path):
        return
    x = seed
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!DOCTYPE catalog [<!ENTITY co "Keel &amp; Co."><!ENTITY yr "2026">]>',
             '<catalog xmlns="urn:keel:corpus" version="1.2">']
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    for i in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        w = [words[(x >> s) % 10] for s in (3, 7, 11, 15)]
        lines.append(f'  <record id="r{i}" kind="{w[0]}" price="{x % 10000 / 100:.2f}" qty="{x % 97}">')
        lines.append(f'    <title>{w[1].title()} {w[2]} &amp; {w[3]} #{i}</title>')
        lines.append(f'    <!-- record {i} -->')
        lines.append(f'    <note lang="{["en", "fr", "de"][x % 3]}">Made by &co; in &yr;, '
                     f'<em>{w[0]}</em> and <b>{w[2]}</b> {"&lt;" * (x % 3)}</note>')
        if x % 5 == 0:
            lines.append(f'    <raw><![CDATA[if (a < b && c > d) {{ {w[3]}(); }}]]></raw>')
        lines.append(f'    <tags>{" ".join(w)}</tags>')
        lines.append('  </record>')
    lines.append('</catalog>')
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(path + ".tmp", path)


def xml_schema(path):
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write('''<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:keel:corpus"
           xmlns="urn:keel:corpus" elementFormDefault="qualified">
  <xs:simpleType name="kindT"><xs:restriction base="xs:string">
    <xs:enumeration value="alpha"/><xs:enumeration value="beta"/><xs:enumeration value="gamma"/>
    <xs:enumeration value="delta"/><xs:enumeration value="epsilon"/><xs:enumeration value="zeta"/>
    <xs:enumeration value="eta"/><xs:enumeration value="theta"/><xs:enumeration value="iota"/>
    <xs:enumeration value="kappa"/></xs:restriction></xs:simpleType>
  <xs:complexType name="noteT" mixed="true"><xs:choice minOccurs="0" maxOccurs="unbounded">
    <xs:element name="em" type="xs:string"/><xs:element name="b" type="xs:string"/></xs:choice>
    <xs:attribute name="lang" type="xs:language"/></xs:complexType>
  <xs:element name="catalog"><xs:complexType><xs:sequence>
    <xs:element name="record" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="title" type="xs:string"/>
      <xs:element name="note" type="noteT"/>
      <xs:element name="raw" type="xs:string" minOccurs="0"/>
      <xs:element name="tags"><xs:simpleType><xs:list itemType="kindT"/></xs:simpleType></xs:element>
    </xs:sequence>
    <xs:attribute name="id" type="xs:ID" use="required"/>
    <xs:attribute name="kind" type="kindT"/>
    <xs:attribute name="price" type="xs:decimal"/>
    <xs:attribute name="qty" type="xs:nonNegativeInteger"/>
    </xs:complexType></xs:element>
  </xs:sequence><xs:attribute name="version" type="xs:decimal"/></xs:complexType>
  <xs:unique name="ids"><xs:selector xpath="record"/><xs:field xpath="@id"/></xs:unique>
  </xs:element>
</xs:schema>
''')
        os.rename(path + ".tmp", path)
    return path


def re2(work):
    return corpus_programs.re2(work, pinned_env(), inputs_dir(work), JOBS)


def yaml_cpp(work):
    return corpus_programs.yaml_cpp(work, pinned_env(), inputs_dir(work), JOBS)


def glslang(work):
    return corpus_programs.glslang(work, pinned_env(), inputs_dir(work), JOBS)


PROGRAMS = {"lua": lua, "zstd": zstd, "bzip2": bzip2, "lz4": lz4, "xz": xz, "gawk": gawk,
            "tcl": tcl, "xmllint": xmllint, "re2": re2, "yaml-cpp": yaml_cpp, "glslang": glslang}


# ---------------------------------------------------------------- measuring
def distinct_text(binary, args, cwd, env):
    """Bytes of the functions with a nonzero instruction count on this input
    (cachegrind's per-function counts, llvm-nm's sizes)."""
    out = binary + ".text.cg"
    # --demangle=no: the symbol names llvm-nm prints (C++ functions are mangled).
    r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--demangle=no",
                        f"--cachegrind-out-file={out}", binary, *args], cwd=cwd, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"corpus: {binary} failed under cachegrind")
    ran = set()
    fn = None
    for line in open(out):
        if line.startswith("fn="):
            fn = line[3:].strip()
        elif fn and line[:1].isdigit() and any(int(x) for x in line.split()[1:]):
            ran.add(fn)
    os.unlink(out)
    size = 0
    for l in run(["llvm-nm-22", "-S", "--defined-only", binary]).splitlines():
        f = l.split()
        if len(f) == 4 and f[2] in "tT" and f[3] in ran:
            size += int(f[1], 16)
    return size


def check(name, B, prog):
    res = []
    for kind, args in (("train", prog.run_args), ("test", prog.test_args)):
        irs = [keelbench.measure(B.default, args, B.w, prog.sweep_env)["32K"][1]["Ir"] for _ in range(2)]
        res.append(f"{kind} Ir {irs[0]} {irs[1]} ({'identical' if irs[0] == irs[1] else 'DIFFERENT'})")
    text = distinct_text(B.default, prog.test_args, B.w, prog.run_env)
    print(f"{name:8} {'; '.join(res)}; distinct executed text (test) {text} bytes = {text / 1024:.1f} KB",
          flush=True)


def workload_key(args):
    """Names the test input's result file: the sha1 of its arguments and of the
    contents of every file they name (a changed input never reuses old results), but
    not of the workloads' output files (named *.out), which the first run creates."""
    h = hashlib.sha1(json.dumps(args).encode())
    for x in args:
        if os.path.isfile(x) and not x.endswith(".out"):
            h.update(sha1_of(x).encode())
    return h.hexdigest()[:12]


def geomean(xs):
    xs = [x for x in xs if x == x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def BCM():
    """The conditional-branch mispredict event of the model in use (cachegrind's Bcm)."""
    return keelbench.BRANCH[0]


def BIM():
    return keelbench.BRANCH[1]


def measure(a, name, B, prog, M, names):
    """Per build and geometry: mean cost (one link, or the mean over the pads of (1)),
    I1mr, Bcm, Bim (same), spreads of (1) and (2) (sweep only)."""
    bins = {n: B.build(n, B.path(n + ".bin")) for n in names}
    res = {}
    if not a.sweep:
        jobs = [(bins[n], g) for n in names for g in GEOMETRIES]
        for (b, g), n, (cost, c) in zip(jobs, [n for n in names for _ in GEOMETRIES], M.all(jobs, a.j)):
            res[(n, g)] = dict(cost=cost, I1mr=c["I1mr"], Bcm=c[BCM()], Bim=c[BIM()], s1=float("nan"),
                               s2=float("nan"), sB=float("nan"))
        return res
    lo, hi, step = (int(x) for x in a.pads.split(":"))
    pads = list(range(lo, hi, step))
    ks = [int(k) for k in a.inside_k.split(",")] if a.inside_k else []
    for n in names:
        log(f"{name}: {n}: linking {len(pads) * (1 + len(ks))} padded variants")
        if ks and n != "bolt":
            B.ref_order(n)
        variants = [("out", p, {"outside_pad": p}) for p in pads]
        variants += [(f"k{k}", p, {"inside": (k, p)}) for k in ks for p in pads]

        def make(v):
            kind, p, kw = v
            out = B.path(f"{n}.{kind}.{p}.bin")
            return B.build(n, out, **kw)
        with cf.ThreadPoolExecutor(a.j) as ex:
            vbins = list(ex.map(make, variants))
        jobs = [(b, g) for b in vbins for g in GEOMETRIES]
        log(f"{name}: {n}: measuring {len(jobs)} runs")
        out = M.all(jobs, a.j)
        series = {}
        for i, (kind, p, _) in enumerate(variants):
            for j, g in enumerate(GEOMETRIES):
                series.setdefault((kind, g), []).append(out[i * len(GEOMETRIES) + j])
        for b in vbins:
            for suffix in ("", ".pad.o", ".ipad.o", ".order", ".pre", ".ld", ".pad.o.s", ".ipad.o.s"):
                if os.path.exists(b + suffix):
                    os.unlink(b + suffix)
        for g in GEOMETRIES:
            s = series[("out", g)]
            mean = lambda f: sum(x[1][f] for x in s) / len(s)
            res[(n, g)] = dict(cost=sum(x[0] for x in s) / len(s), I1mr=mean("I1mr"), Bcm=mean(BCM()),
                               Bim=mean(BIM()), s1=spread([x[0] for x in s]),
                               sB=spread([x[1][BCM()] + x[1][BIM()] for x in s]),
                               s2=max((spread([x[0] for x in series[(f"k{k}", g)]]) for k in ks),
                                      default=float("nan")))
    return res


def table(all_res, names, progs, geo=True):
    refs = [r for r in ("default", "cdsort", "bolt") if r in names]
    head = (f"{'program':8} {'I1':>3} {'build':10} {'mean cost':>12} " +
            " ".join(f"{'/' + r:>8}" for r in refs) +
            f" {'(1) spr%':>8} {'(2) spr%':>8} {'I1mr':>10} {'Bcm':>9} {'Bim':>8} {'B spr%':>7}")
    print(head)
    for g in GEOMETRIES:
        for prog in progs:
            res = all_res[prog]
            for n in names:
                r = res[(n, g)]
                rel = " ".join(f"{r['cost'] / res[(x, g)]['cost']:8.4f}" for x in refs)
                spr = " ".join(f"{x:8.3f}" if x == x else f"{'-':>8}" for x in (r["s1"], r["s2"]))
                sb = f"{r['sB']:7.2f}" if r["sB"] == r["sB"] else f"{'-':>7}"
                print(f"{prog:8} {g:>3} {n:10} {r['cost']:12.0f} {rel} {spr} "
                      f"{r['I1mr']:10.0f} {r['Bcm']:9.0f} {r['Bim']:8.0f} {sb}", flush=True)
        for n in names if geo else ():
            rel = " ".join(f"{geomean([all_res[p][(n, g)]['cost'] / all_res[p][(x, g)]['cost'] for p in progs]):8.4f}"
                           for x in refs)
            print(f"{'geomean':8} {g:>3} {n:10} {'':12} {rel}", flush=True)


def check_targets(all_res, names, progs, build="keel-rec"):
    """The corpus's targets for BUILD (printed as "targets (BUILD):"), checked on the
    table's own numbers: BUILD's mean
    cost <= the default link's in every cell, its Bcm+Bim <= the default's + 2%, its
    geometric mean <= BOLT's + 1% (I1 32 KB) and + 2% (8 KB), and (with --sweep) its
    spreads of (1) and (2) <= the smaller of cdsort's and BOLT's in >= 80% of the cells."""
    if not {"default", "bolt", build} <= set(names):
        return
    print(f"\ntargets ({build}):")
    geos = list(GEOMETRIES)
    slower = [f"{p} {g} {all_res[p][(build, g)]['cost'] / all_res[p][('default', g)]['cost']:.4f}"
              for g in GEOMETRIES for p in progs
              if all_res[p][(build, g)]["cost"] > all_res[p][("default", g)]["cost"]]
    cells = len(GEOMETRIES) * len(progs)
    print(f"  mean cost <= default: {cells - len(slower)} of {cells} cells"
          + (f"; not in: {', '.join(slower)}" if slower else ""))
    br = lambda r: r["Bcm"] + r["Bim"]
    worse = [f"{p} {br(all_res[p][(build, geos[0])]) / br(all_res[p][('default', geos[0])]) - 1:+.1%}"
             for p in progs
             if br(all_res[p][(build, geos[0])]) > 1.02 * br(all_res[p][("default", geos[0])])]
    print(f"  Bcm+Bim <= default + 2%: {len(progs) - len(worse)} of {len(progs)} programs"
          + (f"; not in: {', '.join(worse)}" if worse else ""))
    for g, limit in zip(geos, (1.01, 1.02)):
        gm = geomean([all_res[p][(build, g)]["cost"] / all_res[p][("bolt", g)]["cost"] for p in progs])
        print(f"  geomean vs BOLT at {g}: {gm:.4f} (limit {limit}): {'met' if gm <= limit else 'NOT met'}")
    refs = [r for r in ("cdsort", "bolt") if r in names]
    if all_res[progs[0]][(build, geos[0])]["s1"] != all_res[progs[0]][(build, geos[0])]["s1"]:
        return
    ok, miss = 0, []
    for g in GEOMETRIES:
        for p in progs:
            for k, label in (("s1", "(1)"), ("s2", "(2)")):
                mine, best = all_res[p][(build, g)][k], min(all_res[p][(r, g)][k] for r in refs)
                if mine != mine or best != best:
                    continue   # no such perturbation in this run (--inside-k "")
                if mine <= best:
                    ok += 1
                else:
                    miss.append(f"{p} {g} {label} {mine:.3f}% > {best:.3f}%")
    n = ok + len(miss)
    if not n:
        return
    print(f"  spreads <= min({', '.join(refs)}): {ok} of {n} cells ({ok / n:.0%}; the target is 80%)"
          + ("".join(f"\n    not in: {m}" for m in miss)))


def main():
    global JOBS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workdir")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--builds", default="default,cdsort,bolt,keel-fn,keel-bb-sp,keel-rec")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--pads", default="0:4096:256", help="FROM:TO:STEP, TO exclusive")
    ap.add_argument("--inside-k", default="1", help="k-th hottest functions for perturbation (2)")
    ap.add_argument("--recommended", default=keelbench.RECOMMENDED,
                    help="the recipe file behind --recipe builds' schema (default bench/recommended.json); "
                         "keel-rec itself is layout-optimize's kept build (its plan, fallback and guard "
                         "are the product's)")
    ap.add_argument("--recipe", action="append", default=[],
                    help="a recipe JSON (bench/recommended.json's schema): a build named by its "
                         "\"name\", to be listed in --builds (repeatable); one with "
                         "\"layout_optimize_flags\" is keel-rec made with those flags added")
    ap.add_argument("--check", action="store_true",
                    help="print instruction counts of two runs of each input and the distinct text")
    ap.add_argument("--build-only", action="store_true",
                    help="build, profile, plan and link every build of every program; measure nothing")
    ap.add_argument("--model", metavar="NAME",
                    help="measure with layout-sweep --backend=sim --cost=NAME (keel-sim, every I1 geometry in "
                         "one run) instead of --backend=cachegrind: front-end model NAME (skylake, zen4), or "
                         "cachegrind (no front-end model); Bcm/Bim are then the model's conditional and "
                         "indirect mispredicts; keel-rec's layout-optimize gets --cost=NAME when NAME is a front-end "
                         "model, else its default skylake (cachegrind's predictor never decides the guard)")
    ap.add_argument("--native", type=int, default=0, metavar="N",
                    help="also time the test input natively: N interleaved pairs of each build against "
                         "the default link and BOLT, and the default link against its copy (A/A); "
                         "bench/native.py")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    if a.model:
        keelbench.use_model(a.model)
    JOBS = a.j
    keelbench.KEEP = True   # objects and profiles are reused; binaries are measured by hash
    keelbench.RECOMMENDED = os.path.abspath(a.recommended)
    for path in a.recipe:
        keelbench.RECIPES[keelbench.load_recipe(path)["name"]] = os.path.abspath(path)
    work = os.path.abspath(a.workdir)
    names = a.builds.split(",")
    progs = a.programs.split(",")
    for p in progs:
        if p not in PROGRAMS:
            sys.exit(f"corpus: unknown program {p} (known: {', '.join(PROGRAMS)})")
    log(f"tools from {keelbench.BUILD}; measured by layout-sweep --json; keel-rec: layout-optimize's kept "
        f"program")
    all_res = {}
    for name in progs:
        pw = os.path.join(work, name)
        os.makedirs(pw, exist_ok=True)
        if not os.path.exists(os.path.join(pw, "debsrc")):
            os.makedirs(os.path.join(work, "debsrc"), exist_ok=True)
            os.symlink(os.path.join(work, "debsrc"), os.path.join(pw, "debsrc"))
        log(f"{name}: sources and build")
        prog = PROGRAMS[name](pw)
        B = Builds(prog, os.path.join(pw, "builds"), a.j)
        log(f"{name}: compiling, profiling the train input, planning")
        # The kept profile is of this train input (B.prepare() reuses default.fdata).
        key, stamp = workload_key(prog.run_args), B.path("default.fdata.input")
        if not os.path.exists(stamp) or open(stamp).read().strip() != key:
            if os.path.exists(B.path("default.fdata")):
                os.unlink(B.path("default.fdata"))
            os.makedirs(B.w, exist_ok=True)
            with open(stamp, "w") as f:
                f.write(key + "\n")
        B.prepare()
        if a.check:
            check(name, B, prog)
            continue
        if a.build_only:
            for n in names:
                B.build(n, B.path(n + ".bin"))
            log(f"{name}: built {', '.join(names)}")
            continue
        M = Measurements(B.path(f"{keelbench.measure_tag()}-test-{workload_key(prog.test_args)}.tsv"),
                         prog.test_args, B.w, prog.sweep_env)
        all_res[name] = measure(a, name, B, prog, M, names)
        log(f"{name}: done")
        print(f"\n{name}: {prog.inputs}")
        table(all_res, names, [name], geo=False)
        if a.native:
            native.table(name, native.measure_native(
                name, B, prog, names, a.native,
                B.path(f"native-test-{workload_key(prog.test_args)}.tsv")), a.native)
    if a.check or a.build_only:
        return
    what = (f"mean over pads {a.pads} of (1); spreads of (1) and (2) k={a.inside_k}" if a.sweep
            else "one link per build (no sweep: no spreads)")
    formula = (f"model {a.model}: " if a.model else "layout-sweep --backend=cachegrind: ") + keelbench.formula()
    print(f"\ncorpus: cost on the test input (cost = {formula}); {what}; /x = cost relative to build x")
    table(all_res, names, progs)
    check_targets(all_res, names, progs)


if __name__ == "__main__":
    main()
