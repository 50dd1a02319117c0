//===- FlopTable.cpp - floating-point work of x86 instructions ------------===//
#include "keel/Roofline/FlopTable.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace keel {
namespace roofline {

namespace {

struct Op {
  const char *Prefix;
  unsigned FlopsPerLane;
  bool FMA;
};
// Longest prefixes first: ADDSUB before ADD, FMADDSUB before FMADD.
const Op Ops[] = {{"FMADDSUB", 2, true}, {"FMSUBADD", 2, true},
                  {"FNMADD", 2, true},   {"FNMSUB", 2, true},
                  {"FMADD", 2, true},    {"FMSUB", 2, true},
                  {"ADDSUB", 1, false},  {"ADD", 1, false},
                  {"SUB", 1, false},     {"MUL", 1, false},
                  {"DIV", 1, false},     {"SQRT", 1, false}};

struct TypeInfo {
  const char *Name;
  unsigned Lanes128; ///< lanes in 128 bits (scalar: 0)
  unsigned ElemBytes;
};
const TypeInfo Types[] = {{"SD", 0, 8}, {"SS", 0, 4}, {"SH", 0, 2},
                          {"PD", 2, 8}, {"PS", 4, 4}, {"PH", 8, 2}};

unsigned widthBits(StringRef Rest) {
  if (Rest.starts_with("Z128"))
    return 128;
  if (Rest.starts_with("Z256") || Rest.starts_with("Y"))
    return 256;
  if (Rest.starts_with("Z"))
    return 512;
  return 128;
}

} // namespace

FlopInfo classifyOpcodeName(StringRef Name) {
  FlopInfo FI;
  StringRef S = Name;
  S.consume_front("V");
  for (const Op &O : Ops) {
    if (!S.starts_with(O.Prefix))
      continue;
    StringRef Rest = S.drop_front(strlen(O.Prefix));
    // FMA3 operand orders.
    if (O.FMA)
      Rest = Rest.drop_while([](char C) { return isDigit(C); });
    for (const TypeInfo &T : Types) {
      if (!Rest.starts_with(T.Name))
        continue;
      StringRef Tail = Rest.drop_front(2);
      // Reject longer mnemonics that merely share the prefix (none known,
      // but an opcode tail always starts with a width or an operand kind).
      if (!Tail.empty() && !StringRef("YZrmk4").contains(Tail.front()))
        return FI;
      Tail.consume_front("4"); // FMA4: VFMADDPD4Yrr
      FI.VectorBits = widthBits(Tail);
      FI.Lanes = T.Lanes128 ? T.Lanes128 * (FI.VectorBits / 128) : 1;
      FI.Flops = FI.Lanes * O.FlopsPerLane;
      FI.IsFMA = O.FMA;
      return FI;
    }
    return FI; // e.g. SUB32rr, MULX64rr: integer
  }
  return FI;
}

unsigned memoryWidthGuess(StringRef Name) {
  StringRef S = Name;
  S.consume_front("V");
  // Packed moves and arithmetic: the width suffix sits after the type.
  for (StringRef T : {"PD", "PS", "DQA", "DQU", "DQA64", "DQU64", "DQA32",
                      "DQU32", "DQU8", "DQU16"}) {
    size_t P = S.find(T);
    if (P == StringRef::npos)
      continue;
    StringRef Tail = S.drop_front(P + T.size());
    return widthBits(Tail) / 8;
  }
  if (S.contains("SD") || S.contains("SDrm"))
    return 8;
  if (S.contains("SS"))
    return 4;
  return 8;
}

} // namespace roofline
} // namespace keel
