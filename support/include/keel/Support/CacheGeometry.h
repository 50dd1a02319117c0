//===- keel/Support/CacheGeometry.h - cache sizes, ways, lines --*- C++ -*-===//
//
// The one description of a cache's geometry: size, associativity (ways) and
// line size in bytes, with its text form "SIZE,ASSOC,LINE" (valgrind's
// --I1/--D1/--LL), and the three levels valgrind simulates (I1, D1, LL) with
// theirs, "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64". The sweep's
// simulated geometries and the roofline's view of this machine's caches both
// use it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_CACHEGEOMETRY_H
#define KEEL_SUPPORT_CACHEGEOMETRY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace keel {

/// One cache level: size, associativity, line size (bytes).
struct CacheLevel {
  uint64_t Size = 0, Assoc = 0, Line = 0;
  uint64_t waySize() const { return Assoc ? Size / Assoc : 0; }
};

/// "SIZE,ASSOC,LINE", as valgrind's --I1, --D1 and --LL take it.
std::string cacheLevelSpec(const CacheLevel &L);
/// Parse "SIZE,ASSOC,LINE": three decimal numbers, white space around each
/// allowed; std::nullopt otherwise. Nothing is checked beyond that (zeros
/// included).
std::optional<CacheLevel> parseCacheLevelSpec(llvm::StringRef Spec);

/// The cache geometry valgrind simulates (zero levels when unknown, e.g. the
/// sweep's time backend on an unknown CPU).
struct CacheGeometry {
  CacheLevel I1, D1, LL;
};
/// "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64" (parseCacheGeometry's form).
std::string geometryText(const CacheGeometry &G);
/// Parse geometryText's form; unknown or malformed parts are left zero.
CacheGeometry parseCacheGeometry(llvm::StringRef S);

} // namespace keel

#endif
