//===- AutoRelink.cpp - a relink command from a link record ---------------===//
//
// The automatic sweep's code and data axes relink the binary from the
// command layout-link saved beside it: that command's linker scripts and
// --defsym words take the pad ({pad}), and a pad object ({padobj}) goes
// between its input files.
//
//===----------------------------------------------------------------------===//

#include "keel/Sweep/Auto.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Sweep/Perturb.h"

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

Expected<RecordRelink> relinkFromRecord(const LinkRecord &R, AxisKind Axis) {
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
  std::string Sym =
      Axis == AxisKind::Code ? "__keel_code_pad" : "__keel_data_pad";
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

} // namespace sweep
} // namespace keel
