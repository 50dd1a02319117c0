//===- TestErrors.h - llvm::Error checks without LLVMTestingSupport -------===//
#ifndef KEEL_TEST_TESTERRORS_H
#define KEEL_TEST_TESTERRORS_H

#include "llvm/Support/Error.h"

#include <string>

namespace keel::test {

/// The message of \p E, "" on success (consumes the error).
inline std::string errText(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}
template <typename T> std::string errText(llvm::Expected<T> &X) {
  return X ? std::string() : llvm::toString(X.takeError());
}
template <typename T> std::string errText(llvm::Expected<T> &&X) {
  return errText(X);
}

} // namespace keel::test

#endif
