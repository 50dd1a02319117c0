//===- Perturb.cpp - build and configure one layout variant ---------------===//
#include "keel/Sweep/Perturb.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "keel/Support/Text.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace keel {
namespace sweep {

Error checkRelinkTemplate(StringRef Option, StringRef T) {
  Expected<std::vector<std::string>> Words = splitCommandTemplate(T);
  if (!Words)
    return makeError("--{0}: {1}", Option, toString(Words.takeError()));
  auto Has = [&](StringRef P) {
    return any_of(*Words, [&](const std::string &W) { return StringRef(W).contains(P); });
  };
  if (!Has("{out}"))
    return makeError("--{0} template has no {{out} (where the variant binary "
                     "goes): '{1}'",
                     Option, T);
  if (!Has("{pad}") && !Has("{padobj}"))
    return makeError("--{0} template has no {{pad} or {{padobj} (the padding "
                     "bytes): '{1}'",
                     Option, T);
  // A relink program that is not there would fail every variant.
  if (!Words->empty() && !StringRef(Words->front()).contains('{'))
    if (Expected<std::string> P = findCommand(Words->front()); !P)
      return inputError("--" + Option.str(), 0, "{0}", toString(P.takeError()));
  return Error::success();
}

std::string
substitutePlaceholders(StringRef Word,
                       ArrayRef<std::pair<StringRef, std::string>> Values) {
  std::string Out;
  while (!Word.empty()) {
    bool Matched = false;
    for (const auto &[Name, Value] : Values) {
      std::string Key = ("{" + Name + "}").str();
      if (Word.starts_with(Key)) {
        Out += Value;
        Word = Word.drop_front(Key.size());
        Matched = true;
        break;
      }
    }
    if (!Matched) {
      Out += Word.front();
      Word = Word.drop_front();
    }
  }
  return Out;
}

std::string firstLineOf(StringRef Path, size_t Max) {
  Expected<std::string> Text = readWholeFile(Path);
  if (!Text) {
    consumeError(Text.takeError());
    return "";
  }
  for (StringRef Line : split(*Text, '\n'))
    if (!Line.trim().empty())
      return Line.trim().take_front(Max).str();
  return "";
}

/// llvm-bolt can move functions only in relocation mode, which needs the
/// static relocations that -Wl,--emit-relocs keeps (.rela.text).
static Error checkEmitRelocs(StringRef Bin) {
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Bin);
  if (!O)
    return inputError(Bin, 0, "cannot read: {0}", toString(O.takeError()));
  for (const object::SectionRef &S : O->getBinary()->sections()) {
    Expected<StringRef> Name = S.getName();
    if (Name && Name->starts_with(".rela.text"))
      return Error::success();
    if (!Name)
      consumeError(Name.takeError());
  }
  return inputError(Bin, 0,
                    "--bolt-pad needs a binary linked with -Wl,--emit-relocs "
                    "(llvm-bolt cannot move functions without its relocations)");
}

bool importsLibcStartMain(const object::ELFObjectFileBase &Elf) {
  for (const object::ELFSymbolRef &Sym : Elf.getDynamicSymbolIterators()) {
    Expected<StringRef> Name = Sym.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == "__libc_start_main")
      return true;
  }
  return false;
}

/// Is \p Bin something a sweep can run and perturb? An ELF executable
/// (not a script, not an object file, not data); dynamically linked for
/// --axis=heap and --axis=stack (their shims are LD_PRELOADed, which a
/// static binary ignores);
/// with symbols, one of them the function, for --bolt-pad. Errors quote the
/// file's first bytes escaped.
static Error checkSweptBinary(StringRef Bin, const PerturbOptions &O) {
  if (!sys::fs::exists(Bin))
    return inputError(Bin, 0, "no such file");
  if (sys::fs::is_directory(Bin))
    return inputError(Bin, 0, "is a directory, not an executable");
  Expected<std::string> Head = [&]() -> Expected<std::string> {
    auto MB = readInputFile(Bin, InputKind::Binary);
    if (!MB)
      return MB.takeError();
    return (*MB)->getBuffer().take_front(64).str();
  }();
  if (!Head)
    return Head.takeError();
  StringRef H = *Head;
  if (H.starts_with("#!"))
    return inputError(
        Bin, 0,
        "is a script ('{0}'), not an ELF executable: a sweep moves and runs "
        "the program itself; sweep the compiled program the script starts",
        quoteInput(H.split('\n').first, 40));
  if (!H.starts_with("\x7f" "ELF"))
    return inputError(Bin, 0,
                      "is not an ELF executable (it starts with '{0}')",
                      quoteInput(H.take_front(16), 40));
  Expected<object::OwningBinary<object::ObjectFile>> OB =
      object::ObjectFile::createObjectFile(Bin);
  if (!OB)
    return inputError(Bin, 0, "cannot read the ELF file: {0}",
                      toString(OB.takeError()));
  const auto *Elf = dyn_cast<object::ELF64LEObjectFile>(OB->getBinary());
  if (!Elf)
    return inputError(Bin, 0, "is not a 64-bit little-endian ELF file (x86-64)");
  const auto &File = Elf->getELFFile();
  unsigned Type = File.getHeader().e_type;
  if (Type != ELF::ET_EXEC && Type != ELF::ET_DYN)
    return inputError(Bin, 0,
                      "is an ELF {0}, not an executable: link it first",
                      Type == ELF::ET_REL ? "relocatable object (.o)"
                                          : "file of another type");
  if (!sys::fs::can_execute(Bin))
    return inputError(Bin, 0, "not an executable file (chmod +x?)");
  if (O.Axis == AxisKind::Heap || O.Axis == AxisKind::Stack) {
    bool Interp = false, LibcStart = importsLibcStartMain(*Elf);
    if (auto Phdrs = File.program_headers()) {
      for (const auto &P : *Phdrs)
        Interp |= P.p_type == ELF::PT_INTERP;
    } else {
      consumeError(Phdrs.takeError());
    }
    if (!Interp)
      return inputError(
          Bin, 0,
          O.Axis == AxisKind::Heap
              ? "is statically linked: --axis=heap shifts malloc through an "
                "LD_PRELOAD shim, which a static binary never loads; use "
                "--axis=env, or link it dynamically"
              : "is statically linked: --axis=stack starts main lower "
                "through an LD_PRELOAD shim, which a static binary never "
                "loads; use --axis=env (the environment size moves its "
                "stack), or link it dynamically");
    if (O.Axis == AxisKind::Stack && !LibcStart)
      return inputError(Bin, 0,
                        "does not start through glibc's __libc_start_main "
                        "(no such dynamic symbol), so --axis=stack's shim "
                        "would never run; use --axis=env");
  }
  if (!O.BoltFunction.empty()) {
    std::set<std::string> Functions;
    for (const object::SymbolRef &Sym : Elf->symbols()) {
      Expected<object::SymbolRef::Type> T = Sym.getType();
      Expected<StringRef> Name = Sym.getName();
      if (T && Name && *T == object::SymbolRef::ST_Function)
        Functions.insert(Name->str());
      if (!T)
        consumeError(T.takeError());
      if (!Name)
        consumeError(Name.takeError());
    }
    if (Functions.empty())
      return inputError(Bin, 0,
                        "has no symbol table (stripped?): --bolt-pad=FUNC "
                        "needs the function names; build without -s / strip");
    // BOLT names static functions NAME/N.
    StringRef Want = StringRef(O.BoltFunction).split('/').first;
    if (!Functions.count(Want.str()))
      return inputError(Bin, 0, "--bolt-pad={0}: no function '{1}' in its "
                                "symbol table",
                        quoteInput(O.BoltFunction), quoteInput(Want));
  }
  return Error::success();
}

Error Perturber::check(const PerturbOptions &O,
                       ArrayRef<std::pair<std::string, std::string>> Binaries) {
  // fs-spacing (layout-sweep --false-sharing): the relink template rebuilds
  // the program with {pad} bytes between data written by different threads.
  bool Layout = isLayoutAxis(O.Axis);
  bool HasRelink = !O.RelinkTemplate.empty() || !O.RelinkArgv.empty();
  bool HasCompareRelink =
      !O.CompareRelinkTemplate.empty() || !O.CompareRelinkArgv.empty();
  if (Layout && !HasRelink && O.BoltFunction.empty())
    return makeError("--axis={0} needs --relink='TEMPLATE {{pad} {{out}' (or "
                     "--bolt-pad=FUNC for a binary linked with --emit-relocs)",
                     axisName(O.Axis));
  if (!Layout && (HasRelink || !O.BoltFunction.empty()))
    return makeError("--relink/--bolt-pad perturb code or data; --axis={0} "
                     "runs the binary as it is",
                     axisName(O.Axis));
  if (!O.BoltFunction.empty() && !O.RelinkTemplate.empty())
    return usageError("--bolt-pad and --relink are two ways of moving the "
                      "code; give one");
  if (!O.BoltFunction.empty() && O.Axis != AxisKind::Code)
    return makeError("--bolt-pad moves code only (use --axis=code)");
  if (!O.RelinkTemplate.empty())
    if (Error E = checkRelinkTemplate("relink", O.RelinkTemplate))
      return E;
  if (!O.CompareRelinkTemplate.empty())
    if (Error E = checkRelinkTemplate("compare-relink", O.CompareRelinkTemplate))
      return E;
  if (O.Axis == AxisKind::Heap && !sys::fs::exists(O.HeapShim))
    return make_error<UnavailableError>(
        formatv("the heap shim '{0}' is missing (build libkeelheapshift.so or "
                "pass --heap-shim)",
                O.HeapShim)
            .str());
  if (O.Axis == AxisKind::Stack && !sys::fs::exists(O.StackShim))
    return make_error<UnavailableError>(
        formatv("the stack shim '{0}' is missing (build libkeelstackshift.so "
                "or pass --stack-shim)",
                O.StackShim)
            .str());
  for (const std::string &E : O.ExtraEnv)
    if (!StringRef(E).contains('=') || StringRef(E).starts_with("="))
      return makeError("--env '{0}': expected NAME=VALUE", E);
  for (const auto &[Series, Bin] : Binaries) {
    bool Relinked = Layout && HasRelink &&
                    (Series == "base" || HasCompareRelink);
    if (Relinked)
      continue; // the template writes the binary
    if (Error E = checkSweptBinary(Bin, O))
      return E;
    if (!O.BoltFunction.empty())
      if (Error E = checkEmitRelocs(Bin))
        return E;
  }
  if (Binaries.size() > 1 && Layout && HasRelink && !HasCompareRelink)
    return makeError("--compare with --relink needs --compare-relink (how to "
                     "relink the compared binary with {{pad})");
  return Error::success();
}

Expected<std::unique_ptr<Perturber>>
Perturber::create(PerturbOptions O, std::string WorkDir,
                  std::vector<std::pair<std::string, std::string>> Binaries,
                  std::vector<std::string> Args) {
  if (Error E = check(O, Binaries))
    return std::move(E);
  std::unique_ptr<Perturber> P(new Perturber());
  P->Opts = std::move(O);
  P->WorkDir = std::move(WorkDir);
  P->ProgName = sys::path::filename(Binaries.front().second).str();
  if (P->ProgName.empty())
    P->ProgName = "prog";
  P->Binaries = std::move(Binaries);
  P->Args = std::move(Args);
  return std::move(P);
}

bool Perturber::relinks(StringRef Series) const {
  if (!hasRelink())
    return false;
  return Series == "base" || !Opts.CompareRelinkTemplate.empty() ||
         !Opts.CompareRelinkArgv.empty();
}

std::vector<std::string> Perturber::environment(const Variant &V) const {
  std::vector<std::string> Env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                  "LC_ALL=C"};
  Env.insert(Env.end(), Opts.ExtraEnv.begin(), Opts.ExtraEnv.end());
  std::optional<AxisKind> Axis = lookupAxis(V.Axis); // none for an A/A copy
  // Present in every variant, so only its length differs along the env axis.
  Env.push_back("KEEL_ENV_PAD=" +
                std::string(Axis == AxisKind::Env ? V.Offset : 0, 'x'));
  if (Axis == AxisKind::Stack) {
    // Fixed width: every stack variant's environment has the same size, so
    // only the shim's alloca moves the stack (test: stack-shift.test).
    Env.push_back("LD_PRELOAD=" + Opts.StackShim);
    std::string N = std::to_string(V.Offset);
    if (N.size() < StackShiftDigits)
      N.insert(0, StackShiftDigits - N.size(), '0');
    Env.push_back("KEEL_STACK_SHIFT=" + N);
  }
  if (Axis == AxisKind::Heap) {
    Env.push_back("LD_PRELOAD=" + Opts.HeapShim);
    Env.push_back("KEEL_HEAP_SHIFT=" + std::to_string(V.Offset));
  }
  return Env;
}

// One copy per series, shared by its variants: same path length for every
// series, and the original may be rebuilt while the sweep runs.
Expected<std::string> Perturber::copyBinary(StringRef Series) {
  std::lock_guard<std::mutex> G(CopyLock);
  auto It = Copies.find(Series.str());
  if (It != Copies.end())
    return It->second;
  std::string Src = sourceOf(Series);
  SmallString<256> Dst(copyPath(Series));
  StringRef Dir = sys::path::parent_path(Dst);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create {0}: {1}", Dir, EC.message());
  if (std::error_code EC = sys::fs::copy_file(Src, Dst))
    return makeError("cannot copy {0} to {1}: {2}", Src, Dst, EC.message());
  sys::fs::setPermissions(Dst, sys::fs::all_read | sys::fs::all_exe |
                                   sys::fs::owner_write);
  Copies[Series.str()] = Dst.str().str();
  return Dst.str().str();
}

Expected<std::string> Perturber::makePadObject(const Variant &V,
                                               StringRef Dir) {
  // The object llvm-mc makes of ".section .text.keelpad; .skip N, 0x90" (or
  // .data.keelpad of zeros), section for section: an empty 4-byte-aligned
  // .text, then the pad, byte-aligned. Written in-process through LLVM's
  // ObjectYAML (what yaml2obj uses): one process per pad cost a sweep of
  // 64 pads about 2.6 s of CPU on this machine.
  bool Code = lookupAxis(V.Axis) == AxisKind::Code;
  SmallString<256> Obj(Dir);
  sys::path::append(Obj, "keelpad.o");
  std::string Yaml;
  raw_string_ostream Y(Yaml);
  Y << "--- !ELF\nFileHeader:\n  Class: ELFCLASS64\n  Data: ELFDATA2LSB\n"
       "  Type: ET_REL\n  Machine: EM_X86_64\n"
       "  SectionHeaderStringTable: .strtab\nSections:\n"
       "  - Name: .text\n    Type: SHT_PROGBITS\n"
       "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n    AddressAlign: 0x4\n";
  Y << (Code ? "  - Name: .text.keelpad\n    Type: SHT_PROGBITS\n"
               "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
             : "  - Name: .data.keelpad\n    Type: SHT_PROGBITS\n"
               "    Flags: [ SHF_WRITE, SHF_ALLOC ]\n");
  Y << "    AddressAlign: 0x1\n";
  if (V.Offset > 0) {
    Y << "    Content: '";
    for (int64_t I = 0; I < V.Offset; ++I)
      Y << (Code ? "90" : "00");
    Y << "'\n";
  }
  Y << "  - Type: SectionHeaderTable\n    Sections:\n"
       "      - Name: .strtab\n      - Name: "
    << ".text\n      - Name: "
    << (Code ? ".text.keelpad" : ".data.keelpad")
    << "\n      - Name: .symtab\nSymbols: []\n...\n";
  std::string Why;
  if (Error E = writeOutput(Obj, [&](raw_ostream &OS) -> Error {
        yaml::Input In(Yaml);
        if (!yaml::convertYAML(In, OS, [&](const Twine &M) { Why = M.str(); }))
          return makeError("cannot write the pad object: {0}", Why);
        return Error::success();
      }))
    return std::move(E);
  return Obj.str().str();
}

/// The relink command of variant \p V, writing \p Out from \p Dir; the
/// pad object is made there when \p MakePadObject (else only named).
Expected<std::vector<std::string>>
Perturber::relinkCommand(const Variant &V, StringRef Dir, StringRef Out,
                         bool MakePadObject) {
  bool Base = V.Series == "base";
  const std::vector<std::string> &Recorded =
      Base ? Opts.RelinkArgv : Opts.CompareRelinkArgv;
  const std::vector<std::string> &Zero =
      Base ? Opts.RelinkZeroArgv : Opts.CompareRelinkZeroArgv;
  std::vector<std::string> Words;
  std::string RunIn;
  int64_t PadBase = 0;
  if (!Recorded.empty()) { // a recorded link (Auto.h): words as they are
    // Offset 0 is the recorded link itself: the user's binary.
    Words = V.Offset == 0 && !Zero.empty() ? Zero : Recorded;
    RunIn = Base ? Opts.RelinkDir : Opts.CompareRelinkDir;
    PadBase = Base ? Opts.RelinkPadBase : Opts.CompareRelinkPadBase;
  } else {
    Expected<std::vector<std::string>> W = splitCommandTemplate(
        Base ? Opts.RelinkTemplate : Opts.CompareRelinkTemplate);
    if (!W)
      return W.takeError();
    Words = std::move(*W);
  }
  std::vector<std::pair<StringRef, std::string>> Values = {
      {"pad", std::to_string(PadBase + V.Offset)},
      {"out", Out.str()},
      {"dir", Dir.str()}};
  if (any_of(Words, [](const std::string &W) {
        return StringRef(W).contains("{padobj}");
      })) {
    SmallString<256> Obj(Dir);
    sys::path::append(Obj, "keelpad.o");
    if (MakePadObject) {
      Expected<std::string> Made = makePadObject(V, Dir);
      if (!Made)
        return Made.takeError();
    }
    Values.push_back({"padobj", Obj.str().str()});
  }
  std::vector<std::string> Argv;
  if (!RunIn.empty()) { // the link's own directory: env -C DIR -- CMD...
    Expected<std::string> Env = findProgram("env");
    if (!Env)
      return Env.takeError();
    Argv = {*Env, "-C", RunIn, "--"};
  }
  for (const std::string &W : Words)
    Argv.push_back(substitutePlaceholders(W, Values));
  return Argv;
}

Error Perturber::relink(const Variant &V, StringRef Dir, StringRef Out,
                        std::string &Failure) {
  Expected<std::vector<std::string>> Cmd =
      relinkCommand(V, Dir, Out, /*MakePadObject=*/true);
  if (!Cmd)
    return Cmd.takeError();
  std::vector<std::string> Argv = std::move(*Cmd);
  SmallString<256> Log(Dir);
  sys::path::append(Log, "relink.log");
  RunOptions RO;
  RO.Stdout = Log.str().str();
  RO.Stderr = Log.str().str();
  RO.TimeoutSeconds = Opts.TimeoutSeconds;
  Expected<RunResult> R = runProgram(Argv, RO);
  if (!R) // cannot start the relink command: the template is wrong
    return R.takeError();
  if (R->Crashed || R->ExitCode != 0) {
    Failure = formatv("relink failed ({0}): {1}",
                      R->Crashed ? R->Message : "exit code " + std::to_string(R->ExitCode),
                      firstLineOf(Log))
                  .str();
  } else if (!sys::fs::can_execute(Out)) {
    Failure = formatv("the relink command did not write {0}", Out).str();
  }
  return Error::success();
}

/// llvm-bolt's command for variant \p V, writing \p Out.
static Expected<std::vector<std::string>>
boltCommand(const Variant &V, StringRef Src, StringRef Function,
            StringRef Out) {
  Expected<std::string> Bolt = findProgram("llvm-bolt");
  if (!Bolt)
    return Bolt.takeError();
  std::vector<std::string> Argv = {*Bolt, Src.str(), "-o", Out.str()};
  if (V.Offset > 0)
    Argv.push_back(
        formatv("--pad-funcs-before={0}:{1}", Function, V.Offset).str());
  return Argv;
}

std::string Perturber::sourceOf(StringRef Series) const {
  for (const auto &[S, B] : Binaries)
    if (S == Series)
      return B;
  return "";
}

Error Perturber::bolt(const Variant &V, StringRef Dir, StringRef Out,
                     std::string &Failure) {
  Expected<std::vector<std::string>> Cmd =
      boltCommand(V, sourceOf(V.Series), Opts.BoltFunction, Out);
  if (!Cmd)
    return Cmd.takeError();
  std::vector<std::string> Argv = std::move(*Cmd);
  SmallString<256> Log(Dir);
  sys::path::append(Log, "bolt.log");
  RunOptions RO;
  RO.Stdout = Log.str().str();
  RO.Stderr = Log.str().str();
  RO.TimeoutSeconds = Opts.TimeoutSeconds;
  Expected<RunResult> R = runProgram(Argv, RO);
  if (!R)
    return R.takeError();
  if (R->Crashed || R->ExitCode != 0)
    Failure = formatv("llvm-bolt failed: {0}", firstLineOf(Log)).str();
  return Error::success();
}

std::string Perturber::variantDir(const Variant &V, unsigned Index) const {
  SmallString<256> Dir(WorkDir);
  sys::path::append(Dir, formatv("{0}{1:d5}", V.Series == "base" ? 'b' : 'c',
                                 Index)
                             .str());
  return Dir.str().str();
}

std::string Perturber::copyPath(StringRef Series) const {
  SmallString<256> Dst(WorkDir);
  sys::path::append(Dst, Series == "base" ? "bin-b" : "bin-c", ProgName);
  return Dst.str().str();
}

Expected<Perturber::Plan> Perturber::describe(const Variant &V,
                                              unsigned Index) {
  Plan Pl;
  Pl.Run.V = V;
  Pl.Run.Dir = variantDir(V, Index);
  Pl.Run.Env = environment(V);
  std::string Bin = copyPath(V.Series);
  if (relinks(V.Series) || !Opts.BoltFunction.empty()) {
    SmallString<256> Out(Pl.Run.Dir);
    sys::path::append(Out, ProgName);
    Bin = Out.str().str();
    Expected<std::vector<std::string>> Cmd =
        relinks(V.Series)
            ? relinkCommand(V, Pl.Run.Dir, Bin, /*MakePadObject=*/false)
            : boltCommand(V, sourceOf(V.Series), Opts.BoltFunction, Bin);
    if (!Cmd)
      return Cmd.takeError();
    (relinks(V.Series) ? Pl.Relink : Pl.Bolt) = std::move(*Cmd);
  }
  Pl.Run.Argv.push_back(Bin);
  Pl.Run.Argv.insert(Pl.Run.Argv.end(), Args.begin(), Args.end());
  return Pl;
}

Expected<PreparedVariant> Perturber::prepare(const Variant &V, unsigned Index) {
  PreparedVariant P;
  P.V = V;
  SmallString<256> Dir(variantDir(V, Index));
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create {0}: {1}", Dir, EC.message());
  P.Dir = Dir.str().str();
  P.Env = environment(V);
  std::string Bin;
  if (relinks(V.Series) || !Opts.BoltFunction.empty()) {
    SmallString<256> Out(Dir);
    sys::path::append(Out, ProgName);
    Bin = Out.str().str();
    Error E = relinks(V.Series) ? relink(V, Dir, Bin, P.Failure)
                                : bolt(V, Dir, Bin, P.Failure);
    if (E)
      return std::move(E);
  } else {
    Expected<std::string> Copy = copyBinary(V.Series);
    if (!Copy)
      return Copy.takeError();
    Bin = *Copy;
  }
  P.Argv.push_back(Bin);
  P.Argv.insert(P.Argv.end(), Args.begin(), Args.end());
  return P;
}

} // namespace sweep
} // namespace keel
