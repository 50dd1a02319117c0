//===- JSONInput.cpp - JSON input with file:line errors -------------------===//
#include "keel/Roofline/JSONInput.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace keel {
namespace roofline {

Expected<json::Value> parseJSON(StringRef Text, StringRef File) {
  auto V = json::parse(Text);
  if (V)
    return V;
  // json::ParseError keeps its line private; its message starts "[L:C, ...".
  std::string Msg = toString(V.takeError());
  unsigned Line = 0;
  StringRef S(Msg);
  if (S.consume_front("[")) {
    StringRef Num = S.take_until([](char C) { return C == ':'; });
    Num.getAsInteger(10, Line);
    size_t Close = S.find("]: ");
    if (Close != StringRef::npos)
      S = S.drop_front(Close + 3);
  }
  return inputError(File, Line, "invalid JSON: {0}", S);
}

unsigned lineOfKey(StringRef Text, StringRef Key) {
  std::string Needle = ("\"" + Key + "\"").str();
  size_t Pos = Text.find(Needle);
  if (Pos == StringRef::npos)
    return 0;
  return 1 + Text.take_front(Pos).count('\n');
}

} // namespace roofline
} // namespace keel
