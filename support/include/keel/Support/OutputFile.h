//===- keel/Support/OutputFile.h - nothing half-written on failure -*- C++ -*-===//
//
// Every output goes to a temporary name beside the target and is renamed into
// place only when complete, so a failure never leaves a half-written file.
// Temporary files and directories are created privately (0600 / 0700).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_OUTPUTFILE_H
#define KEEL_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace keel {

/// Write \p Path atomically ("-" is stdout). \p Write fills the stream; if it
/// fails, or writing fails, the target is left untouched.
llvm::Error writeOutput(llvm::StringRef Path,
                        llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Write);

/// writeOutput for an output the user may not have asked for: nothing when
/// \p Path is empty; \p Write cannot fail.
llvm::Error writeOutputIfNamed(llvm::StringRef Path,
                               llvm::function_ref<void(llvm::raw_ostream &)> Write);

/// Create a private (0700) temporary directory "<TMPDIR>/<Prefix>-XXXXXX".
llvm::Expected<std::string> makePrivateTempDir(llvm::StringRef Prefix);

/// Create \p Dir as an output directory; an error names it if it cannot be
/// created or is not writable.
llvm::Error prepareOutputDir(llvm::StringRef Dir);

/// Check, before any work or any output, that \p Path ("-" is stdout) can
/// be written: its directory exists and is a writable directory, and \p Path
/// itself is not a directory. Tools with several outputs check them all
/// first, so a bad one never leaves the others written.
llvm::Error checkOutputPath(llvm::StringRef Path);

/// Read a whole file of any bytes, at most keel::TextCap of them
/// (readInputFile with InputKind::Bytes, keel/Support/Input.h); the error
/// names the file.
llvm::Expected<std::string> readWholeFile(llvm::StringRef Path);

} // namespace keel

#endif
