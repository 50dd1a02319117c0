//===- keel/Sweep/Journal.h - finished measurements survive a kill -*- C++ -*-===//
//
// A journal is a text file of JSON lines. The first line identifies the sweep
// ({"keel_sweep_journal":1,"fingerprint":"..."}); every following line is one
// finished Measurement, appended and fsync'ed as soon as it finishes, so a
// sweep killed at any moment (kill -9, a lost node) keeps every measurement
// it completed, and `--resume` measures only what is missing.
//
// A last line without its newline is what a kill during a write leaves; it
// is dropped (and reported). Any other bad line is bad input (file:line).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_JOURNAL_H
#define KEEL_SWEEP_JOURNAL_H

#include "keel/SweepReport/Result.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

struct JournalContents {
  std::string Fingerprint;
  std::vector<Measurement> Ms; ///< file order; a later line for the same
                               ///< variant replaces an earlier one
  bool DroppedPartialLine = false;
};

/// Parse a journal's text (\p Name is used in errors).
llvm::Expected<JournalContents> parseJournal(llvm::StringRef Text,
                                             llvm::StringRef Name);

class Journal {
public:
  /// Open \p Path for a sweep identified by \p Fingerprint.
  ///  - Resume: an existing journal must carry the same fingerprint; its
  ///    measurements are returned in \p Done. A missing file starts fresh.
  ///  - !Resume: an existing journal is an error (it may hold a killed
  ///    sweep's results), unless \p Overwrite.
  static llvm::Expected<std::unique_ptr<Journal>>
  open(llvm::StringRef Path, llvm::StringRef Fingerprint, bool Resume,
       bool Overwrite, std::vector<Measurement> &Done);

  ~Journal();
  /// Append one line and fsync it. Thread-safe.
  llvm::Error append(const Measurement &M);
  const std::string &path() const { return Path; }

private:
  Journal(std::string Path, int FD) : Path(std::move(Path)), FD(FD) {}
  llvm::Error writeLine(llvm::StringRef Line);

  std::string Path;
  int FD;
  std::mutex Lock;
};

} // namespace sweep
} // namespace keel

#endif
