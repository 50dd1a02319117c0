//===- LinkRecord.cpp - a link command saved beside its binary ------------===//
#include "keel/LinkRecord/LinkRecord.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA1.h"

using namespace llvm;

namespace keel {
namespace sweep {

std::string linkRecordPath(StringRef Binary) {
  return (Binary + ".keel-link.json").str();
}

std::string linkOutput(ArrayRef<std::string> Argv) {
  std::string Out = "a.out";
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (W == "-o" && I + 1 < Argv.size())
      Out = Argv[++I];
    else if (W.starts_with("-o") && W.size() > 2 && !W.starts_with("-o="))
      Out = W.drop_front(2).str();
  }
  return Out;
}

Expected<std::string> fileSHA1(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B =
      readInputFile(Path, InputKind::Binary);
  if (!B)
    return B.takeError();
  std::array<uint8_t, 20> H = SHA1::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*B)->getBufferStart()),
                        (*B)->getBufferSize()));
  return toHex(H, /*LowerCase=*/true);
}

Expected<std::vector<std::string>>
expandResponseFiles(ArrayRef<std::string> Argv, StringRef Cwd,
                    std::vector<std::string> &Files) {
  std::vector<std::string> Words(Argv.begin(), Argv.end());
  if (none_of(Argv.drop_front(), [](const std::string &W) {
        return StringRef(W).starts_with("@");
      }))
    return Words;
  // What clang's driver does (and ld.lld the same): GNU quoting, nested
  // files named relative to the working directory.
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef W = Argv[I];
    if (!W.consume_front("@"))
      continue;
    SmallString<256> P(W);
    if (!sys::path::is_absolute(P)) {
      P = Cwd;
      sys::path::append(P, W);
    }
    if (sys::fs::exists(P))
      Files.push_back(W.str());
  }
  BumpPtrAllocator A;
  StringSaver Saver(A);
  SmallVector<const char *, 64> Args;
  for (const std::string &W : Argv)
    Args.push_back(Saver.save(W).data());
  cl::ExpansionContext ECtx(A, cl::TokenizeGNUCommandLine);
  ECtx.setCurrentDir(Cwd);
  if (Error E = ECtx.expandResponseFiles(Args))
    return inputError(Files.empty() ? StringRef("<link command>")
                                    : StringRef(Files.front()),
                      0, "cannot expand the response file: {0}",
                      toString(std::move(E)));
  Words.assign(Args.begin(), Args.end());
  return Words;
}

Error writeLinkRecord(StringRef Path, const LinkRecord &R) {
  return writeOutput(Path, [&](raw_ostream &OS) {
    json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("version", LinkRecordVersion);
      J.attribute("tool", "layout-link");
      J.attribute("cwd", R.Cwd);
      J.attribute("argv", json::Array(R.Argv));
      J.attribute("output", R.Output);
      J.attribute("sha1", R.SHA1);
      if (!R.ResponseFiles.empty())
        J.attribute("response_files", json::Array(R.ResponseFiles));
    });
    OS << "\n";
    return Error::success();
  });
}

Expected<LinkRecord> readLinkRecord(StringRef Path) {
  Expected<std::string> Text = readTextFile(Path);
  if (!Text)
    return Text.takeError();
  Expected<json::Value> V = json::parse(*Text);
  if (!V)
    return inputError(Path, 0, "not a link record (JSON: {0})",
                      toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return inputError(Path, 0, "not a link record (expected a JSON object)");
  std::optional<int64_t> Version = O->getInteger("version");
  if (!Version || *Version != LinkRecordVersion)
    return inputError(Path, 0, "link record version is not {0}",
                      LinkRecordVersion);
  LinkRecord R;
  const json::Array *Argv = O->getArray("argv");
  std::optional<StringRef> Cwd = O->getString("cwd"), Out = O->getString("output"),
                           Sha = O->getString("sha1");
  if (!Argv || Argv->empty() || !Cwd || !Out || !Sha)
    return inputError(Path, 0,
                      "link record lacks one of argv, cwd, output, sha1");
  for (const json::Value &W : *Argv) {
    std::optional<StringRef> S = W.getAsString();
    if (!S)
      return inputError(Path, 0, "link record argv holds a non-string");
    R.Argv.push_back(S->str());
  }
  if (const json::Array *Rsp = O->getArray("response_files"))
    for (const json::Value &W : *Rsp)
      if (std::optional<StringRef> S = W.getAsString())
        R.ResponseFiles.push_back(S->str());
  R.Cwd = Cwd->str();
  R.Output = Out->str();
  R.SHA1 = Sha->str();
  return R;
}

} // namespace sweep
} // namespace keel
