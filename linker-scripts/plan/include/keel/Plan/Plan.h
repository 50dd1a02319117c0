//===- keel/Plan/Plan.h - the layout plan file ------------------*- C++ -*-===//
//
// The plan is the contract between the planner (layout-order) and the
// LayoutOpt pass plugin. It is YAML, versioned, and documented in
// docs/formats/plan.md. Example:
//
//   keel-plan: 1
//   binary: ./app
//   build-id: 0123abcd
//   hot-coverage: 0.99
//   function-align: 16
//   hot-text-align: 4096
//   hot-data-align: 4096
//   linker-aligns-regions: true
//   code-pad: 64
//   spacers: 4096
//   functions:
//     - { name: interp_loop, class: hot, order: 0, weight: 812345 }
//     - { name: helper, file: util.c, class: hot, order: 1, weight: 1200, align: 32 }
//     - { name: parse_args, class: cold }
//   globals:
//     - { name: dispatch_table, kind: rodata, order: 0, weight: 5000 }
//     - { name: counters, kind: data, order: 1, weight: 900, written: true }
//   false-sharing:
//     - { name: shared_counters, align: 64, reason: "written by 2 threads at disjoint bytes" }
//
// Reading never guesses: unknown keys, a wrong version, a bad class or kind
// are errors naming file:line:column.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLAN_PLAN_H
#define KEEL_PLAN_PLAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace keel {

/// The current plan-file version. Readers accept exactly this version;
/// a change that old readers would misread bumps it (docs/formats/plan.md).
constexpr unsigned PlanVersion = 1;

enum class Temperature { Hot, Warm, Cold };

llvm::StringRef temperatureName(Temperature T);

struct PlanFunction {
  std::string Name;      ///< IR/symbol name (mangled for C++)
  std::string File;      ///< source file, to pick a local among same-named ones
  Temperature Class = Temperature::Warm;
  uint64_t Order = 0;    ///< position in the hot (or warm) sequence
  uint64_t Weight = 0;   ///< executed instructions or samples
  uint64_t Align = 0;    ///< 0: the plan's function-align for hot functions
};

enum class DataKind { Data, BSS, ROData };

llvm::StringRef dataKindName(DataKind K);

struct PlanGlobal {
  std::string Name;
  std::string File;
  DataKind Kind = DataKind::Data;
  uint64_t Order = 0;
  uint64_t Weight = 0;
  bool Written = false; ///< written by hot code (kept apart from read-mostly)
};

struct FalseSharingCandidate {
  std::string Name;
  std::string File;
  uint64_t Align = 64; ///< cache-line size to align (and pad) to
  std::string Reason;
};

struct Plan {
  unsigned Version = PlanVersion;
  std::string Binary;
  std::string BuildID;
  double HotCoverage = 0.99;
  uint64_t FunctionAlign = 16;
  uint64_t HotTextAlign = 4096;
  uint64_t HotDataAlign = 4096;
  /// The planner's linker scripts align the hot regions themselves and put
  /// the sweep's __keel_code_pad / __keel_data_pad after that alignment; a
  /// compiler that also aligned the region's first symbol would swallow the
  /// pad. When true, LayoutOpt leaves region alignment to the linker.
  bool LinkerAlignsRegions = false;
  /// Default __keel_code_pad baked into the linker scripts (bytes after the
  /// hot-text boundary; --defsym still overrides it). Chosen by measurement,
  /// e.g. layout-sweep --best-pad-out; 0 = hot text right on the boundary.
  uint64_t CodePad = 0;
  /// Growth-absorbing spacers in the hot text (layout-order --spacers=W):
  /// the planned order is packed into W-byte packs from the region's start,
  /// a function that would cross a pack boundary starts the next pack.
  /// 0 = none. Informational for readers; the linker scripts carry them.
  uint64_t Spacers = 0;
  std::vector<PlanFunction> Functions;
  std::vector<PlanGlobal> Globals;
  std::vector<FalseSharingCandidate> FalseSharing;
};

/// Parse a plan from \p Text; \p FileName is used in messages
/// ("plan.yaml:12:5: unknown key 'nmae'").
llvm::Expected<Plan> parsePlan(llvm::StringRef Text, llvm::StringRef FileName);
/// Read and parse the plan file at \p Path.
llvm::Expected<Plan> readPlan(llvm::StringRef Path);
/// Write \p P as YAML (deterministic: fields in a fixed order).
void writePlan(const Plan &P, llvm::raw_ostream &OS);

} // namespace keel

#endif
