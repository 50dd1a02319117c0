//===- keel/Blocks/AutoFDO.h - export a sample profile for -fprofile-sample-use -*- C++ -*-===//
//
// The other route to block layout: turn the same branch profile into an
// AutoFDO sample profile (LLVM's text format, readable by
// `llvm-profdata show --sample`) keyed by source lines from the binary's
// debug info, and let clang re-optimise with `-fprofile-sample-use=`.
//
// Text format written (one function after another):
//   name:TOTAL:HEAD
//    LINEOFF[.DISCR]: COUNT [callee:COUNT ...]
//    LINEOFF[.DISCR]: inlined_callee:TOTAL      (nested body, one more space)
// LINEOFF = line - first line of the function (DW_AT_decl_line), COUNT =
// the largest execution count of the instructions on that line (as
// llvm-profgen does), HEAD = calls into the function.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_BLOCKS_AUTOFDO_H
#define KEEL_BLOCKS_AUTOFDO_H

#include "keel/Profile/BranchProfile.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace keel {

class Binary;

/// Write \p AP as an AutoFDO text sample profile for \p Bin (which must have
/// DWARF line tables). Addresses without line info are counted in \p Quality.
llvm::Error writeAutoFDOProfile(const Binary &Bin, const AddressProfile &AP,
                                llvm::raw_ostream &OS, QualityReport &Quality);

} // namespace keel

#endif
