//===- Auto.cpp - the automatic sweep of `layout-sweep ./bin` -------------===//
#include "keel/Sweep/Auto.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace keel {
namespace sweep {

Expected<BinaryFacts> inspectBinary(StringRef Binary) {
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Binary);
  if (!O) {
    consumeError(O.takeError());
    return inputError(Binary, 0,
                      "not an ELF executable (layout-sweep sweeps ELF programs)");
  }
  const object::ObjectFile &Obj = *O->getBinary();
  if (!Obj.isELF())
    return inputError(Binary, 0,
                      "not an ELF executable (layout-sweep sweeps ELF programs)");
  BinaryFacts F;
  if (const auto *Elf = dyn_cast<object::ELFObjectFileBase>(&Obj))
    F.LibcStart = importsLibcStartMain(*Elf);
  for (const object::SectionRef &S : Obj.sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == ".interp")
      F.Dynamic = true;
    if (Name->starts_with(".rela.text"))
      F.EmitRelocs = true;
  }
  for (const object::SymbolRef &Sym : Obj.symbols()) {
    Expected<StringRef> Name = Sym.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == "main")
      F.HasMain = true;
  }
  return F;
}

/// ld.lld, ld, ld.bfd, ld.gold, lld ... (takes linker options bare) rather
/// than a compiler driver (takes them as -Wl,...).
static bool isLinker(StringRef Argv0) {
  StringRef Base = sys::path::filename(Argv0);
  return Base == "ld" || Base.starts_with("ld.") || Base.starts_with("ld-") ||
         Base == "lld" || Base.starts_with("lld-") || Base.ends_with("-ld") ||
         Base.contains("-ld.");
}

/// The linker scripts a link command names (-T FILE, -TFILE, --script=FILE,
/// also inside -Wl, and after -Xlinker).
static std::vector<std::string> linkerScripts(ArrayRef<std::string> Argv) {
  std::vector<std::string> Args;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (W.consume_front("-Wl,")) {
      SmallVector<StringRef, 4> Parts;
      W.split(Parts, ',');
      for (StringRef P : Parts)
        Args.push_back(P.str());
    } else if (W == "-Xlinker" && I + 1 < Argv.size()) {
      Args.push_back(Argv[++I]);
    } else {
      Args.push_back(W.str());
    }
  }
  std::vector<std::string> Scripts;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if ((A == "-T" || A == "--script" || A == "-script") && I + 1 < Args.size())
      Scripts.push_back(Args[++I]);
    else if (A.consume_front("--script="))
      Scripts.push_back(A.str());
    else if (A.starts_with("-T") && A.size() > 2 && !A.starts_with("-Ttext") &&
             !A.starts_with("-Tdata") && !A.starts_with("-Tbss"))
      Scripts.push_back(A.drop_front(2).str());
  }
  return Scripts;
}

/// The text of each linker script the record names (unreadable ones left
/// out), with its name.
static std::vector<std::pair<std::string, std::string>>
scriptTexts(const LinkRecord &R) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (const std::string &S : linkerScripts(R.Argv)) {
    SmallString<256> P(S);
    if (!sys::path::is_absolute(P)) {
      P = R.Cwd;
      sys::path::append(P, S);
    }
    Expected<std::string> Text = readWholeFile(P);
    if (!Text) {
      consumeError(Text.takeError());
      continue;
    }
    Out.push_back({S, std::move(*Text)});
  }
  return Out;
}

static bool scriptDefines(const LinkRecord &R, StringRef Sym) {
  for (const auto &[Name, Text] : scriptTexts(R))
    if (StringRef(Text).contains(Sym))
      return true;
  return false;
}

/// The default a script gives \p Sym: "PROVIDE_HIDDEN(Sym = N)" or
/// "PROVIDE(Sym = N)" (Keel's scripts), else "DEFINED(Sym) ? Sym : N" (the
/// template); 0 when it says neither. \p From names the script.
static int64_t scriptDefault(const LinkRecord &R, StringRef Sym,
                             std::string &From) {
  for (const auto &[Name, Text] : scriptTexts(R)) {
    StringRef T = Text;
    for (std::string Head : {"PROVIDE_HIDDEN(" + Sym.str(),
                             "PROVIDE(" + Sym.str(),
                             "DEFINED(" + Sym.str() + ") ? " + Sym.str()}) {
      size_t At = T.find(Head);
      if (At == StringRef::npos)
        continue;
      StringRef Rest = T.drop_front(At + Head.size()).ltrim();
      if (!Rest.consume_front("=") && !Rest.consume_front(":"))
        continue;
      Rest = Rest.ltrim();
      StringRef Num = Rest.take_while([](char C) { return isAlnum(C); });
      int64_t V = 0;
      if (Num.getAsInteger(0, V))
        continue;
      if (V)
        From = formatv("{0}'s default", sys::path::filename(Name)).str();
      return V;
    }
  }
  return 0;
}

namespace {
/// A linker argument of a link command: a word of a bare linker's command,
/// a part of a -Wl, word, or the word after -Xlinker.
struct LinkerArg {
  size_t Word;  ///< index in the command
  size_t Part;  ///< index in the -Wl, word's comma-separated parts (else 0)
  bool Wl;      ///< a part of a -Wl, word
};
} // namespace

/// The linker arguments of \p Argv, in order (so "--defsym" and its value
/// pair up however the driver was given them).
static std::vector<LinkerArg> linkerArgs(ArrayRef<std::string> Argv) {
  std::vector<LinkerArg> Out;
  bool Linker = isLinker(Argv.front());
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (Linker) {
      Out.push_back({I, 0, false});
    } else if (W.starts_with("-Wl,")) {
      size_t Parts = W.drop_front(4).count(',') + 1;
      for (size_t K = 0; K < Parts; ++K)
        Out.push_back({I, K, true});
    } else if (W == "-Xlinker" && I + 1 < Argv.size()) {
      Out.push_back({++I, 0, false});
    }
  }
  return Out;
}

/// Read or replace one linker argument in the words \p W.
static std::string argText(ArrayRef<std::string> W, const LinkerArg &A) {
  if (!A.Wl)
    return W[A.Word];
  SmallVector<StringRef, 8> Parts;
  StringRef(W[A.Word]).drop_front(4).split(Parts, ',');
  return Parts[A.Part].str();
}

static void setArg(std::vector<std::string> &W, const LinkerArg &A,
                   StringRef Text) {
  if (!A.Wl) {
    W[A.Word] = Text.str();
    return;
  }
  SmallVector<StringRef, 8> Parts;
  std::string Old = W[A.Word];
  StringRef(Old).drop_front(4).split(Parts, ',');
  Parts[A.Part] = Text;
  W[A.Word] = "-Wl," + join(Parts, ",");
}

/// The link's own --defsym=\p Sym=V (every form of it): each takes {pad}
/// for V. Returns the last V ("" when the link sets none).
static std::string placeUserDefsym(std::vector<std::string> &W,
                                   StringRef Sym) {
  std::vector<LinkerArg> Args = linkerArgs(W);
  std::string Value, Key = (Sym + "=").str();
  for (size_t I = 0; I < Args.size(); ++I) {
    std::string A = argText(W, Args[I]);
    StringRef S = A;
    // --defsym=S=V, -defsym=S=V; or --defsym / -defsym, then S=V.
    std::optional<LinkerArg> ValueArg;
    std::string Prefix;
    if (S.consume_front("--defsym=") || S.consume_front("-defsym=")) {
      ValueArg = Args[I];
      Prefix = StringRef(A).drop_back(S.size()).str();
    } else if ((S == "--defsym" || S == "-defsym") && I + 1 < Args.size()) {
      ValueArg = Args[++I];
      A = argText(W, *ValueArg);
      S = A;
    }
    if (!ValueArg || !S.starts_with(Key))
      continue;
    Value = S.drop_front(Key.size()).str();
    setArg(W, *ValueArg, Prefix + Key + "{pad}");
  }
  return Value;
}

/// Options whose value is the next word (so that word is no input file).
static bool takesValue(StringRef W) {
  static const StringSet<> Opts = {
      "-o",      "-T",        "-Xlinker", "-L",     "-l",      "-MF",
      "-MT",     "-MQ",       "-include", "-isystem", "-I",    "-D",
      "-U",      "-x",        "-target",  "-z",     "-e",      "-soname",
      "-rpath",  "-m",        "--script", "-Map",   "--sysroot", "-isysroot",
      "-u",      "-y",        "-Y",       "-arch",  "-h",      "-R"};
  return Opts.contains(W);
}

static bool looksLikeInput(StringRef W) {
  if (W.starts_with("-") || W.starts_with("{"))
    return false;
  StringRef Ext = sys::path::extension(W);
  static const StringSet<> Exts = {".o",   ".obj", ".a",  ".so", ".c",
                                   ".cc",  ".cpp", ".cxx", ".C", ".s",
                                   ".S",   ".lo",  ".bc", ".ll"};
  return Exts.contains(Ext) || W.contains(".so.");
}

Expected<RecordRelink> relinkFromRecord(const LinkRecord &R, StringRef Axis) {
  std::vector<std::string> W = R.Argv;
  bool Out = false;
  for (size_t I = 1; I < W.size(); ++I) {
    StringRef S = W[I];
    if (S == "-o" && I + 1 < W.size()) {
      W[++I] = "{out}";
      Out = true;
    } else if (S.starts_with("-o") && S.size() > 2 && !S.starts_with("-o=")) {
      W[I] = "-o{out}";
      Out = true;
    }
  }
  if (!Out) {
    W.push_back("-o");
    W.push_back("{out}");
  }
  RecordRelink RR;
  RR.ZeroArgv = W;
  std::string Sym = Axis == "code" ? "__keel_code_pad" : "__keel_data_pad";
  if (scriptDefines(R, Sym)) {
    std::string Own = placeUserDefsym(W, Sym);
    if (Own.empty()) {
      W.push_back((isLinker(W.front()) ? "--defsym=" : "-Wl,--defsym=") + Sym +
                  "={pad}");
      RR.PadBase = scriptDefault(R, Sym, RR.PadFrom);
    } else if (StringRef(Own).getAsInteger(0, RR.PadBase)) {
      return makeError("the recorded link sets {0}={1}, which is not a number "
                       "(the sweep adds each offset to it)",
                       Sym, Own);
    } else if (RR.PadBase) {
      RR.PadFrom = formatv("the link's own {0}={1}", Sym, Own).str();
    }
    RR.Argv = std::move(W);
    return RR;
  }
  // The pad goes between the inputs (before the middle one), so the code or
  // data of the two halves moves against each other -- a shift of the whole
  // program by whole cache lines would keep every relative conflict as it
  // is (the spacer report's pad also goes between object files).
  std::vector<size_t> Inputs;
  for (size_t I = 1; I < W.size(); ++I)
    if (!takesValue(W[I - 1]) && looksLikeInput(W[I]))
      Inputs.push_back(I);
  if (Inputs.empty())
    return makeError("the recorded link command names no input file (.o, .a, "
                     ".c ...) to put a pad object before");
  W.insert(W.begin() + Inputs[Inputs.size() / 2], "{padobj}");
  RR.Argv = std::move(W);
  return RR;
}

std::string padObjectPlace(ArrayRef<std::string> Argv) {
  for (size_t I = 0; I + 1 < Argv.size(); ++I)
    if (Argv[I] == "{padobj}")
      return sys::path::filename(Argv[I + 1]).str();
  return "";
}

static std::string relinkExample(StringRef Axis) {
  return formatv("link through `layout-link -- <your link command>` (CMake: "
                 "keel_layout()), or pass --axis={0} --relink='<your link "
                 "command with {{padobj} between the objects and -o {{out}>'",
                 Axis)
      .str();
}

/// The stack axis: swept through the stack shim when the binary starts
/// through a dynamically linked glibc and the shim is there.
static AutoAxis stackAxis(const BinaryFacts &F, StringRef Binary,
                          StringRef StackShim) {
  AutoAxis Stack;
  Stack.Axis = "stack";
  if (!F.Dynamic) {
    Stack.Why = formatv("{0} is statically linked, so the stack shim "
                        "(LD_PRELOAD) cannot start its main lower",
                        Binary)
                    .str();
    Stack.Enable = "link it dynamically (without -static) to sweep the stack "
                   "alone; the env axis moves it with the environment";
  } else if (!F.LibcStart) {
    Stack.Why = formatv("{0} does not start through glibc's "
                        "__libc_start_main, which the stack shim wraps",
                        Binary)
                    .str();
    Stack.Enable = "link it against glibc with its usual start files; the "
                   "env axis moves the stack with the environment";
  } else if (!sys::fs::exists(StackShim)) {
    Stack.Why = formatv("the stack shim '{0}' is missing", StackShim).str();
    Stack.Enable = "build libkeelstackshift.so or pass --stack-shim=FILE";
  } else {
    Stack.Swept = true;
    Stack.How = "main starts N bytes lower on the stack (LD_PRELOAD "
                "libkeelstackshift.so); the environment keeps its size";
  }
  return Stack;
}

/// The env axis: every executable can be swept along it.
static AutoAxis envAxis() {
  AutoAxis Env;
  Env.Axis = "env";
  Env.Swept = true;
  Env.How = "environment size: the environment grows by N bytes, which moves "
            "the initial stack and every stack frame by N";
  return Env;
}

/// The heap axis: swept through the heap shim when the binary is
/// dynamically linked and the shim is there.
static AutoAxis heapAxis(const BinaryFacts &F, StringRef Binary,
                         StringRef HeapShim) {
  AutoAxis Heap;
  Heap.Axis = "heap";
  if (!F.Dynamic) {
    Heap.Why = formatv("{0} is statically linked, so the heap shim "
                       "(LD_PRELOAD) cannot replace its malloc",
                       Binary)
                   .str();
    Heap.Enable = "link it dynamically (without -static) to sweep the heap";
  } else if (!sys::fs::exists(HeapShim)) {
    Heap.Why = formatv("the heap shim '{0}' is missing", HeapShim).str();
    Heap.Enable = "build libkeelheapshift.so or pass --heap-shim=FILE";
  } else {
    Heap.Swept = true;
    Heap.How = "every malloc result moves by N bytes (LD_PRELOAD "
               "libkeelheapshift.so)";
  }
  return Heap;
}

namespace {
/// The binary's link record when it can relink the binary; else why not,
/// and (when there is something to do) how to fix that.
struct RecordCheck {
  std::string Path;
  std::optional<LinkRecord> Rec;
  std::string Why, Enable;
};
} // namespace

static Expected<RecordCheck> checkLinkRecord(StringRef Binary) {
  RecordCheck RC;
  RC.Path = linkRecordPath(Binary);
  if (!sys::fs::exists(RC.Path)) {
    RC.Why = formatv("no link record ({0})", RC.Path).str();
  } else if (Expected<LinkRecord> R = readLinkRecord(RC.Path); !R) {
    RC.Why = toString(R.takeError());
    RC.Enable = "relink through `layout-link -- <your link command>` to write "
                "it again";
  } else {
    Expected<std::string> Sha = fileSHA1(Binary);
    if (!Sha)
      return Sha.takeError();
    if (*Sha != R->SHA1) {
      RC.Why = formatv("the link record {0} is stale: {1} changed since "
                       "layout-link linked it (rebuilt without layout-link?)",
                       RC.Path, Binary)
                   .str();
      RC.Enable = "relink through `layout-link -- <your link command>` (or "
                  "keel_layout()) again";
    } else if (!sys::fs::is_directory(R->Cwd)) {
      RC.Why = formatv("the link record {0} names a directory that is gone: "
                       "{1}",
                       RC.Path, R->Cwd)
                   .str();
      RC.Enable = "relink through `layout-link -- <your link command>` again";
    } else {
      RC.Rec = std::move(*R);
    }
  }
  return RC;
}

/// "relinked from RECORD with ...": how a relink command moves \p Axis.
static std::string relinkHow(const AutoAxis &A, StringRef Axis,
                             StringRef RecPath, StringRef PadFrom) {
  bool Defsym = any_of(A.RelinkArgv, [](const std::string &W) {
    return StringRef(W).contains("--defsym=__keel_");
  });
  std::string Sym = Axis == "code" ? "__keel_code_pad" : "__keel_data_pad";
  std::string With =
      !Defsym ? formatv("N bytes of {0} before {1}",
                        Axis == "code" ? "nops" : "data",
                        padObjectPlace(A.RelinkArgv))
                    .str()
      : A.RelinkPadBase ? formatv("--defsym={0}={1}+N ({1}: {2})", Sym,
                                  A.RelinkPadBase, PadFrom)
                              .str()
                        : "--defsym=" + Sym + "=N";
  return formatv("relinked from {0} with {1}", RecPath, With).str();
}

/// The code or data axis: relinked from the link record, else (code) moved
/// by llvm-bolt when the binary keeps its relocations, else why not.
static AutoAxis relinkAxis(StringRef Axis, const BinaryFacts &F,
                           const RecordCheck &RC, bool HaveBolt) {
  AutoAxis A;
  A.Axis = Axis.str();
  if (RC.Rec) {
    Expected<RecordRelink> RR = relinkFromRecord(*RC.Rec, Axis);
    if (RR) {
      A.Swept = true;
      A.RelinkArgv = std::move(RR->Argv);
      A.RelinkZeroArgv = std::move(RR->ZeroArgv);
      A.RelinkPadBase = RR->PadBase;
      A.RelinkDir = RC.Rec->Cwd;
      A.How = relinkHow(A, Axis, RC.Path, RR->PadFrom);
      return A;
    }
    A.Why = toString(RR.takeError());
    A.Enable = formatv("pass --axis={0} --relink='...'", Axis).str();
  } else {
    A.Why = RC.Why;
    A.Enable = RC.Enable.empty() ? relinkExample(Axis) : RC.Enable;
  }
  if (Axis == "code" && F.EmitRelocs && F.HasMain && HaveBolt) {
    A.Swept = true;
    A.BoltFunction = "main";
    A.How = "llvm-bolt --pad-funcs-before=main:N (the binary keeps its "
            "relocations)";
    A.Why.clear();
    A.Enable.clear();
  } else if (Axis == "code" && !RC.Rec && RC.Enable.empty()) {
    A.Enable += ", or link with -Wl,--emit-relocs (llvm-bolt moves it)";
  }
  return A;
}

Expected<std::vector<AutoAxis>> planAutoAxes(StringRef Binary, StringRef HeapShim,
                                             StringRef StackShim, bool HaveBolt) {
  Expected<BinaryFacts> F = inspectBinary(Binary);
  if (!F)
    return F.takeError();
  std::vector<AutoAxis> Axes;
  Axes.push_back(stackAxis(*F, Binary, StackShim));
  Axes.push_back(envAxis());
  Axes.push_back(heapAxis(*F, Binary, HeapShim));
  Expected<RecordCheck> RC = checkLinkRecord(Binary);
  if (!RC)
    return RC.takeError();
  for (StringRef Axis : {"code", "data"})
    Axes.push_back(relinkAxis(Axis, *F, *RC, HaveBolt));
  return Axes;
}

static const AutoOutcome *outcomeOf(ArrayRef<AutoOutcome> Os, StringRef Axis) {
  for (const AutoOutcome &O : Os)
    if (O.A->Axis == Axis)
      return &O;
  return nullptr;
}

/// "swept (N variants): VERDICT; GATE" for the summary of one swept axis.
static std::string sweptText(const AutoOutcome &O) {
  // Without --max-spread there is no gate to pass: say so (a spread with no
  // threshold must not read as a pass).
  std::string Gate =
      O.G.Failed ? "gate failed: " + (O.G.Reasons.empty() ? std::string("")
                                                          : O.G.Reasons.front())
      : O.G.GateSet ? std::string("gate passed")
                    : std::string("no gate set");
  // A data axis that moved code measured code effects too: say so here.
  return formatv("swept ({0} variant{1}): {2}; {3}{4}", O.R.Ms.size(),
                 O.R.Ms.size() == 1 ? "" : "s", O.G.Verdict, Gate,
                 O.R.CodeMoved.empty() ? "" : "; " + O.R.CodeMoved)
      .str();
}

void writeAutoTextReport(raw_ostream &OS, StringRef Binary,
                         ArrayRef<AutoAxis> Axes, ArrayRef<AutoOutcome> Outcomes) {
  for (const AutoOutcome &O : Outcomes) {
    OS << "== " << O.A->Axis << ": " << O.A->How << "\n";
    writeTextReport(OS, O.R, O.G);
    OS << "\n";
  }
  OS << "summary of " << Binary << ":\n";
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    if (O) {
      OS << formatv("  {0,-6} {1}\n", A.Axis, sweptText(*O));
      continue;
    }
    OS << formatv("  {0,-6} not swept: {1}\n", A.Axis, A.Why);
    if (!A.Enable.empty())
      OS << formatv("  {0,-6} to sweep it: {1}\n", "", A.Enable);
  }
}

json::Value autoReportJSON(StringRef Binary, ArrayRef<AutoAxis> Axes,
                           ArrayRef<AutoOutcome> Outcomes) {
  json::Object AxesJ;
  json::Array NotSwept, FailedAxes;
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    if (O) {
      json::Value V = reportJSON(O->R, O->G);
      if (json::Object *Obj = V.getAsObject())
        (*Obj)["how"] = A.How;
      AxesJ[A.Axis] = std::move(V);
      if (O->G.Failed)
        FailedAxes.push_back(A.Axis);
    } else {
      NotSwept.push_back(
          json::Object{{"axis", A.Axis}, {"reason", A.Why}, {"enable", A.Enable}});
    }
  }
  json::Array Order;
  for (const AutoAxis &A : Axes)
    Order.push_back(A.Axis);
  json::Object Top{{"version", ReportVersion},
                   {"mode", "auto"},
                   {"binary", Binary},
                   {"axis_order", std::move(Order)},
                   {"axes", std::move(AxesJ)},
                   {"not_swept", std::move(NotSwept)},
                   {"gate",
                    json::Object{{"failed", !FailedAxes.empty()},
                                 {"failed_axes", std::move(FailedAxes)}}}};
  if (std::optional<Provenance> P = autoProvenance(Outcomes))
    Top["provenance"] = toJSON(*P, Outcomes.front().R.Backend);
  return Top;
}

std::optional<Provenance> autoProvenance(ArrayRef<AutoOutcome> Outcomes) {
  if (Outcomes.empty() || Outcomes.front().R.Prov.empty())
    return std::nullopt;
  // Every axis was swept by the same command: its record, with each axis'
  // relink commands named by axis.
  Provenance P = Outcomes.front().R.Prov;
  P.Relink.clear();
  for (const AutoOutcome &O : Outcomes)
    for (const std::string &C : O.R.Prov.Relink)
      P.Relink.push_back(O.A->Axis + ": " + C);
  return P;
}

void writeAutoCSVReport(raw_ostream &OS, ArrayRef<AutoOutcome> Outcomes) {
  // One table: the CSV has series and axis columns, and its relative costs
  // are to each (series, axis) mean.
  SweepResult All;
  for (const AutoOutcome &O : Outcomes) {
    All.Ms.insert(All.Ms.end(), O.R.Ms.begin(), O.R.Ms.end());
    if (O.R.Compare) {
      if (!All.Compare)
        All.Compare = Series{"compare", O.R.Compare->Binary, {}, ""};
      All.Compare->Ms.insert(All.Compare->Ms.end(), O.R.Compare->Ms.begin(),
                             O.R.Compare->Ms.end());
    }
    All.NoiseFloor.insert(All.NoiseFloor.end(), O.R.NoiseFloor.begin(),
                          O.R.NoiseFloor.end());
  }
  writeCSVReport(OS, All);
}

/// An attribute's value in the first tag of \p SVG ("" when absent).
static StringRef svgAttribute(StringRef SVG, StringRef Name) {
  StringRef Tag = SVG.take_until([](char C) { return C == '>'; });
  size_t At = Tag.find((" " + Name + "=\"").str());
  if (At == StringRef::npos)
    return "";
  return Tag.drop_front(At + Name.size() + 3).take_until([](char C) {
    return C == '"';
  });
}

void writeAutoSVGPlot(raw_ostream &OS, ArrayRef<AutoOutcome> Outcomes) {
  // Each axis' plot as it is on its own, one below the other (nested <svg>
  // elements placed with y).
  std::vector<std::string> Plots;
  int W = 0, H = 0;
  for (const AutoOutcome &O : Outcomes) {
    std::string P;
    raw_string_ostream PS(P);
    writeSVGPlot(PS, O.R, O.G);
    int PW = 0, PH = 0;
    svgAttribute(P, "width").getAsInteger(10, PW);
    svgAttribute(P, "height").getAsInteger(10, PH);
    W = std::max(W, PW);
    H += PH;
    Plots.push_back(std::move(P));
  }
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H << "\">\n";
  int Y = 0;
  for (const std::string &P : Plots) {
    StringRef Rest = StringRef(P);
    Rest.consume_front("<svg");
    OS << "<svg x=\"0\" y=\"" << Y << "\"" << Rest;
    int PH = 0;
    svgAttribute(P, "height").getAsInteger(10, PH);
    Y += PH;
  }
  OS << "</svg>\n";
}

void writeAutoHTMLReport(raw_ostream &OS, StringRef Binary,
                         ArrayRef<AutoAxis> Axes,
                         ArrayRef<AutoOutcome> Outcomes) {
  writeHTMLHead(OS, ("layout sweep: " + Binary + ", every axis").str());
  OS << "<h1>layout sweep: " << escapeMarkup(sys::path::filename(Binary))
     << ", every axis</h1>\n";
  std::optional<Provenance> P = autoProvenance(Outcomes);
  writeHTMLProvenance(OS, P ? *P : Provenance(),
                      Outcomes.empty() ? "" : Outcomes.front().R.Backend);
  OS << "<table class=\"axes\">\n<tr><th>axis</th><th>how</th><th>result"
        "</th></tr>\n";
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    OS << "<tr><th>";
    if (O)
      OS << "<a href=\"#axis-" << escapeMarkup(A.Axis) << "\">" << escapeMarkup(A.Axis)
         << "</a>";
    else
      OS << escapeMarkup(A.Axis);
    OS << "</th><td>" << escapeMarkup(O ? A.How : "not swept: " + A.Why)
       << "</td><td" << (O && O->G.Failed ? " class=\"fail\"" : "") << ">"
       << escapeMarkup(O ? sweptText(*O) : "to sweep it: " + A.Enable)
       << "</td></tr>\n";
  }
  OS << "</table>\n";
  for (const AutoOutcome &O : Outcomes) {
    OS << "<h2 id=\"axis-" << escapeMarkup(O.A->Axis) << "\">" << escapeMarkup(O.A->Axis)
       << ": " << escapeMarkup(O.A->How) << "</h2>\n";
    writeHTMLSection(OS, O.R, O.G, "h3");
  }
  OS << "</body>\n</html>\n";
}

/// Axis \p Name of a saved automatic sweep as swept: its "how".
static AutoAxis sweptAxis(StringRef Name, const json::Object &Report) {
  AutoAxis A;
  A.Axis = Name.str();
  A.Swept = true;
  if (std::optional<StringRef> How = Report.getString("how"))
    A.How = How->str();
  return A;
}

Expected<std::optional<SavedAutoSweep>> readAutoReport(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  std::optional<StringRef> Mode = O ? O->getString("mode") : std::nullopt;
  if (!Mode || *Mode != "auto")
    return std::nullopt;
  if (std::optional<int64_t> Ver = O->getInteger("version");
      Ver && *Ver > ReportVersion)
    return inputError(Path, 0,
                      "report version {0} is newer than this tool's ({1})",
                      *Ver, ReportVersion);
  SavedAutoSweep S;
  if (std::optional<StringRef> B = O->getString("binary"))
    S.Binary = B->str();
  const json::Object *AxesJ = O->getObject("axes");
  if (!AxesJ)
    return inputError(Path, 0, "an automatic sweep's report without \"axes\"");
  std::map<std::string, AutoAxis> NotSwept;
  if (const json::Array *NS = O->getArray("not_swept"))
    for (const json::Value &E : *NS) {
      const json::Object *X = E.getAsObject();
      std::optional<StringRef> Name = X ? X->getString("axis") : std::nullopt;
      if (!Name)
        return inputError(Path, 0, "not_swept: an entry without \"axis\"");
      AutoAxis A;
      A.Axis = Name->str();
      A.Why = X->getString("reason").value_or("").str();
      A.Enable = X->getString("enable").value_or("").str();
      NotSwept[A.Axis] = std::move(A);
    }
  // The axes in the order they were planned (older reports: swept ones by
  // name, then the others).
  std::vector<std::string> Order;
  if (const json::Array *OA = O->getArray("axis_order"))
    for (const json::Value &E : *OA)
      if (std::optional<StringRef> N = E.getAsString())
        Order.push_back(N->str());
  if (Order.empty()) {
    for (const auto &KV : *AxesJ)
      Order.push_back(KV.first.str());
    for (const auto &KV : NotSwept)
      Order.push_back(KV.first);
    llvm::sort(Order.begin(), Order.begin() + AxesJ->size());
  }
  for (const std::string &Name : Order) {
    if (const json::Value *Rep = AxesJ->get(Name)) {
      SweepResult R;
      json::Path::Root Root("axes");
      if (!fromJSON(*Rep, R, Root))
        return inputError(Path, 0, "axis '{0}' is not a sweep result: {1}",
                          Name, toString(Root.getError()));
      S.Axes.push_back(sweptAxis(Name, *Rep->getAsObject()));
      S.Results.push_back(std::move(R));
    } else if (auto It = NotSwept.find(Name); It != NotSwept.end()) {
      S.Axes.push_back(It->second);
    } else {
      return inputError(Path, 0, "axis_order names '{0}', which is neither "
                        "in \"axes\" nor in \"not_swept\"", Name);
    }
  }
  return S;
}

Expected<std::map<std::string, SweepResult>>
readBaselineAxes(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return inputError(Path, 0, "not a sweep report (no JSON object)");
  if (std::optional<int64_t> Ver = O->getInteger("version");
      Ver && *Ver > ReportVersion)
    return inputError(Path, 0,
                      "report version {0} is newer than this tool's ({1})",
                      *Ver, ReportVersion);
  std::map<std::string, SweepResult> Out;
  std::optional<StringRef> Mode = O->getString("mode");
  if (!Mode || *Mode != "auto") { // one axis' report
    Expected<SweepResult> R = readResultFile(Path);
    if (!R)
      return R.takeError();
    Out[R->Axis] = std::move(*R);
    return Out;
  }
  const json::Object *AxesJ = O->getObject("axes");
  if (!AxesJ)
    return inputError(Path, 0, "an automatic sweep's report without \"axes\"");
  for (const auto &[Name, Value] : *AxesJ) {
    SweepResult R;
    json::Path::Root Root("axes");
    if (!fromJSON(Value, R, Root))
      return inputError(Path, 0, "axis '{0}' is not a sweep result: {1}",
                        Name.str(), toString(Root.getError()));
    Out[Name.str()] = std::move(R);
  }
  return Out;
}

Expected<SweepResult> readBaselineAxis(StringRef Path, StringRef Axis) {
  Expected<std::optional<SavedAutoSweep>> Auto = readAutoReport(Path);
  if (!Auto)
    return Auto.takeError();
  if (!*Auto) // a one-axis result: the gate checks that its axis matches
    return readResultFile(Path);
  std::string Swept;
  for (size_t I = 0, K = 0; I < (*Auto)->Axes.size(); ++I) {
    const AutoAxis &A = (*Auto)->Axes[I];
    if (!A.Swept)
      continue;
    if (A.Axis == Axis)
      return std::move((*Auto)->Results[K]);
    Swept += (Swept.empty() ? "" : ", ") + A.Axis;
    ++K;
  }
  return inputError(Path, 0,
                    "an automatic sweep's report without the {0} axis (it "
                    "swept {1})",
                    Axis, Swept.empty() ? std::string("none") : Swept);
}

} // namespace sweep
} // namespace keel
