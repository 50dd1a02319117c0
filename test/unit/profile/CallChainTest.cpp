//===- CallChainTest.cpp - caller->callee arcs of sampled callchains ------===//
//
// callChainArcs on hand-made chains (context markers, return addresses,
// recursion, frames outside what is counted), and the perf script text
// reader on callchain samples (no binary: addresses kept as printed).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/CallChain.h"
#include "keel/Profile/Formats.h"

#include "gtest/gtest.h"

#include <linux/perf_event.h>

using namespace keel;
using namespace llvm;

namespace {

using Pairs = std::vector<std::pair<uint64_t, uint64_t>>;

/// Functions of 0x100 bytes: 0x1000 is "A", 0x1100 "B", ...; 0 elsewhere.
uint64_t byFunction(uint64_t A) {
  return A >= 0x1000 && A < 0x2000 ? A & ~uint64_t(0xff) : 0;
}

Pairs arcs(ArrayRef<uint64_t> Frames,
           function_ref<uint64_t(uint64_t)> Key = byFunction) {
  SmallVector<std::pair<uint64_t, uint64_t>, 8> Out;
  callChainArcs(Frames, Key, Out);
  return Pairs(Out.begin(), Out.end());
}

TEST(CallChain, ContextMarkers) {
  EXPECT_TRUE(isCallChainContext(PERF_CONTEXT_USER));
  EXPECT_TRUE(isCallChainContext(PERF_CONTEXT_KERNEL));
  EXPECT_TRUE(isCallChainContext(PERF_CONTEXT_MAX));
  EXPECT_TRUE(isCallChainContext(PERF_CONTEXT_GUEST_USER));
  EXPECT_FALSE(isCallChainContext(PERF_CONTEXT_MAX - 1));
  EXPECT_FALSE(isCallChainContext(0xffffffff81000000ULL)); // kernel text
}

TEST(CallChain, FrameAfterCalledFrameBefore) {
  // The IP in C; C was called from B, B from A.
  EXPECT_EQ(arcs({PERF_CONTEXT_USER, 0x1210, 0x1120, 0x1030}),
            (Pairs{{0x1100, 0x1200}, {0x1000, 0x1100}}));
}

TEST(CallChain, ReturnAddressMinusOne) {
  // A return address at the first byte of the next function belongs to
  // the call at the end of the function before it; the IP is exact.
  std::vector<uint64_t> Seen;
  auto Key = [&](uint64_t A) {
    Seen.push_back(A);
    return byFunction(A);
  };
  EXPECT_EQ(arcs({PERF_CONTEXT_USER, 0x1200, 0x1200}, Key),
            (Pairs{{0x1100, 0x1200}}));
  EXPECT_EQ(Seen, (std::vector<uint64_t>{0x1200, 0x11ff}));
}

TEST(CallChain, EachPairOncePerSample) {
  // A -> B -> A -> B -> C: A->B and B->A once each, however deep.
  EXPECT_EQ(arcs({0x1210, 0x1110, 0x1010, 0x1110, 0x1010}),
            (Pairs{{0x1100, 0x1200}, {0x1000, 0x1100}, {0x1100, 0x1000}}));
  // Direct recursion gives no pair (a function calling itself).
  EXPECT_EQ(arcs({0x1010, 0x1020, 0x1020, 0x1120}),
            (Pairs{{0x1100, 0x1000}}));
}

TEST(CallChain, FramesNotCountedBreakOnlyTheirPairs) {
  // B called a library (0x7f...) which called back into C: no pair joins
  // B and C, and A -> B stays.
  EXPECT_EQ(arcs({0x1210, 0x7f0000001234, 0x1120, 0x1030}),
            (Pairs{{0x1000, 0x1100}}));
  // perf's 0 at the end of a chain never reaches the key.
  bool AskedZero = false;
  auto Key = [&](uint64_t A) {
    AskedZero |= A == 0 || A == ~uint64_t(0);
    return byFunction(A);
  };
  EXPECT_EQ(arcs({0x1210, 0x1120, 0}, Key), (Pairs{{0x1100, 0x1200}}));
  EXPECT_FALSE(AskedZero);
}

TEST(CallChain, NoPairAcrossContexts) {
  // Kernel frames, then the user context: its first frame is the exact IP
  // of the user code (not a return address) and pairs with nothing above.
  std::vector<uint64_t> Seen;
  auto Key = [&](uint64_t A) {
    Seen.push_back(A);
    return byFunction(A);
  };
  EXPECT_EQ(arcs({PERF_CONTEXT_KERNEL, 0x1a00, 0x1b01, PERF_CONTEXT_USER,
                  0x1210, 0x1120},
                 Key),
            (Pairs{{0x1b00, 0x1a00}, {0x1100, 0x1200}}));
  EXPECT_EQ(Seen, (std::vector<uint64_t>{0x1a00, 0x1b00, 0x1210, 0x111f}));
  EXPECT_EQ(arcs({}), Pairs{});
  EXPECT_EQ(arcs({PERF_CONTEXT_USER}), Pairs{});
}

Expected<AddressProfile> readText(StringRef Text) {
  QualityReport Q;
  return readPerfScript(Text, "chains.txt", nullptr, Q);
}

TEST(CallChainText, FramesUnderTheSampleLine) {
  // perf script's default fields: comm pid time: period event:, then the
  // frames, tab-indented; a blank line after each sample.
  auto AP = readText("lua 4242  10.000100:     250000 cpu-clock: \n"
                     "\t            1210 c+0x10 (/tmp/lua)\n"
                     "\t            1120 b+0x20 (/tmp/lua)\n"
                     "\t            1030 a+0x30 (/tmp/lua)\n"
                     "\n"
                     "lua 4242  10.000200:     125000 cpu-clock: \n"
                     "\t            1110 b+0x10 (/tmp/lua)\n"
                     "\t            1030 a+0x30 (/tmp/lua)\n");
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  EXPECT_EQ(AP->NumSamples, 2u);
  EXPECT_EQ(AP->NumCallChains, 2u);
  // Without a binary the frames are kept as printed (return addresses
  // minus 1): each pair is (call site, callee's frame); the period weighs.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Want = {
      {{0x111f, 0x1210}, 250000},
      {{0x102f, 0x111f}, 250000},
      {{0x102f, 0x1110}, 125000}};
  EXPECT_EQ(AP->CallChainArcs, Want);
  // The first frame is the sample's IP.
  EXPECT_EQ(AP->IPSamples, (std::map<uint64_t, uint64_t>{{0x1110, 1},
                                                         {0x1210, 1}}));
  EXPECT_TRUE(AP->Branches.empty());
}

TEST(CallChainText, PidFieldAndNoPeriod) {
  // perf script -F pid,ip: the pid alone, weight 1 per sample; --pid
  // filters callchain samples too.
  StringRef Text = " 4242 \n\t 1210\n\t 1120\n 77 \n\t 1210\n\t 1120\n";
  auto AP = readText(Text);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  EXPECT_EQ(AP->CallChainArcs,
            (std::map<std::pair<uint64_t, uint64_t>, uint64_t>{
                {{0x111f, 0x1210}, 2}}));
  QualityReport Q;
  PerfScriptOptions O;
  O.Pid = 77;
  auto One = readPerfScript(Text, "chains.txt", nullptr, Q, O);
  ASSERT_TRUE(bool(One)) << toString(One.takeError());
  EXPECT_EQ(One->NumSamples, 1u);
  EXPECT_EQ(One->CallChainArcs.begin()->second, 1u);
}

TEST(CallChainText, IPSamplesStayIPSamples) {
  // A line without entries and without frames is still an IP sample, and
  // one with neither an IP nor frames is still an error at its own line.
  auto AP = readText("     401000\n     401004\n");
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  EXPECT_EQ(AP->IPSamples.size(), 2u);
  EXPECT_TRUE(AP->CallChainArcs.empty());
  auto Bad = readText("     401000\nlua cpu-clock:\n     401004\n");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "chains.txt:2: no brstack entries and no IP in this line");
  auto BadFrame = readText("lua 1 1.0: 10 cpu-clock:\n\t zz12 f (/x)\n");
  ASSERT_FALSE(bool(BadFrame));
  EXPECT_EQ(toString(BadFrame.takeError()),
            "chains.txt:2: bad callchain frame address 'zz12'");
}

} // namespace
