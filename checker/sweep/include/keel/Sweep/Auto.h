//===- keel/Sweep/Auto.h - the automatic sweep of `layout-sweep ./bin` -*- C++ -*-===//
//
// `layout-sweep ./bin` with no --axis, --relink or --bolt-pad sweeps every
// axis it can move for that binary, one after the other, and prints one
// combined report (docs/sweep.md, "The automatic sweep"):
//  stack - when the binary is dynamically linked and starts through glibc's
//          __libc_start_main: main starts N bytes lower (libkeelstackshift.so,
//          LD_PRELOAD), the environment unchanged;
//  env   - always: the environment grows by N bytes (the environment-size
//          effect: the kernel puts the environment above the initial stack,
//          so the environment strings and every stack frame move by N);
//  heap  - when the binary is dynamically linked (the LD_PRELOAD shim);
//  code, data - when <bin>.keel-link.json (LinkRecord.h, written by
//          layout-link or keel_layout()) matches the binary: variants are
//          relinked from the recorded command, with
//          --defsym=__keel_code_pad/__keel_data_pad=V+N when it links with a
//          Keel layout.ld (V: the link's own value, else the script's
//          default), else with a pad object between the inputs (before the
//          middle one); offset 0 is the recorded command itself, so it is
//          the user's binary;
//          code also through llvm-bolt --pad-funcs-before=main:N when the
//          binary keeps its relocations (-Wl,--emit-relocs).
// Every axis that cannot be swept gets one line saying why and what enables
// it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_AUTO_H
#define KEEL_SWEEP_AUTO_H

#include "keel/LinkRecord/LinkRecord.h"
#include "keel/Sweep/Grid.h"
#include "keel/SweepReport/AutoReport.h"
#include "keel/SweepReport/Kinds.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// The automatic sweep's grid on every axis: 16 offsets, 0..960 by 64
/// (docs/sweep.md says how it was sized).
inline Grid autoGrid() { return Grid{0, 960, 64}; }

/// What the automatic sweep knows about a binary.
struct BinaryFacts {
  bool Dynamic = false;     ///< has a PT_INTERP (.interp): LD_PRELOAD works
  bool EmitRelocs = false;  ///< keeps .rela.text (-Wl,--emit-relocs)
  bool HasMain = false;     ///< a symbol "main" (for llvm-bolt's pad)
  bool LibcStart = false;   ///< imports __libc_start_main (the stack shim)
};

/// Read the facts; InputError when \p Binary is not an ELF file.
llvm::Expected<BinaryFacts> inspectBinary(llvm::StringRef Binary);

/// How the variants of one axis are relinked from a link record.
struct RecordRelink {
  /// The recorded command with {pad}/{padobj} and -o {out} placed in it.
  std::vector<std::string> Argv;
  /// Offset 0: the recorded command as it is, with -o {out} only, so that
  /// variant is the user's binary byte for byte.
  std::vector<std::string> ZeroArgv;
  /// {pad} is PadBase + the offset: the link's own --defsym value of the
  /// pad symbol, else the script's default (0 for the pad object).
  int64_t PadBase = 0;
  /// Where PadBase comes from ("" when 0 by default): "the link's own
  /// --defsym=__keel_data_pad=2048", "layout.ld's default".
  std::string PadFrom;
};

/// The recorded link command with the pad and output placed in it for
/// \p Axis (code or data): when it links with a script that defines
/// __keel_{code,data}_pad, the link's own --defsym of it (in any form:
/// -Wl,--defsym=S=V, -Wl,--defsym,S=V, -Xlinker, a bare linker's) takes
/// {pad} for its value, or --defsym=S={pad} is added; else {padobj} goes
/// before the middle input file. An error (one line) when the command names
/// no input file, or sets the symbol to something that is not a number.
llvm::Expected<RecordRelink> relinkFromRecord(const LinkRecord &R,
                                              AxisKind Axis);

/// The input the pad object is linked before ("" when none).
std::string padObjectPlace(llvm::ArrayRef<std::string> RelinkArgv);

/// Decide every axis for \p Binary, in the order stack, env, heap, code,
/// data. \p HeapShim: libkeelheapshift.so; \p StackShim:
/// libkeelstackshift.so. \p HaveBolt: llvm-bolt is installed.
llvm::Expected<std::vector<AutoAxis>>
planAutoAxes(llvm::StringRef Binary, llvm::StringRef HeapShim,
             llvm::StringRef StackShim, bool HaveBolt);

} // namespace sweep
} // namespace keel

#endif
