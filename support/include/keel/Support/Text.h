//===- keel/Support/Text.h - quoting input text in messages -------*- C++ -*-===//
//
// Error messages quote what they could not read ("bad hex offset 'zz'"). A
// binary file given where text was expected must not write its raw bytes to
// the user's terminal (escape sequences, NULs, broken UTF-8), so every
// message Keel prints goes through printableMessage (reportError and
// InputError do it), and readers quote tokens with quoteInput, which also
// bounds their length.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_TEXT_H
#define KEEL_SUPPORT_TEXT_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace keel {

/// \p S with every byte that is not printable ASCII or part of a valid
/// UTF-8 sequence (of a printable code point) written as \xNN, tab,
/// newline and carriage return as \t, \n, \r, and the invisible format
/// characters (bidi embeddings, overrides and isolates U+202A-202E and
/// U+2066-2069, the marks U+200E/200F, zero-width characters, the BOM) as
/// \uNNNN. Printable text is unchanged, so applying it twice changes
/// nothing. Every message and every text report that prints a symbol name
/// or other input text goes through it.
std::string printableMessage(llvm::StringRef S);

/// printableMessage for a whole text report: the same escapes, but
/// newlines and tabs kept. A report's text goes through it on its way to
/// the terminal (layout-profile show/blocks/timeline, layout-order's
/// plan summary, layout-falseshare's text report), so a symbol named
/// U+202E + "niam" never prints as "main".
std::string printableText(llvm::StringRef S);

/// printableMessage(S) cut to about \p Max characters ("..." at the end),
/// for quoting a token of untrusted input inside a message.
std::string quoteInput(llvm::StringRef S, size_t Max = 48);

/// Where \p Text stops being text: the offset of its first NUL, control
/// byte other than tab/newline/carriage return/form feed, or invalid UTF-8;
/// std::nullopt when it is all text. Only the first \p Limit bytes are
/// looked at.
std::optional<size_t> firstBinaryByte(llvm::StringRef Text,
                                      size_t Limit = 65536);

/// \p S for XML, HTML and SVG text or attribute values: & < > " ' as
/// entities, everything else unchanged. The one escaper the HTML/SVG
/// reports (sweep, roofline, timeline) use.
std::string escapeMarkup(llvm::StringRef S);

} // namespace keel

#endif
