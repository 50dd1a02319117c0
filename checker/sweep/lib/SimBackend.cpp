//===- SimBackend.cpp - cachegrind geometry, cost model, output parser ----===//
#include "keel/Sweep/SimBackend.h"
#include "keel/Support/Tool.h"

#include "keel/Support/CallgrindReader.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace keel {
namespace sweep {

ArrayRef<StringRef> cachegrindEvents() {
  static const StringRef Events[] = {"Ir", "I1mr", "ILmr", "Dr",  "D1mr",
                                     "DLmr", "Dw", "D1mw", "DLmw", "Bc",
                                     "Bcm", "Bi",  "Bim"};
  return Events;
}

ArrayRef<StringRef> frontendEvents() {
  static const StringRef Events[] = {"FeWin",   "FeWinMiss", "Taken",
                                     "BtbMiss", "CondMiss",  "IndMiss",
                                     "RasMiss", "Alias4K",   "ItlbMiss",
                                     "DtlbMiss", "TlbWalk"};
  return Events;
}

CostWeights defaultWeights() {
  return {{"Ir", 1},    {"I1mr", 10}, {"D1mr", 10}, {"ILmr", 100},
          {"DLmr", 100}, {"Bcm", 15},  {"Bim", 15}};
}

// The weights, one reason each, are in docs/frontend-model.md ("Weights").
ArrayRef<StringRef> costPresetNames() {
  static const StringRef Names[] = {"cachegrind", "skylake", "zen4"};
  return Names;
}

Expected<CostPreset> costPreset(StringRef Name) {
  if (Name == "cachegrind")
    return CostPreset{"cachegrind", defaultWeights(), {"Bcm", "Bim"}, ""};
  // Cache misses as in cachegrind's table; cachegrind's toy predictor (Bcm,
  // Bim) is replaced by the model's.
  auto Frontend = [&](double Mispredict, double Tlb, double Walk) {
    return CostWeights{{"Ir", 1},          {"I1mr", 10},        {"D1mr", 10},
                       {"ILmr", 100},      {"DLmr", 100},       {"CondMiss", Mispredict},
                       {"IndMiss", Mispredict}, {"RasMiss", Mispredict},
                       {"BtbMiss", 8},     {"FeWin", 0.25},     {"FeWinMiss", 3},
                       {"Taken", 0.5},     {"Alias4K", 5},      {"ItlbMiss", Tlb},
                       {"DtlbMiss", Tlb},  {"TlbWalk", Walk}};
  };
  if (Name == "skylake")
    return CostPreset{"skylake", Frontend(16, 9, 30), {"CondMiss", "IndMiss"},
                      "skylake"};
  if (Name == "zen4")
    return CostPreset{"zen4", Frontend(13, 7, 30), {"CondMiss", "IndMiss"},
                      "zen4"};
  return makeError("unknown --cost '{0}' (known: {1})", Name,
                   join(costPresetNames(), ", "));
}

std::string costPresetJSON(const CostPreset &P, const CostWeights &W) {
  // Keys in this order, weights in event order (cachegrind's, then the
  // front-end model's): one stable line for scripts and for people.
  std::string S;
  raw_string_ostream OS(S);
  json::OStream J(OS);
  J.object([&] {
    J.attribute("cost", P.Name);
    J.attributeObject("weights", [&] {
      for (ArrayRef<StringRef> Names : {cachegrindEvents(), frontendEvents()})
        for (StringRef E : Names) {
          auto It = W.find(E.str());
          if (It != W.end())
            J.attribute(E, It->second);
        }
    });
    J.attribute("branch_events", json::Array(P.BranchEvents));
  });
  return S;
}

Expected<CostWeights> parseWeights(StringRef Text, CostWeights Base) {
  SmallVector<StringRef, 8> Items;
  Text.split(Items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Item : Items) {
    auto [Name, Value] = Item.trim().split('=');
    if (!is_contained(cachegrindEvents(), Name) &&
        !is_contained(frontendEvents(), Name))
      return makeError("--weights: unknown event '{0}' (events: {1} {2})", Name,
                       join(cachegrindEvents(), " "),
                       join(frontendEvents(), " "));
    double W;
    if (Value.empty() || Value.getAsDouble(W) || W < 0)
      return makeError("--weights: '{0}' needs a non-negative number", Item);
    if (W == 0)
      Base.erase(Name.str());
    else
      Base[Name.str()] = W;
  }
  return Base;
}

double costOf(const std::map<std::string, double> &Counters,
              const CostWeights &W) {
  double Cost = 0;
  for (const auto &[Event, Weight] : W) {
    auto It = Counters.find(Event);
    if (It != Counters.end())
      Cost += Weight * It->second;
  }
  return Cost;
}

namespace {
struct Preset {
  StringRef Name;
  CacheGeometry G;
};
} // namespace

static ArrayRef<Preset> presets() {
  static const Preset P[] = {
      {"small", {{4096, 2, 64}, {32768, 8, 64}, {262144, 8, 64}}},
      {"small8k", {{8192, 2, 64}, {32768, 8, 64}, {262144, 8, 64}}},
      {"skylake", {{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}}},
      {"zen3", {{32768, 8, 64}, {32768, 8, 64}, {33554432, 16, 64}}},
      {"neoverse-n1", {{65536, 4, 64}, {65536, 4, 64}, {1048576, 8, 64}}},
  };
  return P;
}

ArrayRef<StringRef> geometryPresetNames() {
  static const StringRef Names[] = {"small", "small8k", "skylake", "zen3",
                                    "neoverse-n1"};
  return Names;
}

Expected<CacheGeometry> geometryPreset(StringRef Name) {
  for (const Preset &P : presets())
    if (P.Name == Name)
      return P.G;
  return makeError("unknown cache geometry '{0}' (known: {1})", Name,
                   join(geometryPresetNames(), ", "));
}

Expected<CacheLevel> parseCacheLevel(StringRef Option, StringRef Spec) {
  std::optional<CacheLevel> P = parseCacheLevelSpec(Spec);
  if (!P || !P->Size || !P->Assoc || !P->Line)
    return makeError("--{0}={1}: expected size,associativity,line-size in "
                     "bytes, e.g. 4096,2,64",
                     Option, Spec);
  const CacheLevel &L = *P;
  if (!isPowerOf2_64(L.Line) || L.Line < 16)
    return makeError("--{0}={1}: the line size must be a power of two >= 16",
                     Option, Spec);
  if (L.Size % (L.Assoc * L.Line) || !isPowerOf2_64(L.Size / (L.Assoc * L.Line)))
    return makeError("--{0}={1}: size / (associativity * line) must be a power "
                     "of two (the number of sets)",
                     Option, Spec);
  return L;
}

std::vector<std::string> cachegrindArgs(const CacheGeometry &G,
                                        StringRef OutFile, StringRef LogFile) {
  return {"--tool=cachegrind",
          "--cache-sim=yes",
          "--branch-sim=yes",
          "--I1=" + cacheLevelSpec(G.I1),
          "--D1=" + cacheLevelSpec(G.D1),
          "--LL=" + cacheLevelSpec(G.LL),
          // Symbol-table names, so the instruction check can tell the
          // program's own functions from libc's (reports demangle them).
          "--demangle=no",
          ("--cachegrind-out-file=" + OutFile).str(),
          ("--log-file=" + LogFile).str()};
}

Expected<std::map<std::string, double>> parseCachegrindText(StringRef Text,
                                                            StringRef Name) {
  SmallVector<StringRef, 16> Events;
  unsigned EventsLine = 0;
  CallgrindReader R(Text, Name);
  while (R.next()) {
    CallgrindLine L = classifyCallgrindLine(R.line());
    if (L.Kind != CallgrindLine::Header)
      continue;
    if (L.Key == "events") {
      Events = splitCallgrindFields(L.Value);
      EventsLine = R.lineNo();
      continue;
    }
    if (L.Key != "summary")
      continue;
    if (!EventsLine)
      return R.error("'summary:' before any 'events:' line");
    SmallVector<StringRef, 16> Values = splitCallgrindFields(L.Value);
    if (Values.size() != Events.size())
      return R.error("'summary:' has {0} values for {1} events (line {2})",
                     Values.size(), Events.size(), EventsLine);
    std::map<std::string, double> Totals;
    for (size_t I = 0; I < Values.size(); ++I) {
      uint64_t V;
      if (Values[I].getAsInteger(10, V))
        return R.error("'{0}' is not a count", Values[I]);
      Totals[Events[I].str()] = static_cast<double>(V);
    }
    return Totals;
  }
  return R.errorAt(0, "no 'summary:' line (truncated cachegrind output?)");
}

std::map<std::string, uint64_t> cachegrindFunctionIr(StringRef Text) {
  std::map<std::string, uint64_t> Out;
  size_t IrColumn = 0; // in the counts after the line number
  uint64_t *Current = nullptr;
  CallgrindReader R(Text, "");
  while (R.next()) {
    StringRef Line = R.line();
    CallgrindLine L = classifyCallgrindLine(Line);
    if (L.Kind == CallgrindLine::Cost) {
      if (!Current || !isDigit(Line.front()))
        continue;
      // "<line> <Ir> <I1mr> ...": skip the line number and IrColumn counts
      // (trailing zero counts are left out).
      StringRef Rest = Line.ltrim("0123456789");
      for (size_t I = 0; I < IrColumn; ++I)
        Rest = Rest.ltrim(' ').ltrim("0123456789");
      Rest = Rest.ltrim(' ');
      uint64_t N = 0;
      if (!Rest.consumeInteger(10, N))
        *Current += N;
    } else if (L.Kind == CallgrindLine::Spec && L.Key == "fn") {
      // glibc's versioned names ("memcpy@@GLIBC_2.14") count as the plain
      // symbol.
      StringRef Name = L.Value.split('@').first;
      Current = &Out[Name.str()];
    } else if (L.Kind == CallgrindLine::Header && L.Key == "events") {
      SmallVector<StringRef, 16> Events = splitCallgrindFields(L.Value);
      auto It = llvm::find(Events, "Ir");
      if (It == Events.end())
        return {};
      IrColumn = size_t(It - Events.begin());
    } else if (L.Kind == CallgrindLine::Header && L.Key == "summary") {
      break;
    }
  }
  return Out;
}

Expected<std::map<std::string, double>> parseCachegrindOut(StringRef Path) {
  Expected<std::string> Text = readWholeFile(Path);
  if (!Text)
    return Text.takeError();
  return parseCachegrindText(*Text, Path);
}

std::string findKeelSimLib(StringRef ToolLibDir) {
  auto Holds = [](StringRef Dir) {
    return sys::fs::exists(Dir + "/keel-sim-amd64-linux");
  };
  if (const char *Env = std::getenv("KEEL_SIM_LIB"))
    return Env[0] && Holds(Env) ? std::string(Env) : std::string();
  return !ToolLibDir.empty() && Holds(ToolLibDir) ? ToolLibDir.str()
                                                  : std::string();
}

std::vector<std::string> keelSimArgs(const CacheGeometry &G, StringRef Frontend,
                                     StringRef OutFile, StringRef LogFile,
                                     StringRef MapFile) {
  return keelSimArgs(ArrayRef<CacheGeometry>(G), Frontend, OutFile, LogFile,
                     MapFile);
}

std::vector<std::string> keelSimArgs(ArrayRef<CacheGeometry> Gs,
                                     StringRef Frontend, StringRef OutFile,
                                     StringRef LogFile, StringRef MapFile) {
  std::vector<std::string> A = {"--tool=keel-sim"};
  for (const CacheGeometry &G : Gs) {
    A.push_back("--I1=" + cacheLevelSpec(G.I1));
    A.push_back("--D1=" + cacheLevelSpec(G.D1));
    A.push_back("--LL=" + cacheLevelSpec(G.LL));
  }
  A.insert(A.end(), {"--keel-sim-fn-ir=yes",
                                "--demangle=no",
                                ("--keel-sim-out-file=" + OutFile).str(),
                                ("--log-file=" + LogFile).str()});
  if (!Frontend.empty())
    A.push_back(("--frontend=" + Frontend).str());
  if (!MapFile.empty())
    A.push_back(("--keel-sim-map-file=" + MapFile).str());
  return A;
}

Expected<KeelSimOutput> parseKeelSimText(StringRef Text, StringRef Name) {
  KeelSimOutput Out;
  SmallVector<StringRef, 16> Events;
  std::vector<bool> HasResult;
  bool Header = false;
  // keel-sim's own line format, read with the callgrind reader's line
  // numbers and errors; its "events:" line is cachegrind's.
  CallgrindReader R(Text, Name);
  while (R.next()) {
    StringRef Line = R.line();
    if (Line.empty())
      continue;
    SmallVector<StringRef, 16> F = splitCallgrindFields(Line);
    if (F.empty()) // blanks only
      continue;
    StringRef Kind = F[0];
    if (Kind == "keel-sim") {
      Header = true;
    } else if (Kind == "variant") {
      unsigned N;
      uint64_t K;
      if (F.size() != 5 || F[1].getAsInteger(10, N) || F[4].getAsInteger(10, K) ||
          N != Out.Variants.size())
        return R.error("bad 'variant' line");
      Out.Variants.push_back({F[2].str(), K, {}, {}});
      HasResult.push_back(false);
    } else if (Kind == "process") {
      if (F.size() != 5 || F[2].getAsInteger(10, Out.Forks) ||
          F[4].getAsInteger(10, Out.Execs))
        return R.error("bad 'process' line");
    } else if (Kind == "events:") {
      Events.assign(F.begin() + 1, F.end());
    } else if (Kind == "result") {
      unsigned V, G;
      if (F.size() < 3 || F[1].getAsInteger(10, V) || F[2].getAsInteger(10, G) ||
          V >= Out.Variants.size() || F.size() != 3 + Events.size())
        return R.error("bad 'result' line");
      std::vector<std::map<std::string, double>> &BG = Out.Variants[V].ByGeometry;
      if (G >= MaxSweepGeometries)
        return R.error("bad 'result' line");
      if (BG.size() <= G)
        BG.resize(G + 1);
      for (size_t I = 0; I < Events.size(); ++I) {
        uint64_t C;
        if (F[3 + I].getAsInteger(10, C))
          return R.error("'{0}' is not a count", F[3 + I]);
        BG[G][Events[I].str()] = double(C);
      }
      if (G == 0) {
        Out.Variants[V].Counters = BG[0];
        HasResult[V] = true;
      }
    } else if (Kind == "fn") {
      // "fn COUNT NAME" (the name may hold spaces: "(below main)").
      if (F.size() < 3)
        return R.error("bad 'fn' line");
      auto [Count, FnName] = Line.ltrim(' ').drop_front(3).split(' ');
      uint64_t C;
      if (Count.getAsInteger(10, C) || FnName.empty())
        return R.error("bad 'fn' line");
      Out.FunctionIr[FnName.split('@').first.str()] += C;
    }
  }
  if (!Header)
    return R.errorAt(0, "not a keel-sim output file");
  if (Out.Variants.empty() || !llvm::all_of(HasResult, [](bool B) { return B; }))
    return R.errorAt(0, "a variant without a result (truncated output?)");
  return Out;
}

} // namespace sweep
} // namespace keel
