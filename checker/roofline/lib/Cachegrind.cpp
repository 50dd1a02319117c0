//===- Cachegrind.cpp - parse callgrind's per-instruction costs -----------===//
//
// On the shared callgrind reader (keel/Support/CallgrindReader.h): "ob=",
// "fn=" set the current object and function, taken as written (callgrind
// runs with --compress-strings=no); "cob=", "cfn=", "calls=N target"
// describe a call, and the cost line right after "calls=" is the call's
// inclusive cost, which must not be added to the caller's self cost. A cost line is "<addr> <events...>",
// trailing zero events omitted.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Cachegrind.h"
#include "keel/Support/CallgrindReader.h"

#include "llvm/ADT/SmallVector.h"

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
  bool SawPositionsInstr = false;
  CallgrindReader R(Text, File);
  while (R.next()) {
    StringRef Line = R.line().rtrim();
    CallgrindLine L = classifyCallgrindLine(Line);
    if (L.Kind == CallgrindLine::Header) {
      if (L.Key == "positions") {
        if (L.Value.trim() != "instr")
          return R.error("positions must be 'instr' (run callgrind with "
                         "--dump-instr=yes --dump-line=no)");
        SawPositionsInstr = true;
      } else if (L.Key == "events") {
        Map.clear();
        for (StringRef N : splitCallgrindFields(L.Value)) {
          int Idx = -1;
          for (int E = 0; E < NumEvents; ++E)
            if (N == EventNames[E])
              Idx = E;
          Map.push_back(Idx);
        }
      } else if (L.Key == "summary" || L.Key == "totals") {
        SmallVector<StringRef, 16> Vals = splitCallgrindFields(L.Value);
        for (size_t I = 0; I < Vals.size() && I < Map.size(); ++I)
          if (Map[I] >= 0)
            Vals[I].getAsInteger(10, Out.Totals[Map[I]]);
      }
      continue;
    }
    if (L.Kind == CallgrindLine::Spec) {
      if (L.Key == "ob")
        Object = L.Value.str();
      else if (L.Key == "fn")
        Function = L.Value.str();
      else if (L.Key == "calls")
        NextIsCallCost = true;
      continue; // fl=, cfn=, jump= ... not needed
    }
    if (L.Kind != CallgrindLine::Cost || !Line.starts_with("0x"))
      continue;
    if (Map.empty())
      return R.error("cost line before 'events:'");
    if (!SawPositionsInstr)
      return R.error("no 'positions: instr' header: run callgrind with "
                     "--dump-instr=yes --dump-line=no");
    if (NextIsCallCost) { // inclusive cost of the call just described
      NextIsCallCost = false;
      continue;
    }
    SmallVector<StringRef, 16> Fields = splitCallgrindFields(Line);
    std::optional<uint64_t> Addr = parseCallgrindNumber(Fields[0]);
    if (!Addr)
      return R.error("bad address '{0}'", Fields[0]);
    SmallVector<uint64_t, NumEvents> Counts;
    if (Error E = readCallgrindCosts(R, Fields, 1, Counts))
      return std::move(E);
    CostVector C{};
    for (size_t I = 0; I < Counts.size() && I < Map.size(); ++I)
      if (Map[I] >= 0)
        C[Map[I]] = Counts[I];
    if (Object == "???") {
      Out.UnknownObjectIr += C[Ir];
      continue;
    }
    CostVector &Dst = Out.ByObject[Object][*Addr];
    for (int E = 0; E < NumEvents; ++E)
      Dst[E] += C[E];
    Out.FunctionOf[Object].emplace(*Addr, Function);
  }
  if (!SawPositionsInstr)
    return R.errorAt(0, "not a callgrind --dump-instr=yes output");
  return Out;
}

} // namespace roofline
} // namespace keel
