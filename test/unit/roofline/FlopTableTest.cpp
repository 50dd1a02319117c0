//===- FlopTableTest.cpp - x86 opcode names to flops ----------------------===//
#include "keel/Roofline/FlopTable.h"

#include "gtest/gtest.h"

using namespace keel::roofline;

namespace {

unsigned flops(const char *N) { return classifyOpcodeName(N).Flops; }

TEST(FlopTable, ScalarSSEAndAVX) {
  EXPECT_EQ(flops("ADDSDrr"), 1u);
  EXPECT_EQ(flops("MULSDrm"), 1u);
  EXPECT_EQ(flops("SUBSSrr_Int"), 1u);
  EXPECT_EQ(flops("VDIVSDrr"), 1u);
  EXPECT_EQ(flops("VADDSDZrr"), 1u);
  EXPECT_EQ(flops("SQRTSDr"), 1u);
}

TEST(FlopTable, PackedWidths) {
  EXPECT_EQ(flops("ADDPDrr"), 2u);
  EXPECT_EQ(flops("VADDPDrr"), 2u);
  EXPECT_EQ(flops("VADDPDYrr"), 4u);
  EXPECT_EQ(flops("VMULPSYrm"), 8u);
  EXPECT_EQ(flops("VADDPDZrr"), 8u);
  EXPECT_EQ(flops("VADDPDZ128rr"), 2u);
  EXPECT_EQ(flops("VMULPSZ256rmk"), 8u);
  EXPECT_EQ(flops("VADDSUBPDYrr"), 4u);
}

TEST(FlopTable, FMA) {
  EXPECT_EQ(flops("VFMADD231SDr"), 2u);
  EXPECT_EQ(flops("VFMADD213PDYm"), 8u);
  EXPECT_EQ(flops("VFNMADD231PDr"), 4u);
  EXPECT_EQ(flops("VFMADD231PDZr"), 16u);
  EXPECT_EQ(flops("VFMADDSUB231PSYr"), 16u);
  EXPECT_EQ(flops("VFMADDPD4Yrr"), 8u);
  EXPECT_TRUE(classifyOpcodeName("VFMSUB132SSm").IsFMA);
}

TEST(FlopTable, NotFloatingPoint) {
  for (const char *N : {"ADD32rr", "SUB64ri8", "MULX64rr", "VPADDQYrr",
                        "MOVSDrm", "VMOVAPDYrm", "DIV32r", "ADD_F32m",
                        "VMAXPDYrr", "CVTSI2SDrr", "JCC_1"})
    EXPECT_EQ(flops(N), 0u) << N;
}

TEST(FlopTable, MemoryWidth) {
  EXPECT_EQ(memoryWidthGuess("VMOVAPDYrm"), 32u);
  EXPECT_EQ(memoryWidthGuess("VADDPDZrm"), 64u);
  EXPECT_EQ(memoryWidthGuess("MOVUPSrm"), 16u);
  EXPECT_EQ(memoryWidthGuess("MOVSDrm"), 8u);
  EXPECT_EQ(memoryWidthGuess("MOV32rm"), 8u);
}

} // namespace
