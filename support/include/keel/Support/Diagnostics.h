//===- keel/Support/Diagnostics.h - errors that name file:line ----*- C++ -*-===//
//
// Keel's error policy (see docs/conventions.md): library code returns
// llvm::Error / llvm::Expected; only a tool's main decides to exit.
//  - Bad input is an InputError carrying "file:line: message" so every tool
//    reports it the same way and exits 2.
//  - A missing machine capability (no PMU, no valgrind) is an
//    UnavailableError; tools exit 3.
//  - Data-quality problems that do not stop the work (unmapped addresses,
//    stale symbols) are counted in a QualityReport and summarised once.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_DIAGNOSTICS_H
#define KEEL_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>

namespace keel {

/// Exit codes shared by every tool.
enum ExitCode : int {
  ExitOK = 0,
  ExitCheckFailed = 1, ///< a gate or check failed
  ExitBadInput = 2,    ///< bad usage or bad input
  ExitUnavailable = 3, ///< the machine lacks what was asked for
};

/// Bad input: a message that names the file and (when known) the line.
class InputError : public llvm::ErrorInfo<InputError> {
public:
  static char ID;
  InputError(std::string File, unsigned Line, std::string Msg,
             unsigned Column = 0)
      : File(std::move(File)), Line(Line), Column(Column), Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &file() const { return File; }
  unsigned line() const { return Line; }
  unsigned column() const { return Column; }
  const std::string &detail() const { return Msg; }

private:
  std::string File;
  unsigned Line;   ///< 0 when the whole file is at fault
  unsigned Column; ///< 1-based byte in the line; 0 when not known
  std::string Msg;
};

/// The machine cannot do what was asked (no PMU, no branch stacks, no
/// valgrind, perf_event_paranoid too strict). Tools exit 3.
class UnavailableError : public llvm::ErrorInfo<UnavailableError> {
public:
  static char ID;
  explicit UnavailableError(std::string Msg) : Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override;

private:
  std::string Msg;
};

/// The work was stopped by a signal (StopOnSignals, Process.h): SIGINT or
/// SIGTERM. Tools exit 128 + the signal, as a shell reports a command the
/// signal killed (130, 143).
class InterruptedError : public llvm::ErrorInfo<InterruptedError> {
public:
  static char ID;
  InterruptedError(int Signal, std::string Msg)
      : Signal(Signal), Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override;
  int signal() const { return Signal; }

private:
  int Signal;
  std::string Msg;
};

/// Make an InputError: inputError("a.fdata", 12, "bad hex '{0}'", Tok).
template <typename... Ts>
llvm::Error inputError(llvm::StringRef File, unsigned Line, const char *Fmt,
                       Ts &&...Vals) {
  return llvm::make_error<InputError>(
      File.str(), Line, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// Bad usage: options that cannot be combined, a missing command, a value
/// out of range. No file or line to name (never a "<command line>:"
/// pseudo-location); the tool exits 2 like any bad input.
template <typename... Ts>
llvm::Error usageError(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// A plain error with a formatted message (for failures that are neither bad
/// input nor a missing capability, e.g. a child process that crashed).
template <typename... Ts>
llvm::Error makeError(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// Counts of data-quality problems, summarised once instead of per line:
/// "warning: 12 of 3400 branch records (0.35%) are outside the binary".
class QualityReport {
public:
  void count(llvm::StringRef What, uint64_t N = 1) { Counts[What.str()] += N; }
  /// Count \p N of \p What as a share of its own total, \p Total \p Items
  /// (a reader that counts problems of samples and of branch entries says
  /// which is which); print()'s total is for the kinds counted without one.
  void countOf(llvm::StringRef What, uint64_t N, uint64_t Total,
               llvm::StringRef Items);
  uint64_t get(llvm::StringRef What) const;
  bool empty() const { return Counts.empty(); }
  /// Print one line per problem kind as a share of \p Total items (or of
  /// the kind's own total). A count with no total to be a share of (0, or
  /// less than the count) is printed without one, never as "N of 0".
  void print(llvm::raw_ostream &OS, llvm::StringRef Tool, uint64_t Total,
             llvm::StringRef ItemName) const;
  const std::map<std::string, uint64_t> &counts() const { return Counts; }
  /// "N of T items (P%) What" for a kind counted with its own total (see
  /// countOf; also when T is 0 or less than N: "N items What"), else
  /// "N What".
  std::string describe(llvm::StringRef What) const;

private:
  std::map<std::string, uint64_t> Counts;
  /// The kinds counted with their own total: the total and the items.
  std::map<std::string, std::pair<uint64_t, std::string>> Totals;
};

/// Print \p E as "<tool>: error: ..." and return the exit code it maps to:
/// InputError -> 2, UnavailableError -> 3, InterruptedError -> 128 + its
/// signal, anything else -> 2.
int reportError(llvm::StringRef Tool, llvm::Error E);

} // namespace keel

#endif
