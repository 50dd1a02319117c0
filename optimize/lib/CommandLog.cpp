//===- CommandLog.cpp - compile and link commands, as run -----------------===//
#include "keel/Optimize/CommandLog.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <sys/file.h>
#include <unistd.h>

using namespace llvm;

namespace keel {
namespace optimize {

ArrayRef<std::string> profilingFlags() {
  static const std::vector<std::string> Flags = {
      "-ffunction-sections",      "-fdata-sections",
      "-fbasic-block-address-map", "-fdebug-default-version=4",
      "-fuse-ld=lld",             "-Qunused-arguments"};
  return Flags;
}

Error appendCommand(StringRef Path, const RecordedCommand &C) {
  json::Array Argv;
  for (const std::string &A : C.Argv)
    Argv.push_back(A);
  std::string Line;
  raw_string_ostream OS(Line);
  OS << json::Value(json::Object{{"cwd", C.Cwd}, {"argv", std::move(Argv)}})
     << "\n";
  OS.flush();
  int FD = -1;
  if (std::error_code EC = sys::fs::openFileForWrite(
          Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return makeError("cannot open the command log '{0}': {1}", Path,
                     EC.message());
  // One write under an exclusive lock: parallel compiles append whole lines.
  ::flock(FD, LOCK_EX);
  ssize_t N = ::write(FD, Line.data(), Line.size());
  ::flock(FD, LOCK_UN);
  ::close(FD);
  if (N != ssize_t(Line.size()))
    return makeError("cannot append to the command log '{0}'", Path);
  return Error::success();
}

Expected<std::vector<RecordedCommand>> readCommandLog(StringRef Path) {
  Expected<std::string> Text = readWholeFile(Path);
  if (!Text)
    return Text.takeError();
  std::vector<RecordedCommand> Cmds;
  unsigned LineNo = 0;
  StringRef Rest = *Text;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    ++LineNo;
    if (Line.trim().empty())
      continue;
    Expected<json::Value> V = json::parse(Line);
    if (!V)
      return inputError(Path, LineNo, "not a JSON command: {0}",
                        toString(V.takeError()));
    RecordedCommand C;
    C.Line = LineNo;
    const json::Object *O = V->getAsObject();
    const json::Array *A = O ? O->getArray("argv") : nullptr;
    std::optional<StringRef> Cwd = O ? O->getString("cwd") : std::nullopt;
    if (!A || !Cwd || A->empty())
      return inputError(Path, LineNo,
                        "a command needs \"cwd\" and a non-empty \"argv\"");
    C.Cwd = Cwd->str();
    for (const json::Value &W : *A) {
      std::optional<StringRef> S = W.getAsString();
      if (!S)
        return inputError(Path, LineNo, "\"argv\" holds a non-string");
      C.Argv.push_back(S->str());
    }
    Cmds.push_back(std::move(C));
  }
  return Cmds;
}

bool takesValue(StringRef W) {
  static const StringSet<> Opts = {
      "-o",        "-I",        "-D",         "-U",       "-include",
      "-imacros",  "-isystem",  "-iquote",    "-idirafter", "-iprefix",
      "-isysroot", "--sysroot", "-MF",        "-MT",      "-MQ",
      "-x",        "-L",        "-l",         "-Xlinker", "-Xclang",
      "-Xassembler", "-Xpreprocessor", "-mllvm", "-arch", "-target",
      "-T",        "-z",        "-e",         "-u",       "-working-directory",
      "-main-file-name", "-ivfsoverlay", "-dependency-file"};
  return Opts.contains(W);
}

static bool hasExtension(StringRef W, std::initializer_list<StringRef> Exts) {
  StringRef E = sys::path::extension(W);
  for (StringRef X : Exts)
    if (E == X)
      return true;
  return false;
}

/// Words of \p Argv (after the compiler) that are no option and no
/// option's value.
static std::vector<std::string> operands(ArrayRef<std::string> Argv) {
  std::vector<std::string> Ws;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (takesValue(W)) {
      ++I;
      continue;
    }
    if (W.starts_with("-") || W.starts_with("@") || W.empty())
      continue;
    Ws.push_back(W.str());
  }
  return Ws;
}

std::vector<std::string> sources(ArrayRef<std::string> Argv) {
  std::vector<std::string> S;
  for (const std::string &W : operands(Argv))
    if (hasExtension(W, {".c", ".cc", ".cpp", ".cxx", ".C", ".c++", ".s", ".S",
                         ".i", ".ii", ".m"}))
      S.push_back(W);
  return S;
}

std::vector<std::string> linkInputs(ArrayRef<std::string> Argv) {
  std::vector<std::string> S;
  for (const std::string &W : operands(Argv))
    if (hasExtension(W, {".o", ".lo", ".obj", ".a"}))
      S.push_back(W);
  return S;
}

std::vector<LibraryOption> libraryOptions(ArrayRef<std::string> Argv) {
  std::vector<LibraryOption> L;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    LibraryOption O;
    O.Index = I;
    if (W == "-l") {
      if (I + 1 == Argv.size())
        break;
      O.Words = 2;
      W = Argv[++I];
    } else if (W.starts_with("-l")) {
      W = W.drop_front(2);
    } else {
      if (takesValue(W))
        ++I;
      continue;
    }
    O.Exact = W.consume_front(":");
    if (W.empty())
      continue;
    O.Name = W.str();
    L.push_back(std::move(O));
  }
  return L;
}

std::vector<std::string> librarySearchDirs(ArrayRef<std::string> Argv) {
  std::vector<std::string> D;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (W == "-L") {
      if (I + 1 < Argv.size())
        D.push_back(Argv[++I]);
    } else if (W.starts_with("-L")) {
      D.push_back(W.drop_front(2).str());
    } else if (takesValue(W)) {
      ++I;
    }
  }
  return D;
}

CommandKind classify(ArrayRef<std::string> Argv) {
  bool Compile = false;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (takesValue(W)) {
      ++I;
      continue;
    }
    if (W == "-c")
      Compile = true;
    else if (W == "-S" || W == "-E" || W == "-M" || W == "-MM" ||
             W == "-fsyntax-only" || W == "--version" || W == "-v" ||
             W == "-V" || W == "-dumpversion" || W == "-dumpmachine" ||
             W == "-qversion" || W.starts_with("-print-") ||
             W.starts_with("--print-") || W == "-###" || W == "--help")
      return CommandKind::Other;
  }
  if (Compile)
    return CommandKind::Compile;
  // A link reads at least one input (a bare `cc -v` or `cc` reads none).
  if (sources(Argv).empty() && linkInputs(Argv).empty())
    return CommandKind::Other;
  return CommandKind::Link;
}

std::string absolutePath(StringRef Cwd, StringRef Path) {
  SmallString<256> P(Path);
  if (!sys::path::is_absolute(P)) {
    P = Cwd;
    sys::path::append(P, Path);
  }
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

std::vector<std::string> outputsOf(const RecordedCommand &C) {
  ArrayRef<std::string> A = C.Argv;
  for (size_t I = 1; I < A.size(); ++I) {
    if (A[I] == "-o" && I + 1 < A.size())
      return {absolutePath(C.Cwd, A[I + 1])};
    if (StringRef(A[I]).starts_with("-o") && A[I].size() > 2)
      return {absolutePath(C.Cwd, StringRef(A[I]).drop_front(2))};
  }
  if (classify(A) == CommandKind::Compile) {
    std::vector<std::string> Outs;
    for (const std::string &S : sources(A)) {
      SmallString<128> Name(sys::path::filename(S));
      sys::path::replace_extension(Name, ".o");
      Outs.push_back(absolutePath(C.Cwd, Name));
    }
    return Outs;
  }
  return {absolutePath(C.Cwd, "a.out")};
}

} // namespace optimize
} // namespace keel
