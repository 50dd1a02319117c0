//===- JSONInput.h - JSON input with file:line errors -----------*- C++ -*-===//
#ifndef KEEL_ROOFLINE_JSONINPUT_H
#define KEEL_ROOFLINE_JSONINPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace keel {
namespace roofline {

/// Parse JSON text; a syntax error becomes an InputError naming File:line.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text,
                                            llvm::StringRef File);

/// The 1-based line of the first occurrence of `"Key"` in Text (0 if absent),
/// so errors about a field can point at it.
unsigned lineOfKey(llvm::StringRef Text, llvm::StringRef Key);

} // namespace roofline
} // namespace keel

#endif
