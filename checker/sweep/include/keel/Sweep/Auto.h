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

#include "keel/Sweep/Gate.h"
#include "keel/Sweep/Grid.h"
#include "keel/Sweep/Kinds.h"
#include "keel/Sweep/LinkRecord.h"
#include "keel/Sweep/Result.h"

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

/// One axis of the automatic sweep: how it is moved, or why it is not.
struct AutoAxis {
  std::string Axis; ///< stack, env, heap, code, data
  bool Swept = false;
  std::string How;    ///< swept: the mechanism, one phrase
  std::string Why;    ///< not swept: the reason
  std::string Enable; ///< not swept: the flag or build change that enables it
  /// code/data from a link record: the command with {pad}/{padobj}/{out},
  /// the command for offset 0, and the value {pad} adds the offset to
  /// (RecordRelink).
  std::vector<std::string> RelinkArgv, CompareRelinkArgv;
  std::vector<std::string> RelinkZeroArgv, CompareRelinkZeroArgv;
  int64_t RelinkPadBase = 0, CompareRelinkPadBase = 0;
  std::string RelinkDir, CompareRelinkDir;
  std::string BoltFunction; ///< code through llvm-bolt
};

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

/// One swept axis' outcome.
struct AutoOutcome {
  const AutoAxis *A = nullptr;
  SweepResult R;
  GateResult G;
};

/// The combined text report: each swept axis' table (writeTextReport), then
/// a summary with one line per axis (swept: spread and verdict; not swept:
/// why and how to enable it).
void writeAutoTextReport(llvm::raw_ostream &OS, llvm::StringRef Binary,
                         llvm::ArrayRef<AutoAxis> Axes,
                         llvm::ArrayRef<AutoOutcome> Outcomes);

/// The combined JSON: {"version", "mode": "auto", "binary", "axis_order":
/// [every axis as planned], "axes": {axis: the one-axis --json report},
/// "not_swept": [{"axis","reason","enable"}], "gate": {"failed",
/// "failed_axes"}, "provenance": autoProvenance()}.
llvm::json::Value autoReportJSON(llvm::StringRef Binary,
                                 llvm::ArrayRef<AutoAxis> Axes,
                                 llvm::ArrayRef<AutoOutcome> Outcomes);

/// The provenance of the whole automatic sweep: the first axis' record with
/// every axis' relink commands, each named by its axis ("code: base: ...");
/// std::nullopt when nothing was swept or the results carry none.
std::optional<Provenance> autoProvenance(llvm::ArrayRef<AutoOutcome> Outcomes);

/// An automatic sweep's --json read back (layout-sweep-report): every axis
/// in the order it was planned (swept ones with their "how", the others
/// with why not and what enables them) and each swept axis' result, in the
/// same order as the swept axes.
struct SavedAutoSweep {
  std::string Binary;
  std::vector<AutoAxis> Axes;
  std::vector<SweepResult> Results;
};

/// \p Path's automatic sweep; std::nullopt when it is not one (a one-axis
/// result: readResultFile reads it). InputError for bad JSON, a newer
/// version, or an axis that is not a sweep result.
llvm::Expected<std::optional<SavedAutoSweep>> readAutoReport(llvm::StringRef Path);

/// --baseline of a one-axis sweep (or its saved result) on axis \p Axis: a
/// one-axis --json as it is (evaluateGate refuses another axis), or that
/// axis of an automatic sweep's --json (InputError when it did not sweep it).
llvm::Expected<SweepResult> readBaselineAxis(llvm::StringRef Path,
                                             llvm::StringRef Axis);

/// --csv: one table of every swept axis (the one-axis CSV's columns; its
/// axis column tells them apart).
void writeAutoCSVReport(llvm::raw_ostream &OS,
                        llvm::ArrayRef<AutoOutcome> Outcomes);

/// --svg: every swept axis' plot, one below the other, in one SVG.
void writeAutoSVGPlot(llvm::raw_ostream &OS,
                      llvm::ArrayRef<AutoOutcome> Outcomes);

/// --html: one page: a table of every axis (how it moved, or why it was not
/// swept and what enables it), then each swept axis' section (the one-axis
/// report's headline, verdict, plot and tables).
void writeAutoHTMLReport(llvm::raw_ostream &OS, llvm::StringRef Binary,
                         llvm::ArrayRef<AutoAxis> Axes,
                         llvm::ArrayRef<AutoOutcome> Outcomes);

/// --baseline for the automatic sweep: an earlier automatic --json (each
/// axis' result by name) or a one-axis --json (that axis only).
llvm::Expected<std::map<std::string, SweepResult>>
readBaselineAxes(llvm::StringRef Path);

} // namespace sweep
} // namespace keel

#endif
