//===- keel/Optimize/Options.h - what layout-optimize was asked ---*- C++ -*-===//
//
// OptimizeOptions on their own, so the steps' headers (Measure.h) can take
// them without including the flow (Optimize.h), whose code includes theirs.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_OPTIONS_H
#define KEEL_OPTIMIZE_OPTIONS_H

#include "keel/Planner/FunctionOrder.h"
#include "keel/SweepReport/Kinds.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {
namespace optimize {

struct OptimizeOptions {
  /// The build command (argv, run without a shell); empty: no build, read
  /// CommandLog as it is.
  std::vector<std::string> Build;
  std::string CommandLog; ///< "" = DIR/commands.jsonl
  std::vector<std::string> Workload; ///< the program's arguments
  std::string Binary; ///< a path or file name; "" = the last program linked
  std::string Dir = "keel-optimize";
  std::string Compiler = "clang-22"; ///< what keel-cc runs
  /// layout-sweep's --backend (sim or perf) and --cost for the guard and
  /// the table.
  sweep::BackendKind Backend = sweep::BackendKind::Sim;
  std::string Cost = "skylake";
  /// NAME=VALUE added to the environment of every sweep's runs (layout-sweep
  /// --env), e.g. a program's TCL_LIBRARY; the profile runs in this process's.
  std::vector<std::string> SweepEnv;
  unsigned GuardVariants = 4; ///< env offsets 0, GuardStep, ...
  int64_t GuardStep = 1024;
  unsigned CodeVariants = 4; ///< code offsets 0, CodeStep, ...; 0 = none
  int64_t CodeStep = 64;
  /// --tune-code-pad: after the guard, the kept plan's hot region moved by
  /// 0, 64, ... 4032 bytes in its page, each offset measured on the workload
  /// under every TuneI1 geometry; the cheapest (summed cost) is baked into
  /// the plan (layout-order --code-pad) and the program relinked.
  bool TuneCodePad = true;
  std::vector<std::string> TuneI1 = {"32768,8,64", "8192,2,64"};
  /// --tune-orders: function orders the tune also tries besides the plan's
  /// own (C3): each relinked with the same objects and swept over the same
  /// 64 offsets; the order of lowest mean cost over them is kept, then its
  /// cheapest offset.
  std::vector<OrderAlgorithm> TuneOrders = {OrderAlgorithm::CDSort};
  unsigned Jobs = 2;
  bool Force = false;   ///< ignore the stamp
  /// After a candidate's first link, plan it again with the packed hot
  /// parts' linked sizes (layout-order --section-sizes) and relink once.
  bool PackLinkedSizes = true;
  std::string JSONPath; ///< also write the report here ("" = DIR only)
  /// Where layout-record, layout-order, layout-sweep and keel-cc are.
  std::string ToolDir;
};

} // namespace optimize
} // namespace keel

#endif
