//===- Replay.cpp - rebuild one program from its recorded commands --------===//
#include "keel/Optimize/Replay.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;

namespace keel {
namespace optimize {

/// The link that wrote \p Binary (a path or a file name), or the last link.
static Expected<size_t> findLink(ArrayRef<RecordedCommand> Log,
                                 StringRef Binary, StringRef LogPath) {
  std::optional<size_t> Found;
  for (size_t I = 0; I < Log.size(); ++I) {
    if (classify(Log[I].Argv) != CommandKind::Link)
      continue;
    for (const std::string &Out : outputsOf(Log[I])) {
      bool Match = Binary.empty() ||
                   (Binary.contains('/') ? Out == Binary
                                         : sys::path::filename(Out) == Binary);
      if (Match)
        Found = I;
    }
  }
  if (!Found)
    return inputError(
        LogPath, 0, "{0}",
        Binary.empty()
            ? std::string("no link command recorded: the build linked no "
                          "program through keel-cc (does it use $CC? a build "
                          "that had nothing to do records nothing: clean it "
                          "first)")
            : formatv("no recorded link wrote '{0}' (does the build link it "
                      "with $CC? a build that had nothing to do records "
                      "nothing: clean it first)",
                      Binary)
                  .str());
  return *Found;
}

/// The last compile before \p Before that wrote each output.
static std::map<std::string, size_t>
compileOutputs(ArrayRef<RecordedCommand> Log, size_t Before) {
  std::map<std::string, size_t> Out;
  for (size_t I = 0; I < Before; ++I)
    if (classify(Log[I].Argv) == CommandKind::Compile)
      for (const std::string &O : outputsOf(Log[I]))
        Out[O] = I;
  return Out;
}

/// The compile whose output has \p Name and the bytes \p Bytes.
static int memberCompile(const std::map<std::string, size_t> &Outs,
                         StringRef Name, StringRef Bytes) {
  for (const auto &[Path, I] : Outs) {
    if (sys::path::filename(Path) != Name)
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
    if (B && (*B)->getBuffer() == Bytes)
      return int(I);
  }
  return -1;
}

/// The static library a link's `-l` option \p L reads, found in the link's
/// `-L` directories in order as the linker searches them (libNAME.so before
/// libNAME.a in each, unless the link is -static); "" when it is a shared
/// library or not in those directories (a system library: linked as it is).
static std::string staticLibraryOf(const RecordedCommand &Link,
                                   const LibraryOption &L) {
  // A libNAME.a that is no archive (a GNU ld script, as some distributions
  // install) is the linker's to read: linked as it is.
  auto Archive = [](const std::string &F) -> std::string {
    file_magic M;
    return !identify_magic(F, M) && M == file_magic::archive ? F : "";
  };
  bool Static = is_contained(Link.Argv, "-static");
  for (const std::string &Dir : librarySearchDirs(Link.Argv)) {
    std::string D = absolutePath(Link.Cwd, Dir);
    if (L.Exact) {
      std::string F = D + "/" + L.Name;
      if (sys::fs::is_regular_file(F))
        return Archive(F);
      continue;
    }
    if (!Static && sys::fs::exists(D + "/lib" + L.Name + ".so"))
      return "";
    if (sys::fs::is_regular_file(D + "/lib" + L.Name + ".a"))
      return Archive(D + "/lib" + L.Name + ".a");
  }
  return "";
}

/// Archive \p Abs of a link, each member matched to the compile that made
/// it (added to \p P by \p Use); \p Unrebuilt counts the members none made.
template <typename UseFn>
static Expected<ReplayPlan::Archive>
readLinkedArchive(StringRef Abs, StringRef Binary,
                  const std::map<std::string, size_t> &Outs,
                  ArrayRef<RecordedCommand> Log, UseFn Use, size_t &Unrebuilt) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Abs);
  if (!B)
    return inputError(Abs, 0, "cannot read the archive the link of {0} reads: {1}",
                      Binary, B.getError().message());
  Expected<std::unique_ptr<object::Archive>> A =
      object::Archive::create((*B)->getMemBufferRef());
  if (!A)
    return inputError(Abs, 0, "not an archive: {0}", toString(A.takeError()));
  ReplayPlan::Archive R;
  R.Path = Abs;
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*A)->children(Err)) {
    Expected<StringRef> Name = C.getName();
    Expected<StringRef> Bytes = C.getBuffer();
    if (!Name || !Bytes) {
      consumeError(Name.takeError());
      consumeError(Bytes.takeError());
      return inputError(Abs, 0, "cannot read a member of the archive");
    }
    int I = memberCompile(Outs, *Name, *Bytes);
    if (I < 0) {
      ++Unrebuilt;
      R.MemberCompile.push_back(-1);
      continue;
    }
    std::string Out = outputsOf(Log[I]).front();
    for (const std::string &O : outputsOf(Log[I]))
      if (sys::path::filename(O) == *Name)
        Out = O;
    R.MemberCompile.push_back(Use(size_t(I), Out));
  }
  if (Err)
    return inputError(Abs, 0, "cannot read the archive: {0}",
                      toString(std::move(Err)));
  return std::move(R);
}

Expected<ReplayPlan> planReplay(ArrayRef<RecordedCommand> Log, StringRef Binary,
                                StringRef LogPath) {
  Expected<size_t> L = findLink(Log, Binary, LogPath);
  if (!L)
    return L.takeError();
  ReplayPlan P;
  P.Link = Log[*L];
  P.Binary = outputsOf(P.Link).front();
  std::map<std::string, size_t> Outs = compileOutputs(Log, *L);
  std::map<size_t, int> Index; // log index -> Compiles index
  auto Use = [&](size_t I, const std::string &Out) {
    auto [It, New] = Index.try_emplace(I, int(P.Compiles.size()));
    if (New) {
      P.Compiles.push_back(Log[I]);
      P.CompileOutputs.push_back(Out);
    }
    return It->second;
  };
  for (const std::string &In : linkInputs(P.Link.Argv)) {
    std::string Abs = absolutePath(P.Link.Cwd, In);
    if (!StringRef(Abs).ends_with(".a")) {
      auto It = Outs.find(Abs);
      if (It == Outs.end())
        ++P.Unrebuilt;
      else
        Use(It->second, Abs);
      continue;
    }
    size_t Unrebuilt = 0;
    Expected<ReplayPlan::Archive> R =
        readLinkedArchive(Abs, P.Binary, Outs, Log, Use, Unrebuilt);
    if (!R)
      return R.takeError();
    P.Unrebuilt += Unrebuilt;
    P.Archives.push_back(std::move(*R));
  }
  // Archives named by -l: those the build made (a member from a recorded
  // compile) are rebuilt like the ones named as files; others (system
  // libraries, prebuilt ones) are linked as they are.
  for (const LibraryOption &L : libraryOptions(P.Link.Argv)) {
    std::string Abs = staticLibraryOf(P.Link, L);
    if (Abs.empty() || llvm::any_of(P.Archives, [&](const ReplayPlan::Archive &A) {
          return A.Path == Abs;
        }))
      continue;
    size_t Unrebuilt = 0;
    Expected<ReplayPlan::Archive> R =
        readLinkedArchive(Abs, P.Binary, Outs, Log, Use, Unrebuilt);
    if (!R)
      return R.takeError();
    if (Unrebuilt == R->MemberCompile.size()) // no member from this build
      continue;
    P.Unrebuilt += Unrebuilt;
    P.Archives.push_back(std::move(*R));
  }
  return P;
}

/// Dependency outputs a replay must not write into the build tree.
static bool isDependencyFlag(StringRef W, bool &TakesNext) {
  TakesNext = W == "-MF" || W == "-MT" || W == "-MQ";
  return TakesNext || W == "-MD" || W == "-MMD" || W == "-MP" ||
         W.starts_with("-Wp,-MD,") || W.starts_with("-Wp,-MMD,") ||
         (W.starts_with("-MF") && W.size() > 3) ||
         (W.starts_with("-MT") && W.size() > 3) ||
         (W.starts_with("-MQ") && W.size() > 3);
}

std::vector<std::string> replayArgv(const RecordedCommand &C, StringRef Output,
                                    ArrayRef<std::string> Extra) {
  std::vector<std::string> A;
  bool HadOut = false;
  for (size_t I = 0; I < C.Argv.size(); ++I) {
    StringRef W = C.Argv[I];
    bool Next = false;
    if (I > 0 && isDependencyFlag(W, Next)) {
      I += Next;
      continue;
    }
    if (I > 0 && W == "-o" && I + 1 < C.Argv.size()) {
      A.push_back("-o");
      A.push_back(Output.str());
      ++I;
      HadOut = true;
      continue;
    }
    if (I > 0 && W.starts_with("-o") && W.size() > 2) {
      A.push_back("-o" + Output.str());
      HadOut = true;
      continue;
    }
    A.push_back(W.str());
  }
  if (!HadOut) {
    A.push_back("-o");
    A.push_back(Output.str());
  }
  A.insert(A.end(), profilingFlags().begin(), profilingFlags().end());
  A.insert(A.end(), Extra.begin(), Extra.end());
  return A;
}


/// Run \p Argv in \p Cwd (through `env -C`); its output goes to \p Log.
static Error runIn(StringRef Cwd, ArrayRef<std::string> Argv, StringRef Log) {
  Expected<std::string> Env = findProgram("env");
  if (!Env)
    return Env.takeError();
  std::vector<std::string> A = {*Env, "-C", Cwd.str()};
  A.insert(A.end(), Argv.begin(), Argv.end());
  RunOptions O;
  O.Stdout = Log.str();
  O.Stderr = Log.str() + ".err";
  Expected<RunResult> R = runProgram(A, O);
  if (!R)
    return R.takeError();
  if (R->ExitCode == 0 && !R->Crashed)
    return Error::success();
  std::string Tail;
  if (Expected<std::string> T = readWholeFile(Log.str() + ".err"))
    Tail = StringRef(*T).take_back(1500).rtrim().str();
  else
    consumeError(T.takeError());
  return makeError("rebuild: `{0}` in {1} {2}{3}{4}", displayCommand(Argv), Cwd,
                   R->Crashed ? R->Message
                              : formatv("exited with status {0}", R->ExitCode)
                                    .str(),
                   Tail.empty() ? "" : ":\n", Tail);
}

/// The compiles of \p P, \p Jobs at a time; the first failure wins.
static Error runCompiles(const ReplayPlan &P, StringRef ObjDir,
                         const ReplayFlags &F,
                         const std::vector<std::string> &Objects,
                         std::vector<ReplayedCommand> &Commands) {
  std::vector<std::vector<std::string>> Argvs;
  for (size_t I = 0; I < P.Compiles.size(); ++I) {
    Argvs.push_back(replayArgv(P.Compiles[I], Objects[I], F.Compile));
    Commands.push_back({P.Compiles[I].Cwd, Argvs.back()});
  }
  std::atomic<size_t> Next{0};
  std::mutex M;
  std::optional<std::pair<size_t, std::string>> First;
  auto Work = [&] {
    for (size_t I; (I = Next++) < Argvs.size();) {
      {
        std::lock_guard<std::mutex> G(M);
        if (First)
          return;
      }
      std::string Log = formatv("{0}/{1}.log", ObjDir, I).str();
      if (Error E = runIn(P.Compiles[I].Cwd, Argvs[I], Log)) {
        std::lock_guard<std::mutex> G(M);
        std::string Msg = toString(std::move(E));
        if (!First || I < First->first)
          First.emplace(I, std::move(Msg));
      }
    }
  };
  std::vector<std::thread> Ts;
  for (unsigned J = 0; J < std::max(1u, F.Jobs); ++J)
    Ts.emplace_back(Work);
  for (std::thread &T : Ts)
    T.join();
  if (First)
    return makeError("{0}", First->second);
  return Error::success();
}

/// Write archive \p A of \p P with the replayed members to \p Path.
static Error writeArchiveCopy(const ReplayPlan::Archive &A,
                              const std::vector<std::string> &Objects,
                              StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(A.Path);
  if (!B)
    return inputError(A.Path, 0, "cannot read: {0}", B.getError().message());
  Expected<std::unique_ptr<object::Archive>> Old =
      object::Archive::create((*B)->getMemBufferRef());
  if (!Old)
    return inputError(A.Path, 0, "not an archive: {0}", toString(Old.takeError()));
  std::vector<NewArchiveMember> Members;
  std::vector<std::string> Names; // NewArchiveMember keeps a StringRef
  Names.reserve(A.MemberCompile.size());
  Error Err = Error::success();
  size_t K = 0;
  for (const object::Archive::Child &C : (*Old)->children(Err)) {
    int I = K < A.MemberCompile.size() ? A.MemberCompile[K] : -1;
    ++K;
    Expected<NewArchiveMember> NM =
        I < 0 ? NewArchiveMember::getOldMember(C, /*Deterministic=*/true)
              : NewArchiveMember::getFile(Objects[size_t(I)], true);
    if (!NM)
      return makeError("{0}: {1}", A.Path, toString(NM.takeError()));
    if (I >= 0) {
      Expected<StringRef> Name = C.getName();
      if (!Name)
        return makeError("{0}: {1}", A.Path, toString(Name.takeError()));
      Names.push_back(Name->str());
      NM->MemberName = Names.back();
    }
    Members.push_back(std::move(*NM));
  }
  if (Err)
    return makeError("{0}: {1}", A.Path, toString(std::move(Err)));
  Expected<std::unique_ptr<MemoryBuffer>> Out = writeArchiveToBuffer(
      Members, SymtabWritingMode::NormalSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false);
  if (!Out)
    return makeError("{0}: {1}", Path, toString(Out.takeError()));
  return writeOutput(Path, [&](raw_ostream &OS) {
    OS << (*Out)->getBuffer();
    return Error::success();
  });
}

Error rerunCommand(const ReplayedCommand &C, StringRef Log) {
  return runIn(C.Cwd, C.Argv, Log);
}

Error runReplay(const ReplayPlan &P, StringRef ObjDir, const ReplayFlags &F,
                StringRef Output, std::vector<ReplayedCommand> &Commands) {
  std::vector<std::string> Objects;
  for (size_t I = 0; I < P.Compiles.size(); ++I)
    Objects.push_back(formatv("{0}/{1}-{2}", ObjDir, I,
                              sys::path::filename(P.CompileOutputs[I]))
                          .str());
  if (Error E = runCompiles(P, ObjDir, F, Objects, Commands))
    return E;
  // Link inputs: replayed objects and archives replace the recorded ones.
  StringMap<std::string> Replace;
  for (size_t I = 0; I < P.Compiles.size(); ++I)
    Replace[P.CompileOutputs[I]] = Objects[I];
  for (size_t I = 0; I < P.Archives.size(); ++I) {
    std::string Path = formatv("{0}/a{1}-{2}", ObjDir, I,
                               sys::path::filename(P.Archives[I].Path))
                           .str();
    if (Error E = writeArchiveCopy(P.Archives[I], Objects, Path))
      return E;
    Replace[P.Archives[I].Path] = Path;
  }
  RecordedCommand Link = P.Link;
  for (size_t I = 1; I < Link.Argv.size(); ++I) {
    if (takesValue(Link.Argv[I])) {
      ++I;
      continue;
    }
    auto It = Replace.find(absolutePath(Link.Cwd, Link.Argv[I]));
    if (It != Replace.end())
      Link.Argv[I] = It->second;
  }
  // A rebuilt archive the link named by -l: the option becomes the copy's
  // path, in place (last first, so that earlier indices stay).
  std::vector<LibraryOption> Libs = libraryOptions(Link.Argv);
  for (auto L = Libs.rbegin(); L != Libs.rend(); ++L) {
    std::string Abs = staticLibraryOf(P.Link, *L);
    auto It = Abs.empty() ? Replace.end() : Replace.find(Abs);
    if (It == Replace.end())
      continue;
    Link.Argv[L->Index] = It->second;
    if (L->Words == 2)
      Link.Argv.erase(Link.Argv.begin() + L->Index + 1);
  }
  std::vector<std::string> Extra = F.Link;
  if (!sources(Link.Argv).empty()) // the link compiles too
    Extra.insert(Extra.begin(), F.Compile.begin(), F.Compile.end());
  std::vector<std::string> Argv = replayArgv(Link, Output, Extra);
  Commands.push_back({Link.Cwd, Argv});
  return runIn(Link.Cwd, Argv, (ObjDir + "/link.log").str());
}

} // namespace optimize
} // namespace keel
