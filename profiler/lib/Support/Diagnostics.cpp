//===- Diagnostics.cpp - errors that name file:line -----------------------===//
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace keel {

char InputError::ID = 0;
char UnavailableError::ID = 0;

void InputError::log(raw_ostream &OS) const {
  OS << File;
  if (Line)
    OS << ':' << Line;
  OS << ": " << Msg;
}

std::error_code InputError::convertToErrorCode() const {
  return std::make_error_code(std::errc::invalid_argument);
}

std::error_code UnavailableError::convertToErrorCode() const {
  return std::make_error_code(std::errc::function_not_supported);
}

uint64_t QualityReport::get(StringRef What) const {
  auto It = Counts.find(What.str());
  return It == Counts.end() ? 0 : It->second;
}

void QualityReport::print(raw_ostream &OS, StringRef Tool, uint64_t Total,
                          StringRef ItemName) const {
  for (const auto &[What, N] : Counts) {
    double Pct = Total ? 100.0 * double(N) / double(Total) : 0.0;
    WithColor::warning(OS, Tool)
        << N << " of " << Total << ' ' << ItemName << " ("
        << format("%.2f", Pct) << "%) " << What << '\n';
  }
}

int reportError(StringRef Tool, Error E) {
  int Code = ExitBadInput;
  handleAllErrors(
      std::move(E),
      [&](const UnavailableError &U) {
        Code = ExitUnavailable;
        WithColor::error(errs(), Tool) << U.message() << '\n';
      },
      [&](const ErrorInfoBase &EI) {
        WithColor::error(errs(), Tool) << EI.message() << '\n';
      });
  return Code;
}

} // namespace keel
