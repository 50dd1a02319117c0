//===- CallgrindReader.cpp - callgrind-format lines -----------------------===//
//
// The line grammar of valgrind's callgrind/cachegrind output; see
// keel/Support/CallgrindReader.h.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/CallgrindReader.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace keel {

CallgrindLine classifyCallgrindLine(StringRef Line) {
  CallgrindLine L;
  if (Line.trim().empty())
    return L;
  char C = Line.front();
  if (C == '#') {
    L.Kind = CallgrindLine::Comment;
    return L;
  }
  if (isDigit(C) || C == '+' || C == '-' || C == '*') {
    L.Kind = CallgrindLine::Cost;
    return L;
  }
  size_t Eq = Line.find('='), Colon = Line.find(':');
  if (Eq != StringRef::npos && (Colon == StringRef::npos || Eq < Colon)) {
    L.Kind = CallgrindLine::Spec;
    L.Key = Line.take_front(Eq);
    L.Value = Line.drop_front(Eq + 1);
  } else if (Colon != StringRef::npos) {
    L.Kind = CallgrindLine::Header;
    L.Key = Line.take_front(Colon);
    L.Value = Line.drop_front(Colon + 1);
  } else {
    L.Kind = CallgrindLine::Other;
  }
  return L;
}

bool CallgrindReader::next() {
  if (Done)
    return false;
  size_t NL = Rest.find('\n');
  Line = Rest.take_front(NL);
  if (NL == StringRef::npos)
    Done = true;
  else
    Rest = Rest.drop_front(NL + 1);
  ++LineNo;
  return true;
}

StringRef CallgrindReader::peekNonBlank() const {
  if (Done)
    return "";
  for (StringRef Left = Rest;;) {
    auto [L, More] = Left.split('\n');
    if (!L.trim().empty())
      return L.trim();
    if (L.size() == Left.size()) // no '\n' left
      return "";
    Left = More;
  }
}

SmallVector<StringRef, 16> splitCallgrindFields(StringRef S) {
  SmallVector<StringRef, 16> Fields;
  S.split(Fields, ' ', -1, /*KeepEmpty=*/false);
  return Fields;
}

std::optional<uint64_t> parseCallgrindNumber(StringRef Tok) {
  uint64_t N;
  bool Bad = Tok.starts_with_insensitive("0x")
                 ? Tok.drop_front(2).getAsInteger(16, N)
                 : Tok.getAsInteger(10, N);
  if (Bad)
    return std::nullopt;
  return N;
}

Error readCallgrindPositions(const CallgrindReader &R,
                             ArrayRef<StringRef> Fields, size_t &I,
                             ArrayRef<uint64_t> Last,
                             SmallVectorImpl<uint64_t> &Out) {
  if (Fields.size() < I + Last.size())
    return R.error("expected {0} position field(s)", Last.size());
  for (size_t P = 0; P < Last.size(); ++P, ++I) {
    StringRef Tok = Fields[I];
    uint64_t V = 0;
    if (Tok == "*") {
      V = Last[P];
    } else if (Tok[0] == '+' || Tok[0] == '-') {
      uint64_t D;
      if (Tok.drop_front().getAsInteger(10, D))
        return R.error("bad relative position '{0}'", Tok);
      V = Tok[0] == '+' ? Last[P] + D : Last[P] - D;
    } else if (std::optional<uint64_t> N = parseCallgrindNumber(Tok)) {
      V = *N;
    } else {
      return R.error("bad number '{0}'", Tok);
    }
    Out.push_back(V);
  }
  return Error::success();
}

Error readCallgrindCosts(const CallgrindReader &R, ArrayRef<StringRef> Fields,
                         size_t I, SmallVectorImpl<uint64_t> &Out) {
  for (; I < Fields.size(); ++I) {
    uint64_t V;
    if (Fields[I].getAsInteger(10, V))
      return R.error("bad cost '{0}'", Fields[I]);
    Out.push_back(V);
  }
  return Error::success();
}

Error CallgrindNames::resolve(const CallgrindReader &R, StringRef Value,
                              std::string &Out) {
  size_t Close = Value.find(')');
  uint64_t Id;
  if (!Value.starts_with("(") || Close == StringRef::npos ||
      Value.slice(1, Close).getAsInteger(10, Id)) {
    Out = Value.str();
    return Error::success();
  }
  StringRef Rest = Value.drop_front(Close + 1).trim();
  if (!Rest.empty() && Value[Close + 1] != ' ')
    return R.error("bad compressed name '{0}'", Value);
  if (!Rest.empty()) {
    Ids[Id] = Rest.str();
    Out = Rest.str();
    return Error::success();
  }
  auto It = Ids.find(Id);
  if (It == Ids.end())
    return R.error("name id ({0}) is used before it is defined", Id);
  Out = It->second;
  return Error::success();
}

} // namespace keel
