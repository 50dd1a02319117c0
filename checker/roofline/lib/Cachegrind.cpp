//===- Cachegrind.cpp - parse callgrind's per-instruction costs -----------===//
//
// The format (callgrind_format docs): "ob=", "fn=" set the current object and
// function; "cob=", "cfn=", "calls=N target" describe a call, and the cost
// line right after "calls=" is the call's inclusive cost, which must not be
// added to the caller's self cost. A cost line is "<addr> <events...>",
// trailing zero events omitted.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Cachegrind.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace keel {
namespace roofline {

static const char *const EventNames[NumEvents] = {
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"};

Expected<InstructionCosts> parseCallgrind(StringRef Text, StringRef File) {
  InstructionCosts Out;
  SmallVector<int, NumEvents> Map; // column -> CacheEvent, -1: unused
  std::string Object = "???", Function;
  bool NextIsCallCost = false;
  unsigned LineNo = 0;
  bool SawPositionsInstr = false;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.rtrim();
    if (Line.empty() || Line.starts_with("#"))
      continue;
    if (Line.consume_front("positions:")) {
      if (Line.trim() != "instr")
        return inputError(File, LineNo,
                          "positions must be 'instr' (run callgrind with "
                          "--dump-instr=yes --dump-line=no)");
      SawPositionsInstr = true;
      continue;
    }
    if (Line.consume_front("events:")) {
      SmallVector<StringRef, 12> Names;
      Line.split(Names, ' ', -1, false);
      Map.clear();
      for (StringRef N : Names) {
        int Idx = -1;
        for (int E = 0; E < NumEvents; ++E)
          if (N == EventNames[E])
            Idx = E;
        Map.push_back(Idx);
      }
      continue;
    }
    if (Line.consume_front("summary:") || Line.consume_front("totals:")) {
      SmallVector<StringRef, 12> Vals;
      Line.split(Vals, ' ', -1, false);
      for (size_t I = 0; I < Vals.size() && I < Map.size(); ++I)
        if (Map[I] >= 0)
          Vals[I].getAsInteger(10, Out.Totals[Map[I]]);
      continue;
    }
    if (Line.consume_front("ob=")) {
      Object = Line.str();
      continue;
    }
    if (Line.consume_front("fn=")) {
      Function = Line.str();
      continue;
    }
    if (Line.starts_with("calls=")) {
      NextIsCallCost = true;
      continue;
    }
    if (!Line.starts_with("0x")) // fl=, cfn=, desc:, jump= ... not needed
      continue;
    if (Map.empty())
      return inputError(File, LineNo, "cost line before 'events:'");
    if (!SawPositionsInstr)
      return inputError(File, LineNo,
                        "no 'positions: instr' header: run callgrind with "
                        "--dump-instr=yes --dump-line=no");
    if (NextIsCallCost) { // inclusive cost of the call just described
      NextIsCallCost = false;
      continue;
    }
    SmallVector<StringRef, 12> Fields;
    Line.split(Fields, ' ', -1, false);
    uint64_t Addr = 0;
    if (Fields[0].drop_front(2).getAsInteger(16, Addr))
      return inputError(File, LineNo, "bad address '{0}'", Fields[0]);
    CostVector C{};
    for (size_t I = 1; I < Fields.size(); ++I) {
      uint64_t V = 0;
      if (Fields[I].getAsInteger(10, V))
        return inputError(File, LineNo, "bad cost '{0}'", Fields[I]);
      if (I - 1 < Map.size() && Map[I - 1] >= 0)
        C[Map[I - 1]] = V;
    }
    if (Object == "???") {
      Out.UnknownObjectIr += C[Ir];
      continue;
    }
    CostVector &Dst = Out.ByObject[Object][Addr];
    for (int E = 0; E < NumEvents; ++E)
      Dst[E] += C[E];
    Out.FunctionOf[Object].emplace(Addr, Function);
  }
  if (!SawPositionsInstr)
    return inputError(File, 0, "not a callgrind --dump-instr=yes output");
  return Out;
}

} // namespace roofline
} // namespace keel
