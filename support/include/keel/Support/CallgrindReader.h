//===- keel/Support/CallgrindReader.h - callgrind-format lines --*- C++ -*-===//
//
// The one reader of the text format that valgrind's callgrind and cachegrind
// write (valgrind's "Callgrind Format Specification", docs/cl-format.xml).
// It knows the line grammar, not what a tool makes of the costs:
//
//   # comment                       Comment (blank lines: Blank)
//   key: value                      Header: version, creator, cmd, desc,
//                                     positions, events, summary, totals,
//                                     part, thread, ...
//   key=value                       Spec: ob= fl= fi= fe= fn= cob= cfi= cfl=
//                                     cfn= calls= jump= jcnd= jfi= jfn=
//   0x401140 3 1   +2 * 1   12 5    Cost: positions, then one count per
//                                     event (trailing zeros left out)
//
// A line is a Spec when its first '=' comes before any ':'. Name
// compression ("(id) name" defines an id, a later "(id)" reuses it) is
// CallgrindNames; position compression ("+N"/"-N" relative to the previous
// cost line, "*" the same) is readCallgrindPositions. Errors are
// InputErrors naming file:line. The profile reader (keel/Profile/Formats.h),
// the roofline's cost reader and the sweep's cachegrind readers are built
// on it; each keeps its own rules for what it accepts.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_CALLGRINDREADER_H
#define KEEL_SUPPORT_CALLGRINDREADER_H

#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace keel {

/// What one line of a callgrind-format file is.
struct CallgrindLine {
  enum KindT { Blank, Comment, Cost, Spec, Header, Other };
  KindT Kind = Blank;
  llvm::StringRef Key;   ///< Spec, Header: the text before '=' / ':', as is
  llvm::StringRef Value; ///< Spec, Header: the text after it, as is
};

/// Classify \p Line as given (the caller decides what to trim first): Blank
/// (white space only), Comment ('#' first), Cost (a digit, '+', '-' or '*'
/// first), Spec ("key=value", '=' before any ':'), Header ("key: value"),
/// Other.
CallgrindLine classifyCallgrindLine(llvm::StringRef Line);

/// The lines of a callgrind-format text, numbered from 1 for errors.
class CallgrindReader {
public:
  CallgrindReader(llvm::StringRef Text, llvm::StringRef File)
      : Rest(Text), File(File) {}
  /// Move to the next line (without its '\n'); false after the last. A text
  /// that ends in '\n' has an empty last line, as StringRef::split gives.
  bool next();
  llvm::StringRef line() const { return Line; }
  unsigned lineNo() const { return LineNo; }
  llvm::StringRef file() const { return File; }
  /// The next line after this one that is not blank, trimmed ("" if none).
  llvm::StringRef peekNonBlank() const;

  /// An InputError at the current line: "file:line: message".
  template <typename... Ts>
  llvm::Error error(const char *Fmt, Ts &&...Vals) const {
    return inputError(File, LineNo, Fmt, std::forward<Ts>(Vals)...);
  }
  /// An InputError at line \p At (0: the whole file).
  template <typename... Ts>
  llvm::Error errorAt(unsigned At, const char *Fmt, Ts &&...Vals) const {
    return inputError(File, At, Fmt, std::forward<Ts>(Vals)...);
  }

private:
  llvm::StringRef Rest, Line, File;
  unsigned LineNo = 0;
  bool Done = false;
};

/// The fields of a line or of a header's value: split at ' ', empty fields
/// dropped ("events: Ir Dr" -> "Ir", "Dr").
llvm::SmallVector<llvm::StringRef, 16> splitCallgrindFields(llvm::StringRef S);

/// A number as callgrind writes one: "0x..." (hex) or decimal.
std::optional<uint64_t> parseCallgrindNumber(llvm::StringRef Tok);

/// Read Last.size() position fields of a cost, calls= or jump= line from
/// \p Fields starting at \p I (advanced past them) into \p Out: absolute
/// numbers (parseCallgrindNumber), "+N"/"-N" relative to \p Last, "*" the
/// same as \p Last. Errors: "expected N position field(s)", "bad relative
/// position 'T'", "bad number 'T'".
llvm::Error readCallgrindPositions(const CallgrindReader &R,
                                   llvm::ArrayRef<llvm::StringRef> Fields,
                                   size_t &I, llvm::ArrayRef<uint64_t> Last,
                                   llvm::SmallVectorImpl<uint64_t> &Out);

/// Read the event counts \p Fields[I...] (decimal) into \p Out. Error:
/// "bad cost 'T'".
llvm::Error readCallgrindCosts(const CallgrindReader &R,
                               llvm::ArrayRef<llvm::StringRef> Fields,
                               size_t I, llvm::SmallVectorImpl<uint64_t> &Out);

/// One id space of name compression (objects, files and functions each have
/// their own).
class CallgrindNames {
public:
  /// Resolve the value of ob=, fn=, ...: "(id) name" defines id and gives
  /// name, "(id)" gives the name defined before; anything else, "(below
  /// main)" included, is a plain name. Errors: "bad compressed name 'V'",
  /// "name id (N) is used before it is defined".
  llvm::Error resolve(const CallgrindReader &R, llvm::StringRef Value,
                      std::string &Out);

private:
  std::map<uint64_t, std::string> Ids;
};

} // namespace keel

#endif
