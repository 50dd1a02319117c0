//===- LBRGen.cpp - emulate LBR sampling on an exact instruction trace ----===//
//
// The trace is valgrind lackey's --trace-mem=yes log: one "I  ADDR,SIZE"
// line per executed instruction (hex, no 0x), data accesses (" L", " S",
// " M") and "==PID==" messages in between, which are skipped. A string
// instruction with a rep prefix shows up once per iteration at the same
// address; it is one instruction here, as the retired-instruction counter
// sees it.
//
//===----------------------------------------------------------------------===//
#include "keel/LBR/LBRGen.h"

#include "keel/LBR/Samples.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Input.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <deque>

using namespace llvm;

namespace keel {

Error parseLBRFilter(StringRef S, LBRGenOptions &O) {
  O.FilterAny = O.FilterCall = O.FilterReturn = O.FilterIndCall = false;
  SmallVector<StringRef, 4> Words;
  S.split(Words, ',', -1, false);
  for (StringRef W : Words) {
    W = W.trim();
    if (W == "any")
      O.FilterAny = true;
    else if (W == "call")
      O.FilterCall = true;
    else if (W == "return")
      O.FilterReturn = true;
    else if (W == "ind_call")
      O.FilterIndCall = true;
    else if (W == "user-callret")
      O.FilterCall = O.FilterReturn = true;
    else if (W != "user")
      return inputError("--lbr", 0,
                        "unknown LBR filter word '{0}' (expected any, call, "
                        "return, ind_call, user or user-callret)",
                        W);
  }
  if (!O.FilterAny && !O.FilterCall && !O.FilterReturn && !O.FilterIndCall)
    return inputError("--lbr", 0, "the LBR filter '{0}' records no branch", S);
  return Error::success();
}

std::string filterName(const LBRGenOptions &O) {
  if (O.FilterAny)
    return "any,user";
  std::string S;
  if (O.FilterCall)
    S += "call,";
  if (O.FilterReturn)
    S += "return,";
  if (O.FilterIndCall && !O.FilterCall)
    S += "ind_call,";
  return S + "user";
}

namespace {

enum class Kind : uint8_t { None, Cond, Jump, IndJump, Call, IndCall, Ret };

const char *kindType(Kind K) {
  switch (K) {
  case Kind::Cond:
    return "COND";
  case Kind::Jump:
    return "UNCOND";
  case Kind::IndJump:
    return "IND";
  case Kind::Call:
    return "CALL";
  case Kind::IndCall:
    return "IND_CALL";
  case Kind::Ret:
    return "RET";
  case Kind::None:
    break;
  }
  return "";
}

struct Meta {
  unsigned Func = 0;
  double CPI = 1;
  Kind K = Kind::None;
  bool Outside = false;  ///< not the binary's code (ld.so, a library)
  bool NoDecode = false; ///< in its code, but no instruction decodes there
  /// Always leaves the fall-through path (jump, call, return).
  bool Unconditional() const { return K != Kind::None && K != Kind::Cond; }
};

/// Quality counts, per traced instruction.
const char *const OutsideBinary =
    "are outside the binary (the dynamic loader, shared libraries)";
const char *const NotDecoded =
    "are in the binary's code where no instruction decodes";

class Emulator {
public:
  Emulator(const Binary &Bin, const LBRGenOptions &Opts, QualityReport &Q)
      : Bin(Bin), Opts(Opts), Q(Q) {
    FuncNames.push_back("[unknown]");
    FuncIndex["[unknown]"] = 0;
    WindowTime.resize(1);
    FuncInstrs.resize(1);
    FuncCycles.resize(1);
  }
  void instruction(uint64_t A, uint64_t Size);
  LBRGenResult finish();

private:
  const Meta &meta(uint64_t A);
  void branch(uint64_t From, uint64_t To, const Meta &M);
  void sample(uint64_t IP);
  bool recorded(Kind K) const {
    switch (K) {
    case Kind::Call:
      return Opts.FilterAny || Opts.FilterCall;
    case Kind::IndCall:
      return Opts.FilterAny || Opts.FilterCall || Opts.FilterIndCall;
    case Kind::Ret:
      return Opts.FilterAny || Opts.FilterReturn;
    case Kind::None:
      return false;
    default:
      return Opts.FilterAny;
    }
  }

  const Binary &Bin;
  const LBRGenOptions &Opts;
  QualityReport &Q;
  DenseMap<uint64_t, Meta> Metas;
  std::vector<std::string> FuncNames;
  std::map<std::string, unsigned> FuncIndex;
  LBRGenResult R;

  bool HavePrev = false;
  uint64_t PrevAddr = 0, PrevSize = 0;
  Meta Prev;
  double Cycles = 0;
  uint64_t Instrs = 0;
  uint64_t RunStart = 0, RunInstrs = 0;
  double RunCycles = 0;
  bool RunOpen = false;
  std::deque<LBREntry> Ring;
  uint64_t LastRecordCycles = 0;
  bool Pending = false;
  uint64_t LastSampleCycles = 0, LastSampleInstrs = 0;
  double WindowStart = 0;
  std::vector<double> WindowTime;
  std::vector<uint64_t> FuncInstrs;
  std::vector<double> FuncCycles;
};

const Meta &Emulator::meta(uint64_t A) {
  auto [It, New] = Metas.try_emplace(A);
  if (!New)
    return It->second;
  Meta &M = It->second;
  std::string Name = "[unknown]";
  if (const SymbolInfo *S = Bin.functionAt(A))
    Name = S->Name;
  auto [FI, NewF] = FuncIndex.try_emplace(Name, FuncNames.size());
  if (NewF)
    FuncNames.push_back(Name);
  M.Func = FI->second;
  auto C = Opts.FunctionCPI.find(Name);
  M.CPI = C == Opts.FunctionCPI.end() ? Opts.BaseCPI : C->second;
  if (!Bin.isExecutableAddress(A)) {
    M.Outside = true;
    return M;
  }
  auto I = Bin.instructionAt(A);
  if (!I) {
    consumeError(I.takeError());
    M.NoDecode = true;
    return M;
  }
  if (I->IsReturn)
    M.K = Kind::Ret;
  else if (I->IsCall)
    M.K = I->IsIndirect ? Kind::IndCall : Kind::Call;
  else if (I->IsBranch && I->IsConditional)
    M.K = Kind::Cond;
  else if (I->IsBranch)
    M.K = I->IsIndirect ? Kind::IndJump : Kind::Jump;
  return M;
}

void Emulator::branch(uint64_t From, uint64_t To, const Meta &M) {
  ++R.Truth.TakenBranches;
  double Pen = Opts.TakenPenalty;
  Cycles += Pen;
  RunCycles += Pen;
  FuncCycles[M.Func] += Pen;
  WindowTime[M.Func] += Pen;
  if (RunOpen) {
    TruthBlock &B = R.Truth.Blocks[{RunStart, From}];
    B.Function = FuncNames[Metas[RunStart].Func];
    ++B.Executions;
    B.Instructions += RunInstrs;
    B.Cycles += RunCycles;
  }
  RunOpen = true;
  RunStart = To;
  RunInstrs = 0;
  RunCycles = 0;
  if (M.Outside) // no disassembly there: its branches have no kind
    return;
  if (M.K == Kind::None) {
    Q.count("follow a non-branch instruction they do not fall through to "
            "(a trace discontinuity, not recorded)");
    return;
  }
  if (!recorded(M.K))
    return;
  ++R.Truth.Recorded;
  LBREntry E;
  E.From = From;
  E.To = To;
  E.Predicted = true;
  uint64_t Now = uint64_t(std::llround(Cycles));
  if (Opts.EntryCycles)
    E.Cycles = uint32_t(std::min<uint64_t>(Now - LastRecordCycles, 65535));
  LastRecordCycles = Now;
  E.Type = kindType(M.K);
  Ring.push_front(std::move(E));
  if (Ring.size() > Opts.Depth)
    Ring.pop_back();
}

void Emulator::sample(uint64_t IP) {
  RecordedSample RS;
  RawSample &S = RS.Sample;
  uint64_t Now = uint64_t(std::llround(Cycles));
  S.IP = IP;
  S.Pid = S.Tid = 1;
  S.Time = Now; // one cycle is one nanosecond (a 1 GHz clock)
  S.Event = "instructions";
  S.Cycles = Now - LastSampleCycles;
  S.Instructions = Instrs - LastSampleInstrs;
  S.Stack.assign(Ring.begin(), Ring.end());
  if (Opts.ClearOnSample)
    Ring.clear();
  RS.Period = Opts.Period;
  R.Recording.Samples.push_back(std::move(RS));
  LBRGenTruth::TruthWindow W;
  W.Start = WindowStart;
  W.Cycles = Cycles - WindowStart;
  W.Instructions = Instrs - LastSampleInstrs;
  for (size_t F = 0; F < WindowTime.size(); ++F)
    if (WindowTime[F] > 0)
      W.Functions[FuncNames[F]] = WindowTime[F];
  R.Truth.Windows.push_back(std::move(W));
  std::fill(WindowTime.begin(), WindowTime.end(), 0.0);
  WindowStart = Cycles;
  LastSampleCycles = Now;
  LastSampleInstrs = Instrs;
}

void Emulator::instruction(uint64_t A, uint64_t Size) {
  if (HavePrev) {
    if (A == PrevAddr && Prev.K == Kind::None)
      return; // another iteration of a rep-prefixed instruction
    if (A != PrevAddr + PrevSize || Prev.Unconditional())
      branch(PrevAddr, A, Prev);
    if (Pending) {
      sample(A);
      Pending = false;
    }
  }
  const Meta &M = meta(A);
  if (M.Outside || M.NoDecode)
    Q.count(M.Outside ? OutsideBinary : NotDecoded);
  if (FuncNames.size() > WindowTime.size()) {
    WindowTime.resize(FuncNames.size());
    FuncInstrs.resize(FuncNames.size());
    FuncCycles.resize(FuncNames.size());
  }
  Cycles += M.CPI;
  ++Instrs;
  ++RunInstrs;
  RunCycles += M.CPI;
  WindowTime[M.Func] += M.CPI;
  ++FuncInstrs[M.Func];
  FuncCycles[M.Func] += M.CPI;
  if (Instrs % Opts.Period == 0)
    Pending = true;
  HavePrev = true;
  PrevAddr = A;
  PrevSize = Size;
  Prev = M;
}

LBRGenResult Emulator::finish() {
  R.Truth.Instructions = Instrs;
  R.Truth.Cycles = Cycles;
  for (size_t F = 0; F < FuncInstrs.size(); ++F)
    if (FuncInstrs[F])
      R.Truth.Functions[FuncNames[F]] = {FuncInstrs[F], FuncCycles[F]};
  return std::move(R);
}

/// The mapping that puts \p Bin at its link-time addresses: the first
/// executable section's page, with its file offset.
Mapping binaryMapping(const Binary &Bin) {
  Mapping M;
  M.Pid = M.Tid = 1;
  M.Prot = 5;
  M.Path = Bin.path().str();
  M.BuildID = Bin.buildID().str();
  for (const SectionInfo &S : Bin.sections())
    if (S.IsExec && S.IsAlloc && !S.IsBSS) {
      M.Start = S.Addr & ~uint64_t(0xfff);
      M.PgOff = S.FileOffset & ~uint64_t(0xfff);
      break;
    }
  uint64_t End = M.Start;
  for (const SectionInfo &S : Bin.sections())
    if (S.IsExec && S.Addr + S.Size > End)
      End = S.Addr + S.Size;
  M.Length = ((End - M.Start) + 0xfff) & ~uint64_t(0xfff);
  return M;
}

/// "I  ADDR,SIZE" -> ADDR, SIZE; false for every other line.
bool parseInstructionLine(StringRef Line, uint64_t &A, uint64_t &Size,
                          bool &Bad) {
  Bad = false;
  if (!Line.starts_with("I "))
    return false;
  auto [AddrS, SizeS] = Line.drop_front(1).ltrim().split(',');
  Bad = AddrS.getAsInteger(16, A) || SizeS.trim().getAsInteger(10, Size);
  return !Bad;
}

/// Whether the trace, from its instruction at \p Pos (address \p A), runs
/// \p Bin's code loaded \p Bias higher: the next instructions, while they
/// fall through, have the sizes the disassembly gives at A - Bias.
bool runsBinaryAt(StringRef Text, size_t Pos, uint64_t Bias,
                  const Binary &Bin) {
  unsigned Checked = 0;
  uint64_t Expect = 0;
  for (; Pos < Text.size() && Checked < 8;) {
    size_t NL = Text.find('\n', Pos);
    StringRef Line = Text.slice(Pos, NL == StringRef::npos ? Text.size() : NL);
    Pos = NL == StringRef::npos ? Text.size() : NL + 1;
    uint64_t A, Size;
    bool Bad;
    if (!parseInstructionLine(Line, A, Size, Bad))
      continue;
    if (Checked && A != Expect)
      break; // a taken branch: what matched so far decides
    auto I = Bin.instructionAt(A - Bias);
    if (!I) {
      consumeError(I.takeError());
      return false;
    }
    if (I->Size != Size)
      return false;
    ++Checked;
    Expect = A + Size;
  }
  return Checked >= 2;
}

/// The load bias of \p Bin in the lackey trace \p Text: 0 unless it is a
/// PIE, whose run-time addresses (valgrind loads a PIE at 0x108000) are
/// found from its entry point: the first traced instruction a whole number
/// of pages from the entry whose code there is the binary's.
Expected<uint64_t> traceBias(StringRef Text, StringRef Name,
                             const Binary &Bin) {
  if (!Bin.isPIE())
    return 0;
  Expected<uint64_t> Entry = Bin.object().getStartAddress();
  if (!Entry)
    return Entry.takeError();
  for (size_t Pos = 0; Pos < Text.size();) {
    size_t NL = Text.find('\n', Pos);
    size_t Next = NL == StringRef::npos ? Text.size() : NL + 1;
    uint64_t A, Size;
    bool Bad;
    if (parseInstructionLine(Text.slice(Pos, Next), A, Size, Bad) &&
        ((A - *Entry) & 0xfff) == 0 && A >= *Entry &&
        runsBinaryAt(Text, Pos, A - *Entry, Bin))
      return A - *Entry;
    Pos = Next;
  }
  return inputError(Name, 0,
                    "the trace never runs the entry point of the PIE '{0}' "
                    "({1:x}): not a trace of this binary",
                    Bin.path(), *Entry);
}

} // namespace

Expected<LBRGenResult> generateLBRSamples(StringRef Text, StringRef Name,
                                          const Binary &Bin,
                                          const LBRGenOptions &Opts,
                                          QualityReport &Quality) {
  if (Opts.Depth == 0 || Opts.Period == 0)
    return inputError(Name, 0, "the LBR depth and the period must be > 0");
  // A lackey log is text: binary data is refused from its first bytes.
  if (std::optional<size_t> At = firstBinaryByte(Text))
    return binaryDataError(Name, Text, *At);
  Expected<uint64_t> Bias = traceBias(Text, Name, Bin);
  if (!Bias)
    return Bias.takeError();
  // The run-time extent of the binary's code; addresses in it go back to
  // link time, the rest (ld.so, libraries) stay as they ran.
  uint64_t Lo = UINT64_MAX, Hi = 0;
  for (const SectionInfo &S : Bin.sections())
    if (S.IsExec && S.IsAlloc) {
      Lo = std::min(Lo, S.Addr + *Bias);
      Hi = std::max(Hi, S.Addr + S.Size + *Bias);
    }
  Emulator Em(Bin, Opts, Quality);
  unsigned LineNo = 0;
  uint64_t Seen = 0;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t NL = Text.find('\n', Pos);
    if (NL == StringRef::npos)
      NL = Text.size();
    StringRef Line = Text.slice(Pos, NL);
    Pos = NL + 1;
    ++LineNo;
    uint64_t A, Size;
    bool Bad;
    if (!parseInstructionLine(Line, A, Size, Bad)) {
      if (Bad)
        return inputError(Name, LineNo, "bad lackey instruction line '{0}'",
                          quoteInput(Line));
      continue;
    }
    if (Seen++ < Opts.Skip)
      continue;
    Em.instruction(A >= Lo && A < Hi ? A - *Bias : A, Size);
  }
  if (!Seen)
    return inputError(Name, 0,
                      "no instruction lines ('I  ADDR,SIZE'): run valgrind "
                      "--tool=lackey --trace-mem=yes");
  LBRGenResult R = Em.finish();
  if (R.Recording.Samples.empty())
    return inputError(Name, 0,
                      "the trace has {0} instructions, fewer than one period "
                      "({1}): no sample",
                      R.Truth.Instructions, Opts.Period);
  // Samples with empty branch stacks would look like a profile and measure
  // nothing (every analysis would say "[unknown] 100%").
  if (!R.Truth.Recorded)
    return inputError(Name, 0,
                      "no branch of '{0}' was recorded ({1} taken branches "
                      "traced, {2} of its {3} instructions in the binary, "
                      "LBR filter '{4}'): every sample's branch stack would "
                      "be empty",
                      Bin.path(), R.Truth.TakenBranches,
                      R.Truth.Instructions - Quality.get(OutsideBinary),
                      R.Truth.Instructions, filterName(Opts));
  RecordInfo &I = R.Recording.Info;
  I.Command = {Bin.path().str()};
  I.Event = "instructions";
  I.CyclesEvent = "cycles";
  I.InstructionsEvent = "instructions";
  I.Period = Opts.Period;
  I.LBR = filterName(Opts);
  R.Recording.Mappings.push_back(binaryMapping(Bin));
  TaskEvent C;
  C.Kind = TaskEvent::Comm;
  C.Pid = C.Tid = 1;
  C.Exec = true;
  C.Name = sys::path::filename(Bin.path()).str();
  R.Recording.Tasks.push_back(C);
  return R;
}

static std::string hex(uint64_t V) { return "0x" + utohexstr(V, true); }

void writeTruthJSON(const LBRGenTruth &T, const LBRGenOptions &Opts,
                    raw_ostream &OS) {
  auto R2 = [](double V) { return std::round(V * 100) / 100; };
  json::Array Blocks, Windows;
  for (auto &[K, B] : T.Blocks)
    Blocks.push_back(json::Object{{"start", hex(K.first)},
                                  {"end", hex(K.second)},
                                  {"function", B.Function},
                                  {"executions", B.Executions},
                                  {"instructions", B.Instructions},
                                  {"cycles", R2(B.Cycles)}});
  json::Object Funcs;
  for (auto &[F, V] : T.Functions)
    Funcs[F] =
        json::Object{{"instructions", V.first}, {"cycles", R2(V.second)}};
  for (const auto &W : T.Windows) {
    json::Object F;
    for (auto &[N, C] : W.Functions)
      F[N] = R2(C);
    Windows.push_back(json::Object{{"start", R2(W.Start)},
                                   {"cycles", R2(W.Cycles)},
                                   {"instructions", W.Instructions},
                                   {"functions", std::move(F)}});
  }
  json::Object CPI;
  for (auto &[F, V] : Opts.FunctionCPI)
    CPI[F] = V;
  json::Object Model{{"base_cpi", Opts.BaseCPI},
                     {"function_cpi", std::move(CPI)},
                     {"taken_penalty", Opts.TakenPenalty},
                     {"period", Opts.Period},
                     {"depth", Opts.Depth},
                     {"filter", filterName(Opts)},
                     {"clear_on_sample", Opts.ClearOnSample}};
  json::Object Root{
      {"model", std::move(Model)},       {"instructions", T.Instructions},
      {"cycles", R2(T.Cycles)},          {"taken_branches", T.TakenBranches},
      {"recorded_branches", T.Recorded}, {"functions", std::move(Funcs)},
      {"blocks", std::move(Blocks)},     {"windows", std::move(Windows)}};
  printJSON(json::Value(std::move(Root)), OS);
}

} // namespace keel
