//===- Run.cpp - place a program on the roofline --------------------------===//
//
// Phases: ask for hardware counters; else simulate the caches with callgrind
// (one run, per-instruction costs); weight executed instructions by their
// flops (LLVM MC disassembly of every object that ran); time native runs;
// place the result under the roofs.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Run.h"
#include "keel/Profile/Binary.h"
#include "keel/Roofline/FlopTable.h"
#include "keel/Roofline/Machine.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/PerfEvent.h"
#include "keel/Support/Process.h"
#include "keel/Support/Valgrind.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

using namespace llvm;

namespace keel {
namespace roofline {

namespace {

/// Whether perf_event can count cycles here at all.
std::string counterStatus(bool &Available) {
  if (int Err = probeCycleCounter()) {
    Available = false;
    return formatv("no hardware counters (perf_event_open: {0}); using a "
                   "callgrind cache simulation",
                   std::strerror(Err))
        .str();
  }
  Available = true;
  return "hardware counters exist, but the FP_ARITH/memory-traffic counter "
         "path is not implemented yet; using a callgrind cache simulation";
}

/// valgrind wants sets = size / (ways x line) to be a power of two.
std::string geometry(const CacheLevel &L) {
  uint64_t Sets = L.Size / (L.Assoc * L.Line);
  while (Sets & (Sets - 1))
    Sets &= Sets - 1; // round down to a power of two
  return cacheLevelSpec({Sets * L.Assoc * L.Line, L.Assoc, L.Line});
}

std::optional<std::string> opcodeAt(const Binary &B, uint64_t Addr) {
  const SectionInfo *Sec = B.sectionAt(Addr);
  if (!Sec || !Sec->IsExec)
    return std::nullopt;
  uint64_t End = std::min(Addr + 15, Sec->Addr + Sec->Size);
  std::optional<std::string> Name;
  Error E = B.forEachInstruction(
      Addr, End, [&](const InstInfo &, const MCInst &I) {
        if (!Name)
          Name = B.instrInfo().getName(I.getOpcode()).str();
      });
  consumeError(std::move(E)); // a truncated *later* instruction is fine
  return Name;
}

Expected<double> timeNative(const RunConfig &Cfg) {
  double Best = std::numeric_limits<double>::infinity();
  for (unsigned I = 0; I < std::max(1u, Cfg.Repeats); ++I) {
    keel::RunOptions Opts;
    Opts.Stdout = "";
    auto T0 = std::chrono::steady_clock::now();
    auto R = runProgram(Cfg.Argv, Opts);
    auto T1 = std::chrono::steady_clock::now();
    if (!R)
      return R.takeError();
    if (R->ExitCode != 0)
      return makeError("{0} exited with {1} {2}", Cfg.Argv[0], R->ExitCode,
                       R->Message);
    Best = std::min(Best, std::chrono::duration<double>(T1 - T0).count());
  }
  return Best;
}

Expected<InstructionCosts> runCallgrind(const RunConfig &Cfg, StringRef D1,
                                        StringRef LL) {
  auto Valgrind = findValgrind(
      ValgrindLauncher::Script,
      "valgrind is not installed: no counters and no cache simulation");
  if (!Valgrind)
    return Valgrind.takeError();
  auto Dir = makePrivateTempDir("keel-roofline");
  if (!Dir)
    return Dir.takeError();
  std::string Out = *Dir + "/callgrind.out", Err = *Dir + "/valgrind.err";
  ValgrindCommand C;
  C.Tool = "callgrind";
  C.ToolOptions = {"--cache-sim=yes",
                   "--dump-instr=yes",
                   "--dump-line=no",
                   "--compress-pos=no",
                   "--compress-strings=no",
                   "--I1=" + Cfg.I1,
                   "--D1=" + D1.str(),
                   "--LL=" + LL.str(),
                   "--callgrind-out-file=" + Out};
  C.Separator = true;
  C.Program = Cfg.Argv;
  keel::RunOptions Opts;
  Opts.Stdout = "";
  Opts.Stderr = Err;
  auto R = runValgrind(*Valgrind, C, Opts);
  auto Cleanup = [&] { sys::fs::remove_directories(*Dir); };
  if (!R) {
    Cleanup();
    return R.takeError();
  }
  if (R->ExitCode != 0) {
    auto Text = readWholeFile(Err);
    std::string Tail = Text ? StringRef(*Text).take_back(400).str() : "";
    Cleanup();
    return makeError("callgrind run of {0} failed (exit {1}): {2}",
                     Cfg.Argv[0], R->ExitCode, Tail);
  }
  auto Text = readWholeFile(Out);
  if (!Text) {
    Cleanup();
    return Text.takeError();
  }
  auto Costs = parseCallgrind(*Text, Out);
  Cleanup();
  return Costs;
}

} // namespace

Expected<RunReport> placeFromCosts(const InstructionCosts &Costs,
                                   const RunConfig &Cfg, unsigned LineSize) {
  RunReport R;
  double L1Bytes = 0, D1Miss = 0, LLMiss = 0;
  uint64_t Unknown = Cfg.Function.empty() ? Costs.UnknownObjectIr : 0;
  uint64_t Undecoded = 0;
  for (const auto &[Object, Addrs] : Costs.ByObject) {
    auto B = Binary::open(Object);
    if (!B) {
      consumeError(B.takeError());
      for (const auto &[Addr, C] : Addrs)
        if (Cfg.Function.empty())
          Unknown += C[Ir];
      continue;
    }
    const auto &Fns = Costs.FunctionOf.at(Object);
    for (const auto &[Addr, C] : Addrs) {
      if (!Cfg.Function.empty() && Fns.at(Addr) != Cfg.Function)
        continue;
      R.Instructions += C[Ir];
      D1Miss += double(C[D1mr] + C[D1mw]);
      LLMiss += double(C[DLmr] + C[DLmw]);
      // valgrind may split one wide or line-crossing access into several
      // references, so L1 bytes are executions x operand width, once for a
      // read and once for a write.
      double MemOps = double(C[Ir]) * ((C[Dr] > 0) + (C[Dw] > 0));
      auto Name = opcodeAt(**B, Addr);
      if (!Name) {
        Undecoded += C[Ir];
        L1Bytes += MemOps * 8;
        continue;
      }
      L1Bytes += MemOps * memoryWidthGuess(*Name);
      FlopInfo FI = classifyOpcodeName(*Name);
      if (FI.Flops) {
        double F = double(C[Ir]) * FI.Flops;
        R.Flops += F;
        R.FlopsByOpcode[*Name] += F;
      }
    }
  }
  if (!Cfg.Function.empty() && R.Instructions == 0)
    return makeError("function '{0}' executed no instructions", Cfg.Function);
  if (Unknown)
    R.Quality.count("in code that could not be disassembled (unknown "
                    "objects, PLT stubs)",
                    Unknown);
  if (Undecoded)
    R.Quality.count("did not decode", Undecoded);

  const Ceilings &C = Cfg.Roofs;
  R.Levels = {{"L1", L1Bytes, 0, 0, C.L1band},
              {"L2", D1Miss * LineSize, 0, 0, C.L2band},
              {"memory", LLMiss * LineSize, 0, 0, C.Mband}};
  R.RoofGFlops = C.Ppeak;
  R.BoundBy = "compute";
  for (LevelPlacement &L : R.Levels) {
    if (L.Bytes <= 0 || R.Flops <= 0)
      continue;
    L.Intensity = R.Flops / L.Bytes;
    L.RoofGFlops = L.CeilingGBs * L.Intensity;
    if (L.RoofGFlops < R.RoofGFlops) {
      R.RoofGFlops = L.RoofGFlops;
      R.BoundBy = L.Level;
    }
  }
  if (R.Flops <= 0)
    R.BoundBy = "none (no floating-point work)";
  return R;
}

Expected<RunReport> runRoofline(const RunConfig &CfgIn) {
  RunConfig Cfg = CfgIn;
  if (Cfg.Argv.empty() && !Cfg.CallgrindOut)
    return makeError("no program to run");
  MachineCaches G = readMachineCaches();
  std::string D1 = Cfg.D1.empty() ? geometry(G.L1d) : Cfg.D1;
  std::string LL = Cfg.LL.empty() ? geometry(G.L2) : Cfg.LL;
  unsigned Line = G.L1d.Line;
  if (std::optional<CacheLevel> L = parseCacheLevelSpec(D1); L && L->Line)
    Line = L->Line;

  bool HaveCounters = false;
  std::string Note = counterStatus(HaveCounters);
  Expected<InstructionCosts> Costs = InstructionCosts();
  if (Cfg.CallgrindOut) {
    auto Text = readWholeFile(*Cfg.CallgrindOut);
    if (!Text)
      return Text.takeError();
    Costs = parseCallgrind(*Text, *Cfg.CallgrindOut);
    Note = "costs from " + *Cfg.CallgrindOut;
  } else {
    Costs = runCallgrind(Cfg, D1, LL);
  }
  if (!Costs)
    return Costs.takeError();
  auto R = placeFromCosts(*Costs, Cfg, Line);
  if (!R)
    return R.takeError();
  R->Source = "callgrind";
  R->CounterNote = Note;
  R->D1 = D1;
  R->LL = LL;
  if (Cfg.Seconds) {
    R->Seconds = *Cfg.Seconds;
  } else {
    auto S = timeNative(Cfg);
    if (!S)
      return S.takeError();
    R->Seconds = *S;
  }
  if (R->Seconds > 0)
    R->AchievedGFlops = R->Flops / R->Seconds / 1e9;
  if (R->AchievedGFlops > 0 && R->Flops > 0)
    R->Headroom = R->RoofGFlops / R->AchievedGFlops;
  return R;
}

json::Object toJSON(const RunReport &R) {
  json::Array Levels;
  for (const LevelPlacement &L : R.Levels)
    Levels.push_back(json::Object{{"level", L.Level},
                                  {"bytes", L.Bytes},
                                  {"intensity", L.Intensity},
                                  {"ceiling_gbs", L.CeilingGBs},
                                  {"roof_gflops", L.RoofGFlops}});
  json::Object ByOp;
  for (const auto &[Name, F] : R.FlopsByOpcode)
    ByOp[Name] = F;
  json::Object Q;
  for (const auto &[What, N] : R.Quality.counts())
    Q[What] = int64_t(N);
  return json::Object{{"source", R.Source},
                      {"note", R.CounterNote},
                      {"D1", R.D1},
                      {"LL", R.LL},
                      {"instructions", int64_t(R.Instructions)},
                      {"flops", R.Flops},
                      {"flops_by_opcode", std::move(ByOp)},
                      {"levels", std::move(Levels)},
                      {"seconds", R.Seconds},
                      {"achieved_gflops", R.AchievedGFlops},
                      {"roof_gflops", R.RoofGFlops},
                      {"bound", R.BoundBy},
                      {"headroom", R.Headroom},
                      {"quality", std::move(Q)}};
}

void printText(raw_ostream &OS, const RunReport &R) {
  OS << "source: " << R.Source << " (" << R.CounterNote << ")\n";
  OS << "simulated D1 " << R.D1 << ", LL " << R.LL << '\n';
  OS << formatv("instructions {0}, flops {1:e}\n", R.Instructions, R.Flops);
  for (const auto &[Name, F] : R.FlopsByOpcode)
    OS << formatv("  {0,-20} {1:e} flops\n", Name, F);
  for (const LevelPlacement &L : R.Levels)
    OS << formatv("{0,-7} {1:e} bytes, {2:f4} flop/byte, roof {3:f2} GFLOP/s "
                  "(ceiling {4:f1} GB/s)\n",
                  L.Level, L.Bytes, L.Intensity, L.RoofGFlops, L.CeilingGBs);
  OS << formatv("time {0:f4} s, achieved {1:f3} GFLOP/s, roof {2:f3} GFLOP/s "
                "({3} bound), headroom {4:f2}x\n",
                R.Seconds, R.AchievedGFlops, R.RoofGFlops, R.BoundBy,
                R.Headroom);
}

} // namespace roofline
} // namespace keel
