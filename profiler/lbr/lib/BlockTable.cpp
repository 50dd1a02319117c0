//===- BlockTable.cpp - block cycles = CPI x instruction count ------------===//
#include "keel/LBR/BlockTable.h"

#include "keel/LBR/Samples.h"
#include "keel/Profile/Binary.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace keel {

namespace {

using Range = std::pair<uint64_t, uint64_t>;

struct Accum {
  std::string Function;
  uint64_t Occurrences = 0, Instructions = 0, HWSeen = 0;
  double CPISum = 0, HWSum = 0, EstExec = 0, EstCycles = 0, EstHW = 0;
};

/// Instruction counts of ranges, each disassembled once; nullopt when the
/// range is not straight-line code of the binary (counted once per range).
class ICCache {
public:
  ICCache(const Binary &Bin, QualityReport &Q) : Bin(Bin), Q(Q) {}
  std::optional<uint64_t> get(uint64_t Start, uint64_t End) {
    auto [It, New] = Cache.try_emplace(Range{Start, End});
    Entry &E = It->second;
    if (New) {
      if (!Start || !End) {
        E.Why = "LBR blocks with an end outside the binary (skipped)";
      } else if (Start > End) {
        E.Why = "LBR blocks that run backwards (skipped)";
      } else if (auto N = Bin.countInstructions(Start, End)) {
        E.Count = *N;
      } else {
        consumeError(N.takeError());
        E.Why = "LBR blocks not made of whole instructions (skipped)";
      }
    }
    if (!E.Count)
      Q.count(E.Why);
    return E.Count;
  }

private:
  const Binary &Bin;
  QualityReport &Q;
  struct Entry {
    std::optional<uint64_t> Count;
    const char *Why = "";
  };
  std::map<Range, Entry> Cache;
};

double sampleCPI(const RawSample &R, const SampleSet &S,
                 const BlockTableOptions &Opts) {
  if (S.HasCounters)
    return double(R.Cycles) / double(R.Instructions);
  return Opts.DefaultCPI ? *Opts.DefaultCPI : NAN;
}

} // namespace

Expected<BlockTable> buildBlockTable(const SampleSet &S, const Binary &Bin,
                                     const BlockTableOptions &Opts,
                                     QualityReport &Quality) {
  BlockTable T;
  T.HasCPI = S.HasCounters || Opts.DefaultCPI;
  T.HasHWCycles = S.HasEntryCycles;
  ICCache IC(Bin, Quality);
  std::map<Range, Accum> Acc;
  for (size_t SI = 0; SI < S.Samples.size(); ++SI) {
    const RawSample &R = S.Samples[SI];
    ++T.NumSamples;
    T.NumEntries += R.Stack.size();
    T.TotalCycles += R.Cycles;
    T.TotalInstructions += R.Instructions;
    double CPI = sampleCPI(R, S, Opts);
    size_t FirstRow = T.Rows.size();
    uint64_t Window = 0;
    // Entry i+1 is older than entry i: the CPU ran from its target to the
    // source of entry i, and entry i's cycles are the time of that stretch.
    for (size_t I = R.Stack.size(); I-- > 1;) {
      const LBREntry &Older = R.Stack[I], &Newer = R.Stack[I - 1];
      auto N = IC.get(Older.To, Newer.From);
      if (!N)
        continue;
      BlockRow Row;
      Row.Sample = SI;
      Row.Start = Older.To;
      Row.End = Newer.From;
      Row.Function = functionName(Bin, Older.To);
      Row.CPI = CPI;
      Row.Instructions = *N;
      Row.Cycles = CPI * double(*N);
      Row.HWCycles = Newer.Cycles;
      Window += *N;
      T.Rows.push_back(std::move(Row));
    }
    // Scale the window to the interval when the counters say how long it was.
    double Scale =
        (S.HasCounters && Window) ? double(R.Instructions) / Window : 1.0;
    for (size_t RI = FirstRow; RI < T.Rows.size(); ++RI) {
      const BlockRow &Row = T.Rows[RI];
      Accum &A = Acc[{Row.Start, Row.End}];
      A.Function = Row.Function;
      A.Instructions = Row.Instructions;
      ++A.Occurrences;
      A.CPISum += Row.CPI;
      A.EstExec += Scale;
      A.EstCycles += Scale * Row.Cycles;
      if (Row.HWCycles) {
        A.EstHW += Scale * Row.HWCycles;
        A.HWSum += Row.HWCycles;
        ++A.HWSeen;
      }
    }
  }
  std::map<std::string, FunctionSummary> Funcs;
  for (auto &[R, A] : Acc) {
    BlockSummary B;
    B.Start = R.first;
    B.End = R.second;
    B.Function = A.Function;
    B.Occurrences = A.Occurrences;
    B.Instructions = A.Instructions;
    B.CPI = A.CPISum / A.Occurrences;
    B.Cycles = B.CPI * B.Instructions;
    B.HWCycles = A.HWSeen ? A.HWSum / A.HWSeen : 0;
    B.EstExecutions = A.EstExec;
    B.EstCycles = A.EstCycles;
    B.EstHWCycles = A.EstHW;
    FunctionSummary &F = Funcs[A.Function];
    F.Function = A.Function;
    F.Occurrences += A.Occurrences;
    F.CPI += A.CPISum; // divided by occurrences below
    F.Instructions += A.EstExec * A.Instructions;
    F.Cycles += A.EstCycles;
    F.HWCycles += A.HWSum;
    T.Blocks.push_back(std::move(B));
  }
  for (auto &[Name, F] : Funcs) {
    F.CPI /= F.Occurrences;
    T.Functions.push_back(std::move(F));
  }
  std::stable_sort(T.Blocks.begin(), T.Blocks.end(),
                   [&](const BlockSummary &A, const BlockSummary &B) {
                     if (T.HasCPI)
                       return A.EstCycles > B.EstCycles;
                     return A.HWCycles * A.Occurrences >
                            B.HWCycles * B.Occurrences;
                   });
  std::stable_sort(T.Functions.begin(), T.Functions.end(),
                   [&](const FunctionSummary &A, const FunctionSummary &B) {
                     if (T.HasCPI)
                       return A.Cycles > B.Cycles;
                     return A.HWCycles > B.HWCycles;
                   });
  if (T.Rows.empty())
    return inputError(S.FileName, 0,
                      "no LBR block could be measured (samples need two or "
                      "more entries inside the binary)");
  return T;
}

//===-- Reports
//------------------------------------------------------------===//

static std::string hex(uint64_t V) { return "0x" + utohexstr(V, true); }

static std::string num(double V, unsigned Prec = 2) {
  if (std::isnan(V))
    return "-";
  std::string S;
  raw_string_ostream(S) << format("%.*f", Prec, V);
  return S;
}

void printBlockTable(const BlockTable &T, unsigned Top, bool PerSample,
                     raw_ostream &OS) {
  OS << "samples " << T.NumSamples << ", LBR entries " << T.NumEntries
     << ", blocks measured " << T.Rows.size() << ", distinct blocks "
     << T.Blocks.size() << '\n';
  if (T.TotalInstructions)
    OS << "counters: cycles " << T.TotalCycles << ", instructions "
       << T.TotalInstructions << ", CPI "
       << num(double(T.TotalCycles) / T.TotalInstructions, 3) << '\n';
  if (!T.HasCPI)
    OS << "no per-sample counters and no --cpi: CPI x IC is not known\n";
  if (PerSample) {
    OS << "\nper sample (block = [to(i+1), from(i)]):\n";
    OS << format("%7s  %-18s %-18s %-24s %7s %6s %10s %8s\n", "sample", "start",
                 "end", "function", "CPI", "IC", "cycles", "hw-cyc");
    for (const BlockRow &R : T.Rows)
      OS << format("%7llu  %-18s %-18s %-24s %7s %6llu %10s %8s\n",
                   (unsigned long long)R.Sample, hex(R.Start).c_str(),
                   hex(R.End).c_str(), R.Function.c_str(),
                   num(R.CPI, 3).c_str(), (unsigned long long)R.Instructions,
                   num(R.Cycles).c_str(),
                   R.HWCycles ? std::to_string(R.HWCycles).c_str() : "-");
  }
  OS << "\nblocks (per execution; est = whole-run estimate):\n";
  OS << format("%-18s %-18s %-24s %6s %6s %7s %10s %8s %12s %14s\n", "start",
               "end", "function", "seen", "IC", "CPI", "cycles", "hw-cyc",
               "est-execs", "est-cycles");
  unsigned N = 0;
  for (const BlockSummary &B : T.Blocks) {
    if (Top && N++ >= Top)
      break;
    OS << format("%-18s %-18s %-24s %6llu %6llu %7s %10s %8s %12s %14s\n",
                 hex(B.Start).c_str(), hex(B.End).c_str(), B.Function.c_str(),
                 (unsigned long long)B.Occurrences,
                 (unsigned long long)B.Instructions, num(B.CPI, 3).c_str(),
                 num(B.Cycles).c_str(),
                 B.HWCycles ? num(B.HWCycles).c_str() : "-",
                 num(B.EstExecutions, 0).c_str(), num(B.EstCycles, 0).c_str());
  }
  OS << "\nfunctions:\n";
  OS << format("%-24s %6s %7s %14s %14s %10s\n", "function", "seen", "CPI",
               "est-instrs", "est-cycles", "hw-cyc");
  N = 0;
  for (const FunctionSummary &F : T.Functions) {
    if (Top && N++ >= Top)
      break;
    OS << format("%-24s %6llu %7s %14s %14s %10s\n", F.Function.c_str(),
                 (unsigned long long)F.Occurrences, num(F.CPI, 3).c_str(),
                 num(F.Instructions, 0).c_str(), num(F.Cycles, 0).c_str(),
                 F.HWCycles ? num(F.HWCycles, 0).c_str() : "-");
  }
}

void writeBlockTableCSV(const BlockTable &T, bool PerSample, raw_ostream &OS) {
  if (PerSample) {
    OS << "sample,start,end,function,cpi,instructions,cycles,hw_cycles\n";
    for (const BlockRow &R : T.Rows)
      OS << R.Sample << ',' << hex(R.Start) << ',' << hex(R.End) << ','
         << R.Function << ',' << num(R.CPI, 4) << ',' << R.Instructions << ','
         << num(R.Cycles, 2) << ',' << R.HWCycles << '\n';
    return;
  }
  OS << "kind,start,end,function,seen,cpi,instructions,cycles,hw_cycles,"
        "est_executions,est_cycles,est_hw_cycles\n";
  for (const BlockSummary &B : T.Blocks)
    OS << "block," << hex(B.Start) << ',' << hex(B.End) << ',' << B.Function
       << ',' << B.Occurrences << ',' << num(B.CPI, 4) << ',' << B.Instructions
       << ',' << num(B.Cycles, 2) << ',' << num(B.HWCycles, 2) << ','
       << num(B.EstExecutions, 2) << ',' << num(B.EstCycles, 2) << ','
       << num(B.EstHWCycles, 2) << '\n';
  for (const FunctionSummary &F : T.Functions)
    OS << "function,,," << F.Function << ',' << F.Occurrences << ','
       << num(F.CPI, 4) << ',' << num(F.Instructions, 2) << ",,"
       << num(F.HWCycles, 2) << ",," << num(F.Cycles, 2) << ",\n";
}

static json::Value jnum(double V) {
  if (std::isnan(V))
    return nullptr;
  return std::round(V * 10000) / 10000;
}

void writeBlockTableJSON(const BlockTable &T, bool PerSample, raw_ostream &OS) {
  json::Array Blocks, Funcs, Rows;
  for (const BlockSummary &B : T.Blocks)
    Blocks.push_back(json::Object{{"start", hex(B.Start)},
                                  {"end", hex(B.End)},
                                  {"function", B.Function},
                                  {"seen", B.Occurrences},
                                  {"instructions", B.Instructions},
                                  {"cpi", jnum(B.CPI)},
                                  {"cycles", jnum(B.Cycles)},
                                  {"hw_cycles", jnum(B.HWCycles)},
                                  {"est_executions", jnum(B.EstExecutions)},
                                  {"est_cycles", jnum(B.EstCycles)},
                                  {"est_hw_cycles", jnum(B.EstHWCycles)}});
  for (const FunctionSummary &F : T.Functions)
    Funcs.push_back(json::Object{{"function", F.Function},
                                 {"seen", F.Occurrences},
                                 {"cpi", jnum(F.CPI)},
                                 {"est_instructions", jnum(F.Instructions)},
                                 {"est_cycles", jnum(F.Cycles)},
                                 {"hw_cycles", jnum(F.HWCycles)}});
  json::Object Root{{"samples", T.NumSamples},
                    {"entries", T.NumEntries},
                    {"counter_cycles", T.TotalCycles},
                    {"counter_instructions", T.TotalInstructions},
                    {"blocks", std::move(Blocks)},
                    {"functions", std::move(Funcs)}};
  if (PerSample) {
    for (const BlockRow &R : T.Rows)
      Rows.push_back(json::Object{{"sample", R.Sample},
                                  {"start", hex(R.Start)},
                                  {"end", hex(R.End)},
                                  {"function", R.Function},
                                  {"cpi", jnum(R.CPI)},
                                  {"instructions", R.Instructions},
                                  {"cycles", jnum(R.Cycles)},
                                  {"hw_cycles", R.HWCycles}});
    Root["rows"] = std::move(Rows);
  }
  printJSON(json::Value(std::move(Root)), OS);
}

} // namespace keel
