//===- Cachegrind.h - per-instruction cache-simulation costs ----*- C++ -*-===//
//
// Reads the output of
//   valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes --dump-line=no
//            --compress-pos=no --compress-strings=no --I1=.. --D1=.. --LL=..
// Cachegrind's own output is per source line; callgrind runs the same cache
// simulator and can dump costs per instruction address, which is what the
// flop count needs. Addresses are link-time addresses of each object.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_CACHEGRIND_H
#define KEEL_ROOFLINE_CACHEGRIND_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

/// Event order of a callgrind cache simulation.
enum CacheEvent { Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw, NumEvents };
using CostVector = std::array<uint64_t, NumEvents>;

struct InstructionCosts {
  /// object path -> instruction address -> self cost
  std::map<std::string, std::map<uint64_t, CostVector>> ByObject;
  /// object path -> function name, for --function filtering
  std::map<std::string, std::map<uint64_t, std::string>> FunctionOf;
  CostVector Totals{};     ///< the "summary:" line
  uint64_t UnknownObjectIr = 0; ///< cost lines under ob=??? (e.g. PLT stubs)
};

/// Parse callgrind text; File names the input in errors (file:line).
llvm::Expected<InstructionCosts> parseCallgrind(llvm::StringRef Text,
                                                llvm::StringRef File);

} // namespace roofline
} // namespace keel

#endif
