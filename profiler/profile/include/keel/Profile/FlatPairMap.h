//===- keel/Profile/FlatPairMap.h - counts keyed by an address pair -*- C++ -*-===//
//
// The hash map the branch-stack aggregation counts into: keys are pairs of
// 64-bit addresses (FROM->TO, or a fall-through range), values small
// counters. One flat array of slots, open addressing with linear probing,
// a power-of-two capacity kept at most half full, no allocation except when
// the table doubles. Every key is storable: the pair used to mark empty
// slots, (~0, ~0), is kept beside the table.
//
// The slot of a key is Fibonacci hashing of the two words (a multiply each,
// the slot from the top bits). Tables of a few MB do not fit a core's cache,
// so what a lookup costs is the cache miss on its slot: prefetch() lets a
// caller that knows its next keys (the entries of one branch stack) start
// those misses together.
//
// Iteration order is the table's, which depends on the insertion history;
// sorted() gives the entries in key order for deterministic output.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_FLATPAIRMAP_H
#define KEEL_PROFILE_FLATPAIRMAP_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace keel {

template <typename V> class FlatPairMap {
public:
  using Key = std::pair<uint64_t, uint64_t>;

  /// Room for \p N keys without growing.
  explicit FlatPairMap(size_t N = 0) { reserve(N); }

  /// The value of \p K, value-initialised on first use. The reference is
  /// valid until the next insertion of a new key.
  V &operator[](Key K) { return get(K.first, K.second); }
  V &get(uint64_t A, uint64_t B) {
    if (A == Empty && B == Empty)
      return emptyKey();
    size_t I = slot(A, B);
    while (true) {
      Slot &S = Slots[I];
      if (S.A == A && S.B == B)
        return S.Val;
      if (S.A == Empty && S.B == Empty)
        return insert(I, A, B);
      I = (I + 1) & Mask;
    }
  }

  /// The value of \p K, or null.
  const V *find(Key K) const {
    if (K.first == Empty && K.second == Empty)
      return HasEmptyKey ? &EmptyKeyValue : nullptr;
    for (size_t I = slot(K.first, K.second);; I = (I + 1) & Mask) {
      const Slot &S = Slots[I];
      if (S.A == K.first && S.B == K.second)
        return &S.Val;
      if (S.A == Empty && S.B == Empty)
        return nullptr;
    }
  }

  size_t size() const { return Used + HasEmptyKey; }
  /// Start loading the slot where \p A, \p B would be found.
  void prefetch(uint64_t A, uint64_t B) const {
    __builtin_prefetch(&Slots[slot(A, B)]);
  }
  bool empty() const { return size() == 0; }
  size_t capacity() const { return Slots.size(); }

  /// Make room for \p N keys without growing.
  void reserve(size_t N) {
    size_t Cap = MinCapacity;
    while (Cap < 2 * N)
      Cap *= 2;
    if (Cap > Slots.size())
      grow(Cap);
  }

  /// Call \p F(Key, const V &) for every entry, in table order.
  template <typename Fn> void forEach(Fn F) const {
    for (const Slot &S : Slots)
      if (S.A != Empty || S.B != Empty)
        F(Key{S.A, S.B}, S.Val);
    if (HasEmptyKey)
      F(Key{Empty, Empty}, EmptyKeyValue);
  }

  /// The entries in key order.
  std::vector<std::pair<Key, V>> sorted() const {
    std::vector<std::pair<Key, V>> Out;
    Out.reserve(size());
    forEach([&](Key K, const V &Val) { Out.emplace_back(K, Val); });
    std::sort(Out.begin(), Out.end(),
              [](const auto &X, const auto &Y) { return X.first < Y.first; });
    return Out;
  }

private:
  static constexpr uint64_t Empty = ~uint64_t(0);
  static constexpr size_t MinCapacity = 16;
  struct Slot {
    uint64_t A = Empty, B = Empty;
    V Val{};
  };

  // The rare paths, out of line so that a lookup that hits inlines.
  __attribute__((noinline)) V &emptyKey() {
    if (!HasEmptyKey) {
      HasEmptyKey = true;
      EmptyKeyValue = V();
    }
    return EmptyKeyValue;
  }
  /// A new key whose probe ended at the empty slot \p I.
  __attribute__((noinline)) V &insert(size_t I, uint64_t A, uint64_t B) {
    if (2 * (Used + 1) > Slots.size()) {
      grow(2 * Slots.size());
      I = slot(A, B);
      while (Slots[I].A != Empty || Slots[I].B != Empty)
        I = (I + 1) & Mask;
    }
    ++Used;
    Slot &S = Slots[I];
    S.A = A;
    S.B = B;
    S.Val = V();
    return S.Val;
  }

  size_t slot(uint64_t A, uint64_t B) const {
    // Fibonacci hashing: the top bits of a multiply depend on every bit of
    // the (mostly low-bit varying) addresses.
    uint64_t H = (A * 0x9e3779b97f4a7c15ULL) ^ (B * 0xc2b2ae3d27d4eb4fULL);
    H ^= H >> 29;
    H *= 0xbf58476d1ce4e5b9ULL;
    return size_t(H >> Shift);
  }

  void grow(size_t Cap) {
    std::vector<Slot> Old(Cap);
    Old.swap(Slots);
    Mask = Cap - 1;
    Shift = 64;
    for (size_t C = Cap; C > 1; C >>= 1)
      --Shift;
    for (const Slot &S : Old) {
      if (S.A == Empty && S.B == Empty)
        continue;
      size_t I = slot(S.A, S.B);
      while (Slots[I].A != Empty || Slots[I].B != Empty)
        I = (I + 1) & Mask;
      Slots[I] = S;
    }
  }

  std::vector<Slot> Slots;
  size_t Mask = 0;
  unsigned Shift = 64;
  size_t Used = 0;
  bool HasEmptyKey = false;
  V EmptyKeyValue{};
};

} // namespace keel

#endif
