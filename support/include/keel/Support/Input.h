//===- keel/Support/Input.h - opening input files, bounded -------*- C++ -*-===//
//
// The one way Keel opens a file it reads. A FIFO with no writer blocks an
// ordinary open, and /dev/zero or /dev/urandom never end, so a path must
// name a regular file (or "-", standard input, where the caller allows
// it); a file larger than its kind's cap is refused from its size before
// any byte is read; and the first bytes are sniffed first, so binary data
// given where text was expected is refused without reading the rest. The
// kinds and their caps are in docs/hardening.md ("Inputs").
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_INPUT_H
#define KEEL_SUPPORT_INPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace keel {

/// What a file holds, which decides how it is read and how large it may be.
enum class InputKind {
  /// JSON, YAML, CSV, order files and other text read whole: at most
  /// TextCap bytes, and text from the first byte (checked on the first
  /// 64 KiB before the rest is read).
  Text,
  /// Small files read whole whatever their bytes (recorded ring buffers,
  /// outputs of the commands Keel runs): at most TextCap bytes.
  Bytes,
  /// Profiles and traces (perf.data, perf script text, callgrind output,
  /// keel-samples, lackey logs): a regular file is mapped, not copied, up
  /// to MappedCap bytes; standard input is read into memory, at most
  /// StdinCap bytes, once its first 64 KiB pass as perf.data (its magic)
  /// or text. The reader sniffs the format of a file itself.
  Profile,
  /// An ELF binary: a regular file, mapped, up to MappedCap bytes; never
  /// standard input.
  Binary,
};

inline constexpr uint64_t TextCap = uint64_t(256) << 20;   ///< 256 MiB
inline constexpr uint64_t MappedCap = uint64_t(64) << 30;  ///< 64 GiB
inline constexpr uint64_t StdinCap = uint64_t(256) << 20;  ///< 256 MiB

/// Open \p Path for reading as \p Kind. "-" is standard input unless
/// \p Kind is Binary or \p AllowStdin is false. Errors are InputErrors
/// naming the file: missing, not a regular file (a FIFO, a device, a
/// directory, a socket), over the cap, or binary where text was expected.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef Path, InputKind Kind, bool AllowStdin = true);

/// The error for binary data at byte \p At of \p Text, a file that should
/// be text: "FILE:LINE:COL: binary data where text was expected (byte N:
/// '...')", the excerpt quoted (escaped) from the bad byte on.
llvm::Error binaryDataError(llvm::StringRef Path, llvm::StringRef Text,
                            size_t At);

/// Open \p Path for a reader that streams it itself: a regular file
/// (never waiting on a FIFO), as a descriptor the caller closes.
llvm::Expected<int> openInputFile(llvm::StringRef Path);

/// readInputFile(Path, InputKind::Text) as a string.
llvm::Expected<std::string> readTextFile(llvm::StringRef Path);

/// readTextFile(Path) parsed as JSON; "FILE: not valid JSON: ..." when it
/// does not parse.
llvm::Expected<llvm::json::Value> readJSONFile(llvm::StringRef Path);

} // namespace keel

#endif
