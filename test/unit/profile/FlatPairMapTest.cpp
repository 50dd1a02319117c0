//===- FlatPairMapTest.cpp - the aggregation's address-pair hash map ------===//
//
// keel/Profile/FlatPairMap.h against std::map on the same operations:
// colliding keys, growth from the smallest table, the reserved empty key
// itself, and output that does not depend on the insertion order.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/FlatPairMap.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <random>

using namespace keel;

namespace {

using Key = FlatPairMap<uint64_t>::Key;

TEST(FlatPairMap, CountsLikeStdMap) {
  FlatPairMap<uint64_t> M;
  std::map<Key, uint64_t> Ref;
  std::mt19937_64 R(7);
  for (int I = 0; I < 20000; ++I) {
    // Few distinct keys (many hits), addresses like code addresses.
    Key K{0x401000 + (R() % 300) * 4, 0x401000 + (R() % 50) * 16};
    ++M[K];
    ++Ref[K];
  }
  ASSERT_EQ(M.size(), Ref.size());
  for (const auto &[K, V] : Ref) {
    const uint64_t *P = M.find(K);
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(*P, V);
  }
  EXPECT_EQ(M.find({1, 2}), nullptr);
  auto Sorted = M.sorted();
  EXPECT_EQ(Sorted, (std::vector<std::pair<Key, uint64_t>>(Ref.begin(), Ref.end())));
}

TEST(FlatPairMap, GrowsFromTheSmallestTable) {
  FlatPairMap<uint64_t> M;
  size_t Cap = M.capacity();
  EXPECT_EQ(Cap, 16u);
  for (uint64_t I = 0; I < 100000; ++I)
    M.get(I, I * 3) = I + 1;
  EXPECT_EQ(M.size(), 100000u);
  EXPECT_GE(M.capacity(), 2 * M.size()); // at most half full
  for (uint64_t I = 0; I < 100000; ++I)
    ASSERT_EQ(*M.find({I, I * 3}), I + 1);
  // reserve() ahead: no growth while filling.
  FlatPairMap<uint64_t> N(1000);
  size_t Before = N.capacity();
  for (uint64_t I = 0; I < 1000; ++I)
    ++N.get(I << 20, 0);
  EXPECT_EQ(N.capacity(), Before);
}

TEST(FlatPairMap, CollidingKeys) {
  // Keys that differ only above the bits a small table indexes by, and keys
  // with swapped halves: all distinct, all found.
  FlatPairMap<uint64_t> M;
  std::map<Key, uint64_t> Ref;
  for (uint64_t I = 0; I < 64; ++I) {
    for (Key K : {Key{I << 40, 0}, Key{0, I << 40}, Key{I, I}, Key{I, 0},
                  Key{0, I}}) {
      M[K] += 1 + I;
      Ref[K] += 1 + I;
    }
  }
  EXPECT_EQ(M.size(), Ref.size());
  auto Sorted = M.sorted();
  EXPECT_EQ(Sorted, (std::vector<std::pair<Key, uint64_t>>(Ref.begin(), Ref.end())));
}

TEST(FlatPairMap, EveryKeyIsStorable) {
  // (~0, ~0) marks empty slots and is kept aside; (~0, 0) and (0, ~0) are
  // ordinary keys.
  const uint64_t X = ~uint64_t(0);
  FlatPairMap<uint64_t> M;
  EXPECT_EQ(M.find({X, X}), nullptr);
  M[{X, X}] = 5;
  M[{X, 0}] = 6;
  M[{0, X}] = 7;
  M[{0, 0}] = 8;
  EXPECT_EQ(M.size(), 4u);
  EXPECT_EQ(*M.find({X, X}), 5u);
  EXPECT_EQ(*M.find({X, 0}), 6u);
  EXPECT_EQ(*M.find({0, X}), 7u);
  EXPECT_EQ(*M.find({0, 0}), 8u);
  auto Sorted = M.sorted();
  ASSERT_EQ(Sorted.size(), 4u);
  EXPECT_EQ(Sorted.back().first, (Key{X, X}));
  EXPECT_EQ(Sorted.front().first, (Key{0, 0}));
}

TEST(FlatPairMap, OutputDoesNotDependOnInsertionOrder) {
  std::vector<Key> Keys;
  std::mt19937_64 R(11);
  for (int I = 0; I < 5000; ++I)
    Keys.push_back({R() % 4096, R() % 4096});
  FlatPairMap<uint64_t> A, B(10000);
  for (const Key &K : Keys)
    ++A[K];
  std::shuffle(Keys.begin(), Keys.end(), R);
  for (const Key &K : Keys)
    ++B[K];
  // Different table sizes and insertion orders: the tables differ, the
  // sorted output does not.
  EXPECT_NE(A.capacity(), B.capacity());
  EXPECT_EQ(A.sorted(), B.sorted());
}

} // namespace
