//===- keel/Sweep/Perturb.h - make one layout variant -------------*- C++ -*-===//
//
// Turns a Variant (axis + offset) into something to run: a binary and the
// exact environment it runs with. Axes (docs/sweep.md, docs/references.md):
//  code  - relink with --relink TEMPLATE: {pad} is the byte count, {out} the
//          binary to write, {padobj} (optional) a generated object holding
//          {pad} bytes of nops in .text.keelpad, to link between objects; or
//          --bolt-pad=FUNC: llvm-bolt --pad-funcs-before=FUNC:N on a binary
//          linked with --emit-relocs.
//  data  - the same template mechanism ({padobj} then holds zero bytes in
//          .data.keelpad; a planned link takes -Wl,--defsym=__keel_data_pad={pad}).
//  stack - LD_PRELOAD=libkeelstackshift.so KEEL_STACK_SHIFT=NNNNNNN (N
//          written with 7 digits, zero-padded, so the environment has the
//          same size in every variant) starts main N bytes lower on the
//          stack; argv, the environment and the auxiliary vector do not move
//          (N a multiple of 16, at most 1 MiB; dynamically linked binaries).
//  env   - the environment grows by N bytes (KEEL_ENV_PAD=xxx...), which
//          moves the environment strings, the initial stack pointer and
//          every stack frame (in 16-byte steps: the kernel aligns the stack
//          pointer) -- the environment-size effect.
//  heap  - LD_PRELOAD=libkeelheapshift.so KEEL_HEAP_SHIFT=N shifts every
//          malloc result by N bytes (N a multiple of 16, at most 1 MiB).
//
// Every variant runs with the same argv path length (binaries are written or
// copied to same-length names in a private directory; the engine then runs
// each as /dev/fd/N so argv[0] is the same string, Engine.h) and a fixed
// environment (PATH=/usr/local/bin:/usr/bin:/bin, LC_ALL=C, --env additions,
// KEEL_ENV_PAD, and for the stack axis LD_PRELOAD and KEEL_STACK_SHIFT of a
// fixed length), so nothing but the layout differs between variants.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_PERTURB_H
#define KEEL_SWEEP_PERTURB_H

#include "keel/SweepReport/Kinds.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "llvm/Object/ELFObjectFile.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

struct PerturbOptions {
  AxisKind Axis = AxisKind::Code; ///< --axis
  std::string RelinkTemplate;        ///< --relink
  std::string CompareRelinkTemplate; ///< --compare-relink ("" = none)
  /// The automatic sweep's relink (Auto.h): the words of a recorded link
  /// command with {pad}/{padobj}/{out} placed in them, run in RelinkDir
  /// (through `env -C`, the link's own working directory). Used instead of
  /// RelinkTemplate when not empty; never split or quoted again.
  std::vector<std::string> RelinkArgv, CompareRelinkArgv;
  std::string RelinkDir, CompareRelinkDir;
  /// The recorded link's offset 0: its command as it is (-o {out} only),
  /// so that variant is the user's binary; and the value {pad} adds each
  /// offset to (the link's own --defsym value). RecordRelink in Auto.h.
  std::vector<std::string> RelinkZeroArgv, CompareRelinkZeroArgv;
  int64_t RelinkPadBase = 0, CompareRelinkPadBase = 0;
  std::string BoltFunction;          ///< --bolt-pad=FUNC ("" = not BOLT)
  std::string HeapShim;              ///< path of libkeelheapshift.so
  std::string StackShim;             ///< path of libkeelstackshift.so
  std::vector<std::string> ExtraEnv; ///< --env K=V, in order
  unsigned TimeoutSeconds = 600;     ///< per relink/BOLT run
};

inline constexpr int64_t MaxHeapShift = 1 << 20;
/// The stack axis' limit (libkeelstackshift.so checks it too) and the width
/// KEEL_STACK_SHIFT is written with: 7 digits hold 1048576.
inline constexpr int64_t MaxStackShift = 1 << 20;
inline constexpr unsigned StackShiftDigits = 7;
/// The env axis' limit: bytes added to the environment.
inline constexpr int64_t MaxEnvPad = 1 << 20;

/// --exec-as=fd: the descriptor every variant's binary is put on in the child
/// (above anything a program opens by itself in practice), so each runs as
/// "/dev/fd/100".
inline constexpr int VariantExecFd = 100;
inline constexpr const char *VariantExecPath = "/dev/fd/100";
/// A local simulator run names keel-sim's directory (VALGRIND_LIB) and the
/// stack or heap shim (LD_PRELOAD) by these descriptors, so neither path's
/// length reaches the program (SimRun.cpp, nameByDescriptor).
inline constexpr int SimLibFd = 101;
inline constexpr const char *SimLibPath = "/dev/fd/101";
inline constexpr int ShimFd = 102;
inline constexpr const char *ShimPath = "/dev/fd/102";

struct PreparedVariant {
  Variant V;
  std::string Dir;               ///< private directory of this variant
  std::vector<std::string> Argv; ///< binary (same-length path) + arguments
  std::vector<std::string> Env;  ///< the complete environment
  /// --exec-as=fd (set by the engine, not the perturber): the variant's
  /// binary, which runs as "/dev/fd/<VariantExecFd>"; Argv[0] is then the
  /// name the program sees, the same for every variant.
  std::string ExecFile;
  /// More files the child gets on descriptors (SimLibFd, ShimFd).
  std::vector<std::pair<int, std::string>> MoreFds;
  std::string Failure;           ///< non-empty: could not be built (why)
};

/// Check that a --relink template names {out} and {pad} or {padobj}; the
/// error says which is missing.
llvm::Error checkRelinkTemplate(llvm::StringRef Option, llvm::StringRef T);

/// Replace every {name} in \p Word by its value (unknown {...} stay).
std::string substitutePlaceholders(
    llvm::StringRef Word,
    llvm::ArrayRef<std::pair<llvm::StringRef, std::string>> Values);

class Perturber {
public:
  /// Everything create() checks, without a work directory: run it before
  /// anything is written (bad axis, template, heap shim, a binary that is
  /// missing, not ELF, a script, static for --axis=heap or stack, without symbols
  /// for --bolt-pad).
  static llvm::Error
  check(const PerturbOptions &O,
        llvm::ArrayRef<std::pair<std::string, std::string>> Binaries);

  /// \p Binaries: series name -> binary ("base" first). Errors: bad axis,
  /// bad template, missing heap shim, unreadable binary.
  static llvm::Expected<std::unique_ptr<Perturber>>
  create(PerturbOptions O, std::string WorkDir,
         std::vector<std::pair<std::string, std::string>> Binaries,
         std::vector<std::string> Args);

  /// Build variant number \p Index (used for its directory name). A failed
  /// relink is reported in PreparedVariant::Failure, not as an error; errors
  /// are for the machine (cannot create files).
  llvm::Expected<PreparedVariant> prepare(const Variant &V, unsigned Index);

  /// What prepare() would do for variant \p V number \p Index, without
  /// doing it (layout-sweep --dry-run): the relink command ({padobj} named,
  /// not written; empty when the variant is not relinked) and the run.
  struct Plan {
    std::vector<std::string> Relink; ///< argv; empty: a copy (or llvm-bolt)
    std::vector<std::string> Bolt;   ///< llvm-bolt's argv, when it moves code
    PreparedVariant Run;             ///< Argv and Env as prepare() sets them
  };
  llvm::Expected<Plan> describe(const Variant &V, unsigned Index);

  /// The program name used for every variant (base binary's file name).
  const std::string &programName() const { return ProgName; }

private:
  Perturber() = default;
  bool relinks(llvm::StringRef Series) const;
  bool hasRelink() const {
    return !Opts.RelinkTemplate.empty() || !Opts.RelinkArgv.empty();
  }
  llvm::Expected<std::string> copyBinary(llvm::StringRef Series);
  llvm::Expected<std::string> makePadObject(const Variant &V,
                                            llvm::StringRef Dir);
  llvm::Error relink(const Variant &V, llvm::StringRef Dir,
                     llvm::StringRef Out, std::string &Failure);
  llvm::Expected<std::vector<std::string>>
  relinkCommand(const Variant &V, llvm::StringRef Dir, llvm::StringRef Out,
                bool MakePadObject);
  llvm::Error bolt(const Variant &V, llvm::StringRef Dir, llvm::StringRef Out,
                   std::string &Failure);
  std::vector<std::string> environment(const Variant &V) const;
  std::string sourceOf(llvm::StringRef Series) const;
  std::string variantDir(const Variant &V, unsigned Index) const;
  std::string copyPath(llvm::StringRef Series) const;

  PerturbOptions Opts;
  std::string WorkDir, ProgName;
  std::vector<std::pair<std::string, std::string>> Binaries;
  std::vector<std::string> Args;
  std::map<std::string, std::string> Copies; ///< series -> shared copy
  std::mutex CopyLock;
};

/// Does \p Elf call glibc's __libc_start_main through its dynamic symbol
/// table (what libkeelstackshift.so interposes)?
bool importsLibcStartMain(const llvm::object::ELFObjectFileBase &Elf);

/// First line of a file (for failure reasons), at most \p Max characters.
std::string firstLineOf(llvm::StringRef Path, size_t Max = 160);

} // namespace sweep
} // namespace keel

#endif
