//===- TextScan.h - small helpers shared by the text profile readers ------===//
//
// Private to keelProfile. The readers scan their input line by line with
// StringRef and never allocate per field; these helpers keep that fast and
// the error messages uniform.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_TEXTSCAN_H
#define KEEL_PROFILE_TEXTSCAN_H

#include "keel/Profile/Binary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace keel {
namespace textscan {

/// Parse hex digits (no prefix, at most 16) into \p V. False on anything else.
inline bool parseHex(llvm::StringRef S, uint64_t &V) {
  if (S.empty() || S.size() > 16)
    return false;
  uint64_t R = 0;
  for (char C : S) {
    unsigned D;
    if (C >= '0' && C <= '9')
      D = C - '0';
    else if (C >= 'a' && C <= 'f')
      D = C - 'a' + 10;
    else if (C >= 'A' && C <= 'F')
      D = C - 'A' + 10;
    else
      return false;
    R = (R << 4) | D;
  }
  V = R;
  return true;
}

/// Parse hex with an optional "0x"/"0X" prefix.
inline bool parseHexMaybe0x(llvm::StringRef S, uint64_t &V) {
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X'))
    S = S.drop_front(2);
  return parseHex(S, V);
}

/// Parse a decimal number into \p V. False on anything else or overflow.
inline bool parseDec(llvm::StringRef S, uint64_t &V) {
  if (S.empty() || S.size() > 20)
    return false;
  uint64_t R = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return false;
    uint64_t N = R * 10 + uint64_t(C - '0');
    if (N / 10 != R)
      return false;
    R = N;
  }
  V = R;
  return true;
}

inline bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\r'; }

/// Next whitespace-separated token of \p Line starting at \p Pos; empty at
/// the end of the line.
inline llvm::StringRef nextToken(llvm::StringRef Line, size_t &Pos) {
  size_t N = Line.size();
  while (Pos < N && isBlank(Line[Pos]))
    ++Pos;
  size_t Start = Pos;
  while (Pos < N && !isBlank(Line[Pos]))
    ++Pos;
  return Line.slice(Start, Pos);
}

/// A fast "is this address in executable code of the binary" test: the
/// executable sections as sorted ranges (Binary::sectionAt scans linearly).
class CodeRanges {
public:
  explicit CodeRanges(const Binary *Bin) {
    if (!Bin)
      return;
    for (const SectionInfo &S : Bin->sections())
      if (S.IsAlloc && S.IsExec && S.Size)
        Ranges.push_back({S.Addr, S.Addr + S.Size});
    Lo = Ranges.empty() ? 0 : ~uint64_t(0);
    for (const auto &[B, E] : Ranges) {
      Lo = std::min(Lo, B);
      Hi = std::max(Hi, E);
    }
    // Largest first: nearly every address is in .text.
    std::sort(Ranges.begin(), Ranges.end(), [](const auto &A, const auto &B) {
      return A.second - A.first > B.second - B.first;
    });
  }
  bool contains(uint64_t A) const {
    if (A < Lo || A >= Hi)
      return false;
    for (const auto &[B, E] : Ranges) // a handful of sections
      if (A >= B && A < E)
        return true;
    return false;
  }

private:
  std::vector<std::pair<uint64_t, uint64_t>> Ranges;
  uint64_t Lo = 0, Hi = 0;
};

/// Does a build-id prefix written in a profile name \p Bin's build?
/// perf and BOLT may shorten build-ids, so a prefix of the full id matches.
inline bool buildIDMatches(llvm::StringRef Prefix, llvm::StringRef Full) {
  return !Prefix.empty() && Full.starts_with_insensitive(Prefix);
}

} // namespace textscan
} // namespace keel

#endif
