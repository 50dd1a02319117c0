//===- CachegrindTest.cpp - the roofline's per-instruction cost reader ----===//
#include "keel/Roofline/Cachegrind.h"

#include "gtest/gtest.h"

using namespace keel::roofline;
using namespace llvm;

namespace {

std::string errText(Error E) { return toString(std::move(E)); }

TEST(RooflineCallgrind, SelfCostsPerInstruction) {
  const char *Text = "# callgrind format\n"
                     "positions: instr\n"
                     "events: Ir Dr Dw D1mr\n"
                     "ob=/bin/prog\n"
                     "fn=kernel\n"
                     "0x401000 10 4 0 1\n"
                     "0x401004 10\n"
                     "cob=/lib/libc.so\n"
                     "cfn=memcpy\n"
                     "calls=1 0x5000\n"
                     "0x401008 99 99 99 99\n" // the call's inclusive cost
                     "0x401000 5 1\n"
                     "ob=???\n"
                     "0x7000 3\n"
                     "totals: 28 5 0 1\n";
  Expected<InstructionCosts> C = parseCallgrind(Text, "cg.out");
  ASSERT_TRUE(bool(C)) << errText(C.takeError());
  const auto &Prog = C->ByObject.at("/bin/prog");
  ASSERT_EQ(Prog.size(), 2u);
  EXPECT_EQ(Prog.at(0x401000)[Ir], 15u);
  EXPECT_EQ(Prog.at(0x401000)[Dr], 5u);
  EXPECT_EQ(Prog.at(0x401000)[D1mr], 1u);
  EXPECT_EQ(Prog.at(0x401004)[Ir], 10u);
  EXPECT_EQ(C->FunctionOf.at("/bin/prog").at(0x401004), "kernel");
  EXPECT_EQ(C->UnknownObjectIr, 3u);
  EXPECT_EQ(C->Totals[Ir], 28u);
  EXPECT_EQ(C->Totals[D1mr], 1u);
}

TEST(RooflineCallgrind, BadInputNamesFileAndLine) {
  struct Case {
    const char *Text, *Want;
  } Cases[] = {
      {"positions: instr line\n",
       "cg.out:1: positions must be 'instr' (run callgrind with "
       "--dump-instr=yes --dump-line=no)"},
      {"positions: instr\n0x10 1\n", "cg.out:2: cost line before 'events:'"},
      {"events: Ir\n0x10 1\n",
       "cg.out:2: no 'positions: instr' header: run callgrind with "
       "--dump-instr=yes --dump-line=no"},
      {"positions: instr\nevents: Ir\n0xZZ 1\n", "cg.out:3: bad address '0xZZ'"},
      {"positions: instr\nevents: Ir\n0x10 x\n", "cg.out:3: bad cost 'x'"},
      {"events: Ir\n", "cg.out: not a callgrind --dump-instr=yes output"},
  };
  for (const Case &C : Cases) {
    Expected<InstructionCosts> R = parseCallgrind(C.Text, "cg.out");
    ASSERT_FALSE(bool(R)) << C.Text;
    EXPECT_EQ(errText(R.takeError()), C.Want);
  }
}

} // namespace
