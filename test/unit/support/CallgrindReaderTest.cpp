//===- CallgrindReaderTest.cpp - the shared callgrind-format reader -------===//
#include "keel/Support/CacheGeometry.h"
#include "keel/Support/CallgrindReader.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

namespace {

std::string errText(Error E) { return toString(std::move(E)); }

TEST(CallgrindReader, ClassifiesLines) {
  auto Kind = [](StringRef L) { return classifyCallgrindLine(L).Kind; };
  EXPECT_EQ(Kind(""), CallgrindLine::Blank);
  EXPECT_EQ(Kind("  \t"), CallgrindLine::Blank);
  EXPECT_EQ(Kind("# callgrind format"), CallgrindLine::Comment);
  EXPECT_EQ(Kind("0x401140 3 1"), CallgrindLine::Cost);
  EXPECT_EQ(Kind("+2 * 1"), CallgrindLine::Cost);
  EXPECT_EQ(Kind("-3 1"), CallgrindLine::Cost);
  EXPECT_EQ(Kind("* 1"), CallgrindLine::Cost);
  EXPECT_EQ(Kind("12 5 0 1"), CallgrindLine::Cost);
  EXPECT_EQ(Kind("what is this"), CallgrindLine::Other);

  CallgrindLine H = classifyCallgrindLine("events: Ir Dr");
  EXPECT_EQ(H.Kind, CallgrindLine::Header);
  EXPECT_EQ(H.Key, "events");
  EXPECT_EQ(H.Value, " Ir Dr"); // as is: the caller trims
  // '=' before ':' makes a specification, whatever follows.
  CallgrindLine S = classifyCallgrindLine("fn=(3) std::sort<int>");
  EXPECT_EQ(S.Kind, CallgrindLine::Spec);
  EXPECT_EQ(S.Key, "fn");
  EXPECT_EQ(S.Value, "(3) std::sort<int>");
  CallgrindLine D = classifyCallgrindLine("desc: I1 cache: 4096 B, x=1");
  EXPECT_EQ(D.Kind, CallgrindLine::Header);
  EXPECT_EQ(D.Key, "desc");
}

TEST(CallgrindReader, NumbersLinesAndLooksAhead) {
  CallgrindReader R("a\n\n  \n b \nc", "f.out");
  std::vector<std::pair<unsigned, std::string>> Seen;
  ASSERT_TRUE(R.next());
  EXPECT_EQ(R.line(), "a");
  EXPECT_EQ(R.peekNonBlank(), "b"); // blank lines skipped, trimmed
  Seen.push_back({R.lineNo(), R.line().str()});
  while (R.next())
    Seen.push_back({R.lineNo(), R.line().str()});
  ASSERT_EQ(Seen.size(), 5u);
  EXPECT_EQ(Seen[3], std::make_pair(4u, std::string(" b ")));
  EXPECT_EQ(Seen[4], std::make_pair(5u, std::string("c")));
  EXPECT_EQ(R.peekNonBlank(), "");
  EXPECT_EQ(errText(R.error("bad '{0}'", "c")), "f.out:5: bad 'c'");
  EXPECT_EQ(errText(R.errorAt(0, "empty")), "f.out: empty"); // line 0: the whole file

  // A final '\n' leaves an empty last line, as StringRef::split does.
  CallgrindReader T("x\n", "t");
  unsigned N = 0;
  while (T.next())
    ++N;
  EXPECT_EQ(N, 2u);
  CallgrindReader Empty("", "e");
  EXPECT_TRUE(Empty.next());
  EXPECT_EQ(Empty.line(), "");
  EXPECT_FALSE(Empty.next());
}

TEST(CallgrindReader, FieldsAndNumbers) {
  SmallVector<StringRef, 16> F = splitCallgrindFields("  Ir  Dr Dw ");
  ASSERT_EQ(F.size(), 3u);
  EXPECT_EQ(F[0], "Ir");
  EXPECT_EQ(F[2], "Dw");
  EXPECT_EQ(parseCallgrindNumber("0x401140"), 0x401140u);
  EXPECT_EQ(parseCallgrindNumber("0X10"), 16u);
  EXPECT_EQ(parseCallgrindNumber("42"), 42u);
  EXPECT_FALSE(parseCallgrindNumber("0xZZ"));
  EXPECT_FALSE(parseCallgrindNumber("4a"));
  EXPECT_FALSE(parseCallgrindNumber("0x"));
}

TEST(CallgrindReader, PositionsAreRelativeToTheLastCostLine) {
  CallgrindReader R("x", "p.out");
  R.next();
  SmallVector<StringRef, 16> F = splitCallgrindFields("+2 * 5 7");
  SmallVector<uint64_t, 2> Pos;
  size_t I = 0;
  uint64_t Last[] = {0x100, 30};
  ASSERT_FALSE(bool(readCallgrindPositions(R, F, I, Last, Pos)));
  EXPECT_EQ(I, 2u);
  EXPECT_EQ(Pos[0], 0x102u);
  EXPECT_EQ(Pos[1], 30u);
  SmallVector<uint64_t, 4> Costs;
  ASSERT_FALSE(bool(readCallgrindCosts(R, F, I, Costs)));
  ASSERT_EQ(Costs.size(), 2u);
  EXPECT_EQ(Costs[1], 7u);

  Pos.clear();
  I = 0;
  F = splitCallgrindFields("-16 0x20");
  ASSERT_FALSE(bool(readCallgrindPositions(R, F, I, Last, Pos)));
  EXPECT_EQ(Pos[0], 0xf0u);
  EXPECT_EQ(Pos[1], 0x20u);

  auto PosErr = [&](StringRef Line) {
    SmallVector<StringRef, 16> Toks = splitCallgrindFields(Line);
    SmallVector<uint64_t, 2> Out;
    size_t J = 0;
    return errText(readCallgrindPositions(R, Toks, J, Last, Out));
  };
  EXPECT_EQ(PosErr("5"), "p.out:1: expected 2 position field(s)");
  EXPECT_EQ(PosErr("+x 1"), "p.out:1: bad relative position '+x'");
  EXPECT_EQ(PosErr("1 0xZZ"), "p.out:1: bad number '0xZZ'");
  Costs.clear();
  F = splitCallgrindFields("0x1 3 x");
  EXPECT_EQ(errText(readCallgrindCosts(R, F, 1, Costs)),
            "p.out:1: bad cost 'x'");
}

TEST(CallgrindReader, NameCompression) {
  CallgrindReader R("l1\nl2", "n.out");
  R.next();
  CallgrindNames Fns;
  std::string Out;
  ASSERT_FALSE(bool(Fns.resolve(R, "(7) main", Out)));
  EXPECT_EQ(Out, "main");
  ASSERT_FALSE(bool(Fns.resolve(R, "(7)", Out)));
  EXPECT_EQ(Out, "main");
  ASSERT_FALSE(bool(Fns.resolve(R, "(below main)", Out)));
  EXPECT_EQ(Out, "(below main)");
  ASSERT_FALSE(bool(Fns.resolve(R, "plain", Out)));
  EXPECT_EQ(Out, "plain");
  R.next();
  EXPECT_EQ(errText(Fns.resolve(R, "(8)", Out)),
            "n.out:2: name id (8) is used before it is defined");
  EXPECT_EQ(errText(Fns.resolve(R, "(9)x", Out)),
            "n.out:2: bad compressed name '(9)x'");
  // Id spaces are separate.
  CallgrindNames Objs;
  EXPECT_EQ(errText(Objs.resolve(R, "(7)", Out)),
            "n.out:2: name id (7) is used before it is defined");
}

TEST(CacheGeometry, SpecsRoundTrip) {
  std::optional<CacheLevel> L = parseCacheLevelSpec("32768,8,64");
  ASSERT_TRUE(L);
  EXPECT_EQ(L->Size, 32768u);
  EXPECT_EQ(L->Assoc, 8u);
  EXPECT_EQ(L->Line, 64u);
  EXPECT_EQ(L->waySize(), 4096u);
  EXPECT_EQ(cacheLevelSpec(*L), "32768,8,64");
  EXPECT_TRUE(parseCacheLevelSpec(" 4096, 2 ,64"));
  EXPECT_FALSE(parseCacheLevelSpec("4096,2"));
  EXPECT_FALSE(parseCacheLevelSpec("big"));
  EXPECT_EQ(CacheLevel().waySize(), 0u);

  CacheGeometry G{{4096, 2, 64}, {32768, 8, 64}, {262144, 8, 64}};
  std::string T = geometryText(G);
  EXPECT_EQ(T, "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64");
  CacheGeometry Back = parseCacheGeometry(T);
  EXPECT_EQ(cacheLevelSpec(Back.LL), "262144,8,64");
  EXPECT_EQ(parseCacheGeometry("I1=abc D1=1,2 XX=1,1,1").I1.Size, 0u);
}

} // namespace
