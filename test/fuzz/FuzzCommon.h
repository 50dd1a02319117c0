//===- FuzzCommon.h - shared helpers of Keel's libFuzzer targets -*- C++ -*-===//
//
// Every target feeds the bytes to one parser and consumes the result: a
// parser may reject input (an llvm::Error, consumed here) but must never
// crash, leak, or trip ASan/UBSan.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FUZZ_FUZZCOMMON_H
#define KEEL_FUZZ_FUZZCOMMON_H
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>

namespace keel_fuzz {
inline llvm::StringRef text(const uint8_t *Data, size_t Size) {
  return llvm::StringRef(reinterpret_cast<const char *>(Data), Size);
}
/// Consume an Expected, discarding value or error.
template <typename T> void consume(llvm::Expected<T> E) {
  if (!E)
    llvm::consumeError(E.takeError());
}
inline void consume(llvm::Error E) { llvm::consumeError(std::move(E)); }
} // namespace keel_fuzz
#endif
