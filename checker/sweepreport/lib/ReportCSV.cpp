//===- ReportCSV.cpp - one CSV row per measurement ------------------------===//
//
// Every series' measurements, A/A copies included, each relative to the
// mean of its own series and axis.
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace keel {
namespace sweep {

using namespace report;

namespace {

std::string csvField(StringRef S) {
  if (S.find_first_of(",\"\n") == StringRef::npos)
    return S.str();
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
}

} // namespace

void writeCSVReport(raw_ostream &OS, const SweepResult &R) {
  std::vector<const Measurement *> All;
  for (const Measurement &M : R.Ms)
    All.push_back(&M);
  if (R.Compare)
    for (const Measurement &M : R.Compare->Ms)
      All.push_back(&M);
  for (const Measurement &M : R.NoiseFloor)
    All.push_back(&M);
  std::set<std::string> Counters;
  // Means per (series, axis), so A/A copies are relative to their own mean.
  std::map<std::pair<std::string, std::string>, std::vector<double>> Costs;
  for (const Measurement *M : All) {
    for (const auto &KV : M->Counters)
      Counters.insert(KV.first);
    if (!M->Failed)
      Costs[{M->V.Series, M->V.Axis}].push_back(M->Cost);
  }
  OS << "series,axis,offset,status,cost,relative_to_mean,instructions";
  for (const std::string &C : Counters)
    OS << "," << csvField(C);
  OS << ",reason\n";
  for (const Measurement *M : All) {
    OS << csvField(M->V.Series) << "," << csvField(M->V.Axis) << ","
       << M->V.Offset << ",";
    if (M->Failed) {
      OS << "failed,,,";
      for (size_t I = 0; I < Counters.size(); ++I)
        OS << ",";
      OS << "," << csvField(M->FailReason) << "\n";
      continue;
    }
    double Mean = mean(Costs[{M->V.Series, M->V.Axis}]);
    OS << "ok," << fmt("%.9g", M->Cost) << ","
       << fmt("%.6f", relative(*M, Mean)) << "," << M->Instructions;
    for (const std::string &C : Counters) {
      auto It = M->Counters.find(C);
      OS << "," << (It == M->Counters.end() ? "" : fmt("%.9g", It->second));
    }
    OS << ",\n";
  }
}

} // namespace sweep
} // namespace keel
