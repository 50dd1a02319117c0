//===- Diagnostics.cpp - errors that name file:line -----------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Text.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace keel {

char InputError::ID = 0;
char UnavailableError::ID = 0;
char InterruptedError::ID = 0;

/// Length of the valid UTF-8 sequence of a printable code point at \p S
/// (2..4), or 0.
static size_t utf8Printable(StringRef S, uint32_t *CodePoint = nullptr) {
  unsigned char C = S[0];
  size_t N = C >= 0xf0 && C <= 0xf4 ? 4 : C >= 0xe0 ? 3 : C >= 0xc2 ? 2 : 0;
  if (C >= 0xf5 || N == 0 || S.size() < N)
    return 0;
  uint32_t CP = C & (0xff >> (N + 1));
  for (size_t I = 1; I < N; ++I) {
    unsigned char D = S[I];
    if ((D & 0xc0) != 0x80)
      return 0;
    CP = (CP << 6) | (D & 0x3f);
  }
  static const uint32_t MinOf[] = {0, 0, 0x80, 0x800, 0x10000};
  if (CP < MinOf[N] || CP > 0x10ffff || (CP >= 0xd800 && CP <= 0xdfff))
    return 0; // overlong, out of range, surrogate
  if (CP < 0xa0)
    return 0; // C1 control characters
  if (CodePoint)
    *CodePoint = CP;
  return N;
}

/// Invisible format characters that reorder or hide the text around them
/// in a terminal: the bidi embeddings, overrides and isolates (a symbol
/// "main" followed by U+202E prints as something else), the marks,
/// zero-width characters, separators and the BOM. They are valid text
/// (firstBinaryByte accepts them) but never printed raw.
static bool isFormatCharacter(uint32_t CP) {
  return CP == 0xad || CP == 0x61c || CP == 0x180e ||
         (CP >= 0x200b && CP <= 0x200f) || (CP >= 0x2028 && CP <= 0x202e) ||
         (CP >= 0x2060 && CP <= 0x206f) || CP == 0xfeff ||
         (CP >= 0xfff9 && CP <= 0xfffb);
}

static std::string printable(StringRef S, bool KeepLayout) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size();) {
    unsigned char C = S[I];
    if (C >= 0x20 && C < 0x7f) {
      Out += char(C);
      ++I;
      continue;
    }
    uint32_t CP = 0;
    if (C >= 0x80)
      if (size_t N = utf8Printable(S.substr(I), &CP)) {
        if (isFormatCharacter(CP))
          Out += formatv("\\u{0:x-4}", CP).str();
        else
          Out.append(S.data() + I, N);
        I += N;
        continue;
      }
    if (KeepLayout && (C == '\n' || C == '\t'))
      Out += char(C);
    else if (C == '\n')
      Out += "\\n";
    else if (C == '\t')
      Out += "\\t";
    else if (C == '\r')
      Out += "\\r";
    else
      Out += formatv("\\x{0:x-2}", unsigned(C)).str();
    ++I;
  }
  return Out;
}

std::string printableMessage(StringRef S) {
  return printable(S, /*KeepLayout=*/false);
}

std::string printableText(StringRef S) {
  return printable(S, /*KeepLayout=*/true);
}

std::string quoteInput(StringRef S, size_t Max) {
  std::string P = printableMessage(S);
  if (P.size() <= Max)
    return P;
  // Cut at a character boundary: never inside \xNN or a UTF-8 sequence.
  size_t Cut = Max;
  while (Cut > 0 && (P[Cut] & 0xc0) == 0x80)
    --Cut;
  size_t Esc = P.rfind('\\', Cut);
  if (Esc != std::string::npos && Cut - Esc < 4)
    Cut = Esc;
  return P.substr(0, Cut) + "...";
}

std::optional<size_t> firstBinaryByte(StringRef Text, size_t Limit) {
  StringRef T = Text.take_front(Limit);
  for (size_t I = 0; I < T.size();) {
    unsigned char C = T[I];
    if (C >= 0x20 && C < 0x7f) {
      ++I;
      continue;
    }
    if (C == '\t' || C == '\n' || C == '\r' || C == '\f') {
      ++I;
      continue;
    }
    if (C >= 0x80) {
      if (size_t N = utf8Printable(T.substr(I))) {
        I += N;
        continue;
      }
      // A sequence cut by the limit is not evidence of binary data.
      if (T.size() < Text.size() && T.size() - I < 4)
        return std::nullopt;
    }
    return I;
  }
  return std::nullopt;
}

void InputError::log(raw_ostream &OS) const {
  OS << printableMessage(File);
  if (Line)
    OS << ':' << Line;
  if (Line && Column)
    OS << ':' << Column;
  OS << ": " << printableMessage(Msg);
}

std::error_code InputError::convertToErrorCode() const {
  return std::make_error_code(std::errc::invalid_argument);
}

std::error_code InterruptedError::convertToErrorCode() const {
  return std::make_error_code(std::errc::interrupted);
}

std::error_code UnavailableError::convertToErrorCode() const {
  return std::make_error_code(std::errc::function_not_supported);
}

uint64_t QualityReport::get(StringRef What) const {
  auto It = Counts.find(What.str());
  return It == Counts.end() ? 0 : It->second;
}

void QualityReport::countOf(StringRef What, uint64_t N, uint64_t Total,
                            StringRef Items) {
  Counts[What.str()] += N;
  auto &T = Totals[What.str()];
  T.first += Total;
  T.second = Items.str();
}

std::string QualityReport::describe(StringRef What) const {
  const uint64_t N = get(What);
  auto It = Totals.find(What.str());
  if (It == Totals.end())
    return formatv("{0} {1}", N, What).str();
  const auto &[Of, Items] = It->second;
  if (!Of || N > Of)
    return formatv("{0} {1} {2}", N, Items, What).str();
  return formatv("{0} of {1} {2} ({3:F2}%) {4}", N, Of, Items,
                 100.0 * double(N) / double(Of), What)
      .str();
}

void QualityReport::print(raw_ostream &OS, StringRef Tool, uint64_t Total,
                          StringRef ItemName) const {
  for (const auto &[What, N] : Counts) {
    uint64_t Of = Total;
    StringRef Items = ItemName;
    if (auto It = Totals.find(What); It != Totals.end()) {
      Of = It->second.first;
      Items = It->second.second;
    }
    raw_ostream &W = WithColor::warning(OS, Tool);
    if (!Of || N > Of) {
      W << N << ' ' << Items << ' ' << What << '\n';
      continue;
    }
    W << N << " of " << Of << ' ' << Items << " ("
      << format("%.2f", 100.0 * double(N) / double(Of)) << "%) " << What
      << '\n';
  }
}

int reportError(StringRef Tool, Error E) {
  int Code = ExitBadInput;
  handleAllErrors(
      std::move(E),
      [&](const UnavailableError &U) {
        Code = ExitUnavailable;
        WithColor::error(errs(), Tool) << printableMessage(U.message()) << '\n';
      },
      [&](const InterruptedError &I) {
        Code = 128 + I.signal();
        WithColor::error(errs(), Tool) << printableMessage(I.message()) << '\n';
      },
      [&](const ErrorInfoBase &EI) {
        // Messages may quote input text: never raw bytes to the terminal.
        WithColor::error(errs(), Tool) << printableMessage(EI.message()) << '\n';
      });
  return Code;
}

std::string escapeMarkup(StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&#39;"; break;
    default: Out += C;
    }
  }
  return Out;
}

} // namespace keel
