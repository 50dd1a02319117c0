//===- OutputFile.cpp - atomic outputs and private temporaries ------------===//
#include "keel/Support/OutputFile.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/SmallString.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace keel {

Error writeOutput(StringRef Path, function_ref<Error(raw_ostream &)> Write) {
  // Render into memory first: llvm::writeToOutput discards its temporary
  // when the callback fails but then flushes into the closed descriptor
  // (fatal "IO failure"), so the callback there must not fail. The copy
  // goes to "<Path>.temp-stream-XXXXXX" and is renamed into place.
  SmallString<0> Buffer;
  raw_svector_ostream BufOS(Buffer);
  if (Error E = Write(BufOS))
    return E;
  Error E = llvm::writeToOutput(Path, [&](raw_ostream &OS) {
    OS << Buffer;
    return Error::success();
  });
  if (!E)
    return Error::success();
  // Keep our own error kinds (InputError, ...) and name the file otherwise.
  return handleErrors(std::move(E), [&](std::unique_ptr<ECError> EC) -> Error {
    return inputError(Path, 0, "cannot write: {0}", EC->message());
  });
}

Error writeOutputIfNamed(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  if (Path.empty())
    return Error::success();
  return writeOutput(Path, [&](raw_ostream &OS) {
    Write(OS);
    return Error::success();
  });
}

Expected<std::string> makePrivateTempDir(StringRef Prefix) {
  // mkdtemp creates the directory 0700 in one step (createUniqueDirectory
  // creates it with the umask's permissions first, leaving a window in which
  // another user could open it).
  SmallString<256> Dir;
  if (sys::path::is_absolute(Prefix)) {
    Dir = Prefix;
  } else {
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
    sys::path::append(Dir, Prefix);
  }
  Dir += "-XXXXXX";
  std::string Template(Dir.str());
  if (!::mkdtemp(Template.data()))
    return makeError("cannot create a temporary directory {0}: {1}", Dir,
                     std::strerror(errno));
  return Template;
}

Error checkOutputPath(StringRef Path) {
  if (Path == "-" || Path.empty())
    return Error::success();
  if (sys::fs::is_directory(Path))
    return inputError(Path, 0, "cannot write: is a directory");
  StringRef Parent = sys::path::parent_path(Path);
  if (Parent.empty())
    Parent = ".";
  if (!sys::fs::exists(Parent))
    return inputError(Path, 0, "cannot write: directory '{0}' does not exist",
                      Parent);
  if (!sys::fs::is_directory(Parent))
    return inputError(Path, 0, "cannot write: '{0}' is not a directory",
                      Parent);
  if (sys::fs::access(Parent, sys::fs::AccessMode::Write))
    return inputError(Path, 0, "cannot write: directory '{0}' is not writable",
                      Parent);
  return Error::success();
}

Error prepareOutputDir(StringRef Dir) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return inputError(Dir, 0, "cannot create output directory: {0}",
                      EC.message());
  if (sys::fs::access(Dir, sys::fs::AccessMode::Write))
    return inputError(Dir, 0, "output directory is not writable");
  return Error::success();
}

Expected<std::string> readWholeFile(StringRef Path) {
  auto MB = readInputFile(Path, InputKind::Bytes);
  if (!MB)
    return MB.takeError();
  return (*MB)->getBuffer().str();
}

} // namespace keel
