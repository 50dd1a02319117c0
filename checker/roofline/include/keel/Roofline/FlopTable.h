//===- FlopTable.h - floating-point work of x86 instructions ----*- C++ -*-===//
//
// Cachegrind/callgrind count instructions, not flops. We weight each executed
// instruction by the flops its opcode does, classified by the LLVM MC opcode
// name (MCInstrInfo::getName):
//
//   operation                      flops per lane
//   ADD SUB MUL DIV SQRT ADDSUB    1
//   FMADD FMSUB FNMADD FNMSUB      2   (132/213/231 forms, FMA4 forms)
//   FMADDSUB FMSUBADD              2
//   element type   lanes in xmm / ymm (Y, Z256) / zmm (Z)
//   SD SS SH       1 (scalar)
//   PD             2 / 4 / 8
//   PS             4 / 8 / 16
//   PH             8 / 16 / 32
//
// A leading V (VEX/EVEX) is ignored. Everything else (moves, compares,
// min/max, conversions, integer SIMD, x87) counts 0.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_FLOPTABLE_H
#define KEEL_ROOFLINE_FLOPTABLE_H

#include "llvm/ADT/StringRef.h"

namespace keel {
namespace roofline {

struct FlopInfo {
  unsigned Flops = 0;      ///< per execution
  unsigned Lanes = 0;      ///< vector lanes (1 for scalar), 0 if not FP
  unsigned VectorBits = 0; ///< 128/256/512 (scalar ops: 128)
  bool IsFMA = false;
};

FlopInfo classifyOpcodeName(llvm::StringRef Name);

/// Bytes a memory operand of this instruction most likely moves: the vector
/// width for packed opcodes (Y: 32, Z: 64, else 16), the element size for
/// scalar FP (SD 8, SS 4), else 8. Used for L1 traffic from reference counts.
unsigned memoryWidthGuess(llvm::StringRef Name);

} // namespace roofline
} // namespace keel

#endif
