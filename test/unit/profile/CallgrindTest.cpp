//===- CallgrindTest.cpp - readCallgrind on valgrind's own output ---------===//
//
// Fixtures in test/Inputs/callgrind are what valgrind 3.19 wrote for
// tiny.s (a loop of 10 calls to a local function with a branch), built
// non-PIE at 0x401000 and as a static PIE, with and without
// --compress-strings/--compress-pos; plus hand-edited variants (a load
// bias, two parts, code under the unnamed object). Bad input is inline.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

namespace {

std::string input(StringRef Name) {
  return (Twine(KEEL_TEST_INPUTS) + "/callgrind/" + Name).str();
}

std::unique_ptr<Binary> openBinary(StringRef Name) {
  auto B = Binary::open((Twine(KEEL_CALLGRIND_BINARIES) + "/" + Name).str());
  if (!B) {
    ADD_FAILURE() << toString(B.takeError());
    return nullptr;
  }
  return std::move(*B);
}

AddressProfile read(const Binary &Bin, StringRef Fixture,
                    QualityReport &Q) {
  auto Text = readWholeFile(input(Fixture));
  EXPECT_TRUE(bool(Text)) << Fixture.str();
  if (!Text) {
    consumeError(Text.takeError());
    return {};
  }
  auto AP = readCallgrind(*Text, Fixture, Bin, Q);
  EXPECT_TRUE(bool(AP)) << (AP ? "" : toString(AP.takeError()));
  return AP ? std::move(*AP) : AddressProfile();
}

/// The "summary:" total of a fixture: every Ir callgrind counted.
uint64_t summaryIr(StringRef Fixture) {
  auto Text = readWholeFile(input(Fixture));
  if (!Text) {
    consumeError(Text.takeError());
    return 0;
  }
  StringRef T = *Text;
  size_t At = T.find("\nsummary: ");
  uint64_t N = 0;
  if (At != StringRef::npos)
    (void)T.substr(At + 10).split('\n').first.trim().getAsInteger(10, N);
  return N;
}

uint64_t executed(const AddressProfile &AP, const Binary &Bin,
                  StringRef Function) {
  QualityReport Q;
  auto Stats = functionStats(AP, Bin, Q);
  EXPECT_TRUE(bool(Stats));
  if (!Stats) {
    consumeError(Stats.takeError());
    return 0;
  }
  for (const FunctionStats &F : *Stats)
    if (F.Name == Function)
      return F.Instructions;
  return 0;
}

uint64_t sym(const Binary &Bin, StringRef Name, uint64_t Off = 0) {
  const SymbolInfo *S = Bin.functionNamed(Name);
  EXPECT_NE(S, nullptr) << Name.str();
  return S ? S->Addr + Off : 0;
}

// Offsets in tiny.s (listed in its header comment): _start+0x7 call f,
// +0x14 jne loop (to +0x5); f+0x6 je .Leven (+0xc).
void expectTinyProfile(const AddressProfile &AP, const Binary &Bin,
                       uint64_t Runs) {
  uint64_t S = sym(Bin, "_start"), F = sym(Bin, "f");
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Taken;
  for (const auto &[K, C] : AP.Branches)
    Taken[K] = C.Count;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Want = {
      {{S + 0x7, F}, 10 * Runs},          // call f, every iteration
      {{S + 0x14, S + 0x5}, 9 * Runs},    // the loop's back edge
      {{F + 0x6, F + 0xc}, 5 * Runs},     // je .Leven for i = 0, 2, .. 8
  };
  EXPECT_EQ(Taken, Want);
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Ranges(
      AP.FallThroughs.begin(), AP.FallThroughs.end());
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> WantRanges = {
      // Runs go on over calls that return, as BOLT's blocks do.
      {{S, S + 0x14}, 1 * Runs},       // entry .. jne (first iteration)
      {{S + 0x5, S + 0x14}, 9 * Runs}, // loop head .. jne
      {{F, F + 0x6}, 5 * Runs},        // test; je (taken)
      {{F, F + 0xb}, 5 * Runs},        // test; je; lea; ret
      {{F + 0xc, F + 0x10}, 5 * Runs}, // .Leven .. ret
  };
  EXPECT_EQ(Ranges, WantRanges);
}

TEST(Callgrind, NonPIECompressed) {
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  QualityReport Q;
  AddressProfile AP = read(*Bin, "tiny.callgrind", Q);
  expectTinyProfile(AP, *Bin, 1);
  EXPECT_TRUE(Q.empty());
  // Per-function executed instructions add up to callgrind's own total.
  uint64_t Start = executed(AP, *Bin, "_start"), F = executed(AP, *Bin, "f");
  EXPECT_EQ(Start + F, summaryIr("tiny.callgrind"));
  EXPECT_EQ(F, 45u); // 10 x (test, je) + 5 x (lea, ret) + 5 x (mov, shl, ret)
}

TEST(Callgrind, UncompressedEqualsCompressed) {
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  QualityReport Q1, Q2;
  AddressProfile A = read(*Bin, "tiny.callgrind", Q1);
  AddressProfile B = read(*Bin, "tiny.u.callgrind", Q2);
  EXPECT_EQ(A.Branches, B.Branches);
  EXPECT_EQ(A.FallThroughs, B.FallThroughs);
  expectTinyProfile(B, *Bin, 1);
}

TEST(Callgrind, PIEHasLinkTimeAddresses) {
  auto Pie = openBinary("tiny-pie");
  auto NoPie = openBinary("tiny");
  ASSERT_TRUE(Pie && NoPie);
  ASSERT_TRUE(Pie->isPIE());
  // tiny-pie-unnamed has f under valgrind's unnamed object "???" at
  // run-time addresses, as valgrind reports .init and .plt code.
  for (StringRef Fixture : {"tiny-pie.callgrind", "tiny-pie.u.callgrind",
                            "tiny-pie-biased.callgrind",
                            "tiny-pie-unnamed.callgrind"}) {
    SCOPED_TRACE(Fixture.str());
    QualityReport Q;
    AddressProfile AP = read(*Pie, Fixture, Q);
    expectTinyProfile(AP, *Pie, 1);
    EXPECT_TRUE(Q.empty());
    // The same code at other addresses: symbolized, both are identical.
    QualityReport Q2, Q3;
    AddressProfile Other = read(*NoPie, "tiny.callgrind", Q2);
    BranchProfile P1 = symbolize(AP, *Pie, Q3), P2 = symbolize(Other, *NoPie, Q3);
    EXPECT_EQ(P1.Branches, P2.Branches);
    EXPECT_EQ(P1.FallThroughs, P2.FallThroughs);
  }
}

TEST(Callgrind, PartsAreSummed) {
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  QualityReport Q;
  expectTinyProfile(read(*Bin, "tiny-parts.callgrind", Q), *Bin, 2);
}

/// tiny.u.callgrind with \p From replaced by \p To.
std::string edited(StringRef From, StringRef To) {
  auto Text = readWholeFile(input("tiny.u.callgrind"));
  if (!Text) {
    consumeError(Text.takeError());
    return "";
  }
  std::string S = *Text;
  size_t At = S.find(From.str());
  EXPECT_NE(At, std::string::npos) << From.str();
  if (At != std::string::npos)
    S.replace(At, From.size(), To.str());
  return S;
}

TEST(Callgrind, SkippedPLTCostIsNotAnExecution) {
  // --skip-plt=yes charges a stub's instructions to the call site as a
  // second cost line at the call's address after its calls= lines.
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  std::string Text = edited("0x401007 0 5\n", "0x401007 0 5\n0x401007 0 3\n");
  QualityReport Q;
  auto AP = readCallgrind(Text, "skipped.callgrind", *Bin, Q);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  expectTinyProfile(*AP, *Bin, 1);
  EXPECT_EQ(Q.get("instructions of skipped code (PLT stubs) charged to call "
                  "sites"),
            3u);
}

TEST(Callgrind, JumpToTheNextInstructionIsAFallThrough) {
  // valgrind may end a block at any instruction and report the step to the
  // next one as a jump; the runs must not break there.
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  std::string Text = edited("0x401000 0 1\n",
                            "0x401000 0 1\njump=1 0x401002 0\n0x401000 0\n");
  QualityReport Q;
  auto AP = readCallgrind(Text, "split.callgrind", *Bin, Q);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  expectTinyProfile(*AP, *Bin, 1);
  EXPECT_TRUE(Q.empty());
}

std::string errorOf(const Binary &Bin, StringRef Text) {
  QualityReport Q;
  auto AP = readCallgrind(Text, "bad.callgrind", Bin, Q);
  if (AP)
    return "no error";
  std::string Msg;
  handleAllErrors(AP.takeError(), [&](const InputError &E) {
    Msg = E.file() + ":" + std::to_string(E.line()) + ": " + E.detail();
  });
  return Msg.empty() ? "not an InputError" : Msg;
}

TEST(Callgrind, BadInputNamesFileAndLine) {
  auto Bin = openBinary("tiny");
  ASSERT_TRUE(Bin);
  const char *Head = "positions: instr line\nevents: Ir\nob=/x/tiny\nfn=f\n";
  struct Case {
    std::string Text, Want;
  } Cases[] = {
      {std::string(Head) + "0x401026 0 1\nbogus=1\n",
       "bad.callgrind:6: unknown specification 'bogus='"},
      {std::string(Head) + "0xZZ 0 1\n", "bad.callgrind:5: bad number '0xZZ'"},
      {std::string(Head) + "0x401026 0 x\n", "bad.callgrind:5: bad cost 'x'"},
      {std::string(Head) + "0x401026 0 1\njcnd=5 +6 0\n* 0\n",
       "bad.callgrind:6: bad jcnd count '5'"},
      {std::string(Head) + "0x401026 0 1\njcnd=6/5 +6 0\n* 0\n",
       "bad.callgrind:6: jcnd taken count 6 exceeds executions 5"},
      {std::string(Head) + "cfn=(99)\n",
       "bad.callgrind:5: name id (99) is used before it is defined"},
      {std::string(Head) + "0x401026 0 1\ncalls=1 0x401026 0\n",
       "bad.callgrind:6: file ends after a calls=/jump= line without its "
       "source line"},
      {std::string(Head) + "0x401026 0 1\njump=1 0x401026\n",
       "bad.callgrind:6: expected 2 position field(s)"},
      {std::string(Head) + "what is this\n",
       "bad.callgrind:5: unrecognised line 'what is this'"},
      {"positions: line\nevents: Ir\nfn=f\n10 1\n",
       "bad.callgrind:4: no instruction positions ('positions: instr'); "
       "record with --dump-instr=yes"},
      {"positions: instr\nevents: Dr Dw\n",
       "bad.callgrind:2: no Ir event in 'events: Dr Dw'"},
      {"positions: instr\nfn=f\n0x401026 1\n",
       "bad.callgrind:3: cost data before the 'events:' line"},
      {"positions: instr\nspeed: fast\n",
       "bad.callgrind:2: unknown header line 'speed:'"},
      {"positions: instr\nevents: Ir\nob=/x/other\nfn=f\n0x401026 1\n",
       "bad.callgrind:0: no object in the profile is the binary"},
      // A profile of another build: tiny-pie's addresses given to tiny.
      {"positions: instr\nevents: Ir\nob=/x/tiny\nfn=f\n0x1226 1\n",
       "bad.callgrind:0: none of the 1 executed instructions of /x/tiny is in "
       "the binary's code (a profile of another build?)"},
  };
  for (const Case &C : Cases) {
    std::string Got = errorOf(*Bin, C.Text);
    EXPECT_TRUE(StringRef(Got).starts_with(C.Want))
        << "got:  " << Got << "\nwant: " << C.Want;
  }
}

} // namespace
