//===- Input.cpp - regular files only, capped, sniffed first --------------===//
#include "keel/Support/Input.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace keel {

namespace {

/// Bytes looked at before the rest of a text file is read.
constexpr size_t SniffBytes = 64 * 1024;

const char *fileType(mode_t M) {
  if (S_ISFIFO(M))
    return "a FIFO";
  if (S_ISCHR(M))
    return "a character device";
  if (S_ISBLK(M))
    return "a block device";
  if (S_ISDIR(M))
    return "a directory";
  if (S_ISSOCK(M))
    return "a socket";
  return "not a regular file";
}

const char *kindName(InputKind K) {
  switch (K) {
  case InputKind::Text:
    return "text input";
  case InputKind::Bytes:
    return "small input";
  case InputKind::Profile:
    return "profile";
  case InputKind::Binary:
    return "binary";
  }
  return "input";
}

uint64_t capOf(InputKind K, bool Stdin) {
  if (K == InputKind::Text || K == InputKind::Bytes)
    return TextCap;
  return Stdin ? StdinCap : MappedCap;
}

std::string errnoMessage(int E) {
  return std::error_code(E, std::generic_category()).message();
}

Error tooLarge(StringRef Path, uint64_t Size, uint64_t Cap, InputKind K) {
  return inputError(Path, 0,
                    "cannot read: {0} bytes, more than the {1} MiB a {2} may "
                    "have",
                    Size, Cap >> 20, kindName(K));
}

/// Text from its first byte, or the error that names where it stops;
/// \p More: the file goes on after \p Head (a UTF-8 sequence cut at its
/// end is no evidence of binary data).
Error sniffText(StringRef Path, StringRef Head, bool More) {
  size_t Limit = More && Head.size() > 8 ? Head.size() - 8 : Head.size();
  if (std::optional<size_t> At = firstBinaryByte(Head, Limit))
    return binaryDataError(Path, Head, *At);
  return Error::success();
}

/// What the first bytes of standard input must be: text for Text; perf.data
/// (its magic, file or pipe mode) or text for Profile.
Error sniffStream(InputKind Kind, StringRef Head, bool More) {
  if (Kind == InputKind::Profile && Head.starts_with("PERFILE2"))
    return Error::success();
  return sniffText("-", Head, More);
}

/// Standard input, read to its end but never past \p Cap bytes; a stream
/// of binary data where text (or perf.data) was expected is refused from
/// its first 64 KiB (`layout-profile show - < /dev/zero` must not read
/// 256 MiB first).
Expected<std::unique_ptr<MemoryBuffer>> readStdin(InputKind Kind,
                                                  uint64_t Cap) {
  SmallString<0> Data;
  bool Sniffed = Kind != InputKind::Text && Kind != InputKind::Profile;
  char Chunk[65536];
  for (;;) {
    ssize_t N = ::read(0, Chunk, sizeof Chunk);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return inputError("-", 0, "cannot read: {0}", errnoMessage(errno));
    if (N == 0)
      break;
    Data.append(Chunk, Chunk + N);
    if (Data.size() > Cap)
      return tooLarge("-", Data.size(), Cap, Kind);
    if (!Sniffed && Data.size() >= SniffBytes) {
      if (Error E = sniffStream(Kind, Data, /*More=*/true))
        return std::move(E);
      Sniffed = true;
    }
  }
  if (!Sniffed)
    if (Error E = sniffStream(Kind, Data, /*More=*/false))
      return std::move(E);
  return MemoryBuffer::getMemBufferCopy(Data, "-");
}

} // namespace

Error binaryDataError(StringRef Path, StringRef Text, size_t At) {
  StringRef Before = Text.take_front(At);
  unsigned Line = 1 + Before.count('\n');
  size_t NL = Before.rfind('\n');
  size_t LineStart = NL == StringRef::npos ? 0 : NL + 1;
  unsigned Col = unsigned(At - LineStart) + 1;
  return make_error<InputError>(
      Path.str(), Line,
      formatv("binary data where text was expected (byte {0}: '{1}')", At,
              quoteInput(Text.substr(At, 16), 40))
          .str(),
      Col);
}

Expected<int> openInputFile(StringRef Path) {
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one.
  SmallString<256> P(Path);
  int FD = ::open(P.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (FD < 0)
    return inputError(Path, 0, "cannot read: {0}", errnoMessage(errno));
  struct stat St;
  if (::fstat(FD, &St) != 0) {
    int E = errno;
    ::close(FD);
    return inputError(Path, 0, "cannot read: {0}", errnoMessage(E));
  }
  if (!S_ISREG(St.st_mode)) {
    ::close(FD);
    return inputError(Path, 0, "cannot read: {0}, not a regular file",
                      fileType(St.st_mode));
  }
  if (int Flags = ::fcntl(FD, F_GETFL); Flags >= 0)
    ::fcntl(FD, F_SETFL, Flags & ~O_NONBLOCK);
  return FD;
}

Expected<std::unique_ptr<MemoryBuffer>>
readInputFile(StringRef Path, InputKind Kind, bool AllowStdin) {
  if (Path == "-") {
    if (Kind == InputKind::Binary || !AllowStdin)
      return inputError(Path, 0,
                        "standard input cannot be read here: name a file");
    return readStdin(Kind, capOf(Kind, /*Stdin=*/true));
  }
  Expected<int> Opened = openInputFile(Path);
  if (!Opened)
    return Opened.takeError();
  int FD = *Opened;
  auto Close = make_scope_exit([&] { ::close(FD); });
  struct stat St;
  if (::fstat(FD, &St) != 0)
    return inputError(Path, 0, "cannot read: {0}", errnoMessage(errno));
  uint64_t Cap = capOf(Kind, /*Stdin=*/false);
  uint64_t Size = uint64_t(St.st_size);
  if (Size > Cap)
    return tooLarge(Path, Size, Cap, Kind);
  if (Kind == InputKind::Text) {
    char Head[SniffBytes];
    ssize_t N = ::pread(FD, Head, sizeof Head, 0);
    if (N < 0)
      return inputError(Path, 0, "cannot read: {0}", errnoMessage(errno));
    if (Error E = sniffText(Path, StringRef(Head, size_t(N)),
                            /*More=*/uint64_t(N) < Size))
      return std::move(E);
  }
  auto MB = MemoryBuffer::getOpenFile(FD, Path, Size,
                                      /*RequiresNullTerminator=*/false);
  if (!MB)
    return inputError(Path, 0, "cannot read: {0}", MB.getError().message());
  return std::move(*MB);
}

Expected<std::string> readTextFile(StringRef Path) {
  auto MB = readInputFile(Path, InputKind::Text);
  if (!MB)
    return MB.takeError();
  return (*MB)->getBuffer().str();
}

Expected<json::Value> readJSONFile(StringRef Path) {
  Expected<std::string> Text = readTextFile(Path);
  if (!Text)
    return Text.takeError();
  Expected<json::Value> V = json::parse(*Text);
  if (!V)
    return inputError(Path, 0, "not valid JSON: {0}", toString(V.takeError()));
  return V;
}

} // namespace keel
