#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Support/Text.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace keel;
using namespace llvm;

TEST(SplitCommandTemplate, NoShellExpansion) {
  auto W = splitCommandTemplate("make relink 'PAD={pad}' \"OUT=a b\" $(rm -rf /);x");
  ASSERT_TRUE(bool(W));
  ASSERT_EQ(W->size(), 7u);
  EXPECT_EQ((*W)[2], "PAD={pad}");
  EXPECT_EQ((*W)[3], "OUT=a b");
  EXPECT_EQ((*W)[4], "$(rm");
  EXPECT_EQ((*W)[5], "-rf");
  EXPECT_EQ((*W)[6], "/);x");
}

TEST(SplitCommandTemplate, UnterminatedQuote) {
  auto W = splitCommandTemplate("a 'b");
  EXPECT_FALSE(bool(W));
  consumeError(W.takeError());
}

TEST(InputError, NamesFileAndLine) {
  Error E = inputError("x.fdata", 12, "bad hex '{0}'", "zz");
  EXPECT_EQ(toString(std::move(E)), "x.fdata:12: bad hex 'zz'");
}

TEST(ReportError, ExitCodes) {
  EXPECT_EQ(reportError("t", make_error<UnavailableError>("no PMU")), 3);
  EXPECT_EQ(reportError("t", inputError("f", 1, "bad")), 2);
}

TEST(WriteOutput, NothingLeftOnFailure) {
  auto Dir = makePrivateTempDir("keel-test");
  ASSERT_TRUE(bool(Dir));
  SmallString<128> P(*Dir);
  sys::path::append(P, "out.txt");
  Error E = writeOutput(P, [](raw_ostream &OS) -> Error {
    OS << "partial";
    return makeError("failed halfway");
  });
  EXPECT_TRUE(bool(E));
  consumeError(std::move(E));
  EXPECT_FALSE(sys::fs::exists(P));
  std::error_code EC;
  EXPECT_TRUE(sys::fs::directory_iterator(*Dir, EC) == sys::fs::directory_iterator());
  Error Ok = writeOutput(P, [](raw_ostream &OS) -> Error {
    OS << "whole";
    return Error::success();
  });
  ASSERT_FALSE(bool(Ok)) << toString(std::move(Ok));
  auto Text = readWholeFile(P);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ(*Text, "whole");
  sys::fs::remove_directories(*Dir);
}

TEST(QualityReport, Summarises) {
  QualityReport Q;
  Q.count("are outside the binary", 3);
  std::string S;
  raw_string_ostream OS(S);
  Q.print(OS, "tool", 300, "records");
  EXPECT_NE(S.find("3 of 300 records (1.00%) are outside the binary"), std::string::npos);
}

TEST(QualityReport, KindsWithTheirOwnTotalAndNoNOfZero) {
  // IP-only samples are a share of the samples, not of the branch entries
  // the print() total counts; a kind with no total has no share.
  QualityReport Q;
  Q.countOf("are IP-only samples outside the binary's code (dropped)", 62,
            1432, "samples");
  Q.count("have one end outside the binary's code", 15);
  Q.count("are more than there are", 40);
  std::string S;
  raw_string_ostream OS(S);
  Q.print(OS, "tool", 21910, "brstack entries");
  EXPECT_NE(S.find("62 of 1432 samples (4.33%) are IP-only samples"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("15 of 21910 brstack entries (0.07%) have one end"),
            std::string::npos)
      << S;
  std::string Z;
  raw_string_ostream ZS(Z);
  Q.print(ZS, "tool", 0, "brstack entries");
  EXPECT_NE(Z.find("warning: 15 brstack entries have one end"),
            std::string::npos)
      << Z;
  EXPECT_EQ(Z.find(" of 0 "), std::string::npos) << Z;
  std::string L;
  raw_string_ostream LS(L);
  Q.print(LS, "tool", 20, "records");
  EXPECT_NE(L.find("warning: 40 records are more than there are"),
            std::string::npos)
      << L;
}

TEST(QualityReport, DescribesOneKind) {
  QualityReport Q;
  Q.countOf("are IP-only samples", 62, 1432, "samples");
  Q.countOf("have one end outside", 3, 0, "brstack entries");
  Q.count("are odd", 2);
  EXPECT_EQ(Q.describe("are IP-only samples"),
            "62 of 1432 samples (4.33%) are IP-only samples");
  EXPECT_EQ(Q.describe("have one end outside"),
            "3 brstack entries have one end outside");
  EXPECT_EQ(Q.describe("are odd"), "2 are odd");
}

TEST(EscapeMarkup, EveryReservedCharacter) {
  EXPECT_EQ(keel::escapeMarkup("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(keel::escapeMarkup("plain text"), "plain text");
  EXPECT_EQ(keel::escapeMarkup(""), "");
}

TEST(PrintableText, EscapesControlBytesKeepsText) {
  EXPECT_EQ(printableMessage("bad hex 'zz'"), "bad hex 'zz'");
  EXPECT_EQ(printableMessage("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(printableMessage(StringRef("a\x1b[31m\0b\xff\n", 10)),
            "a\\x1b[31m\\x00b\\xff\\n");
  // C1 controls, overlong and truncated UTF-8 are escaped byte by byte.
  EXPECT_EQ(printableMessage("\xc2\x9b" "1m"), "\\xc2\\x9b1m");
  EXPECT_EQ(printableMessage("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printableMessage("x\xe2\x82"), "x\\xe2\\x82");
  // Idempotent: escaping twice changes nothing.
  std::string Once = printableMessage("\x01\x02 ok");
  EXPECT_EQ(printableMessage(Once), Once);
}

TEST(PrintableText, QuoteInputBoundsLength) {
  EXPECT_EQ(quoteInput("short"), "short");
  std::string Long(100, 'a');
  EXPECT_EQ(quoteInput(Long, 10), "aaaaaaaaaa...");
  // Never cut inside an escape.
  EXPECT_EQ(quoteInput("abcdefgh\x01xyz", 10), "abcdefgh...");
}

TEST(PrintableText, FirstBinaryByte) {
  EXPECT_EQ(firstBinaryByte("1 main 0 1 foo 0 0 5\n\tx\r\n"), std::nullopt);
  EXPECT_EQ(firstBinaryByte("caf\xc3\xa9\n"), std::nullopt);
  EXPECT_EQ(firstBinaryByte(StringRef("ab\0c", 4)), std::optional<size_t>(2));
  EXPECT_EQ(firstBinaryByte("ok \x1b[31m"), std::optional<size_t>(3));
  EXPECT_EQ(firstBinaryByte("ok \xff"), std::optional<size_t>(3));
  // Only the first Limit bytes count; a sequence cut by the limit is text.
  EXPECT_EQ(firstBinaryByte("abc\xff", 3), std::nullopt);
  EXPECT_EQ(firstBinaryByte("ab\xc3\xa9", 3), std::nullopt);
}

TEST(PrintableText, ReportErrorNeverPrintsRawBytes) {
  // InputError's text is escaped whatever the caller formatted into it.
  Error E = inputError("f\x1b", 3, "bad token '{0}'", "\x1b]0;x\x07");
  EXPECT_EQ(toString(std::move(E)), "f\\x1b:3: bad token '\\x1b]0;x\\x07'");
}

// keel/Support/Input.h: what is not a regular file is refused at once (a
// FIFO with no writer must not block the open), a file over its cap is
// refused from its size, and text is sniffed before it is read.
TEST(ReadInputFile, RefusesWhatIsNotARegularFile) {
  auto Dir = makePrivateTempDir("keel-input");
  ASSERT_TRUE(bool(Dir));
  SmallString<128> Fifo(*Dir);
  sys::path::append(Fifo, "fifo");
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  auto F = readInputFile(Fifo, InputKind::Profile);
  ASSERT_FALSE(bool(F));
  EXPECT_NE(toString(F.takeError()).find("a FIFO, not a regular file"),
            std::string::npos);
  auto Z = readInputFile("/dev/zero", InputKind::Text);
  ASSERT_FALSE(bool(Z));
  EXPECT_EQ(toString(Z.takeError()),
            "/dev/zero: cannot read: a character device, not a regular file");
  auto D = readInputFile(*Dir, InputKind::Binary);
  ASSERT_FALSE(bool(D));
  EXPECT_NE(toString(D.takeError()).find("a directory"), std::string::npos);
  auto S = readInputFile("-", InputKind::Binary);
  ASSERT_FALSE(bool(S));
  consumeError(S.takeError());
  sys::fs::remove_directories(*Dir);
}

TEST(ReadInputFile, CapsAndSniffs) {
  auto Dir = makePrivateTempDir("keel-input");
  ASSERT_TRUE(bool(Dir));
  SmallString<128> Big(*Dir), Bin(*Dir), Ok(*Dir);
  sys::path::append(Big, "big");
  sys::path::append(Bin, "bin");
  sys::path::append(Ok, "ok");
  {
    int FD;
    ASSERT_FALSE(sys::fs::openFileForWrite(Big, FD));
    ASSERT_FALSE(sys::fs::resize_file(FD, TextCap + 1)); // sparse
    ::close(FD);
  }
  auto B = readInputFile(Big, InputKind::Text);
  ASSERT_FALSE(bool(B));
  EXPECT_NE(toString(B.takeError()).find("more than the 256 MiB"),
            std::string::npos);
  // Mapped kinds take it (a mapping costs no memory until it is read).
  auto M = readInputFile(Big, InputKind::Profile);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ((*M)->getBufferSize(), TextCap + 1);
  M->reset();
  ASSERT_FALSE(writeOutput(Bin, [](raw_ostream &OS) {
    OS << "line one\nab\x01zz";
    return Error::success();
  }));
  auto T = readInputFile(Bin, InputKind::Text);
  ASSERT_FALSE(bool(T));
  EXPECT_EQ(toString(T.takeError()),
            std::string(Bin) + ":2:3: binary data where text was expected "
                               "(byte 11: '\\x01zz')");
  auto Bytes = readWholeFile(Bin);
  ASSERT_TRUE(bool(Bytes));
  EXPECT_EQ(Bytes->size(), 14u);
  ASSERT_FALSE(writeOutput(Ok, [](raw_ostream &OS) {
    OS << "{\"a\": 1}\n";
    return Error::success();
  }));
  auto Text = readTextFile(Ok);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ(*Text, "{\"a\": 1}\n");
  sys::fs::remove_directories(*Dir);
}

TEST(PrintableMessage, EscapesBidiAndFormatCharacters) {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+200F
  // RIGHT-TO-LEFT MARK; printable UTF-8 (e-acute) stays.
  EXPECT_EQ(printableMessage("\xe2\x80\xaeniam"), "\\u202eniam");
  EXPECT_EQ(printableMessage("a\xe2\x81\xa6" "b\xe2\x80\x8f" "c\xc3\xa9"),
            "a\\u2066b\\u200fc\xc3\xa9");
  EXPECT_EQ(printableMessage(printableMessage("\xe2\x80\xae")), "\\u202e");
  EXPECT_EQ(printableText("f\tg\n\xe2\x80\xaeh\x1b"), "f\tg\n\\u202eh\\x1b");
  // Still text to the sniffer: a symbol name with one is not binary data.
  EXPECT_FALSE(firstBinaryByte("main\xe2\x80\xae\n").has_value());
}

