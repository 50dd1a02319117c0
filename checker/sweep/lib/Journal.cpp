//===- Journal.cpp - append-only JSON-lines journal of measurements -------===//
#include "keel/Sweep/Journal.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace keel {
namespace sweep {

static constexpr int JournalVersion = 1;

Expected<JournalContents> parseJournal(StringRef Text, StringRef Name) {
  JournalContents C;
  // A kill in the middle of a write leaves a last line without '\n'.
  if (!Text.empty() && !Text.ends_with("\n")) {
    size_t Cut = Text.rfind('\n');
    Text = Cut == StringRef::npos ? StringRef() : Text.take_front(Cut + 1);
    C.DroppedPartialLine = true;
  }
  unsigned LineNo = 0;
  bool SawHeader = false;
  for (StringRef Line : split(Text, '\n')) {
    ++LineNo;
    if (Line.trim().empty())
      continue;
    Expected<json::Value> V = json::parse(Line);
    if (!V)
      return inputError(Name, LineNo, "not JSON: {0}", toString(V.takeError()));
    if (!SawHeader) {
      SawHeader = true;
      const json::Object *O = V->getAsObject();
      std::optional<int64_t> Ver = O ? O->getInteger("keel_sweep_journal") : std::nullopt;
      std::optional<StringRef> FP = O ? O->getString("fingerprint") : std::nullopt;
      if (!Ver || !FP)
        return inputError(Name, LineNo, "not a layout-sweep journal header");
      if (*Ver != JournalVersion)
        return inputError(Name, LineNo, "journal version {0}, expected {1}", *Ver,
                          JournalVersion);
      C.Fingerprint = FP->str();
      continue;
    }
    Measurement M;
    json::Path::Root Root("measurement");
    if (!fromJSON(*V, M, Root))
      return inputError(Name, LineNo, "bad measurement: {0}",
                        toString(Root.getError()));
    auto Same = [&](const Measurement &X) { return X.V == M.V; };
    llvm::erase_if(C.Ms, Same);
    C.Ms.push_back(std::move(M));
  }
  return C;
}

Expected<std::unique_ptr<Journal>>
Journal::open(StringRef Path, StringRef Fingerprint, bool Resume,
              bool Overwrite, std::vector<Measurement> &Done) {
  bool Exists = sys::fs::exists(Path);
  bool WriteHeader = true;
  if (Exists && Resume) {
    Expected<std::string> Text = readTextFile(Path);
    if (!Text)
      return Text.takeError();
    if (!Text->empty()) {
      Expected<JournalContents> C = parseJournal(*Text, Path);
      if (!C)
        return C.takeError();
      if (!C->Fingerprint.empty() && C->Fingerprint != Fingerprint)
        return inputError(Path, 1,
                          "this journal belongs to a different sweep (binary, "
                          "arguments, backend, axis or geometry differ); "
                          "remove it or pass another --journal");
      Done = std::move(C->Ms);
      if (C->DroppedPartialLine) {
        // Cut the torn line so appended lines start on a line of their own.
        size_t Cut = Text->rfind('\n');
        off_t Keep = Cut == std::string::npos ? 0 : static_cast<off_t>(Cut + 1);
        if (::truncate(Path.str().c_str(), Keep) != 0)
          return makeError("cannot truncate {0}: {1}", Path, strerror(errno));
      }
      WriteHeader = C->Fingerprint.empty();
    }
  } else if (Exists && !Overwrite) {
    return inputError(Path, 0,
                      "journal exists (a killed sweep?): pass --resume to "
                      "continue it, or remove it");
  }
  int Flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
  if (!Resume)
    Flags |= O_TRUNC;
  int FD = ::open(Path.str().c_str(), Flags, 0644);
  if (FD < 0)
    return makeError("cannot open journal {0}: {1}", Path, strerror(errno));
  std::unique_ptr<Journal> J(new Journal(Path.str(), FD));
  if (WriteHeader) {
    json::Object H{{"keel_sweep_journal", JournalVersion},
                   {"fingerprint", Fingerprint}};
    std::string Line;
    raw_string_ostream(Line) << json::Value(std::move(H));
    if (Error E = J->writeLine(Line))
      return std::move(E);
  }
  return J;
}

Journal::~Journal() {
  if (FD >= 0)
    ::close(FD);
}

Error Journal::writeLine(StringRef Line) {
  std::string Buf = (Line + "\n").str();
  // One write() per line: O_APPEND keeps concurrent lines whole.
  const char *P = Buf.data();
  size_t Left = Buf.size();
  while (Left) {
    ssize_t N = ::write(FD, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return makeError("cannot write journal {0}: {1}", Path, strerror(errno));
    P += N;
    Left -= N;
  }
  if (::fsync(FD) != 0)
    return makeError("cannot fsync journal {0}: {1}", Path, strerror(errno));
  return Error::success();
}

Error Journal::append(const Measurement &M) {
  std::string Line;
  raw_string_ostream(Line) << toJSON(M);
  std::lock_guard<std::mutex> G(Lock);
  return writeLine(Line);
}

} // namespace sweep
} // namespace keel
