//===- LBRCommands.cpp - layout-profile blocks / timeline -----------------===//
//
// The options of the two subcommands; the analyses are in keelLBR
// (keel/LBR/LBRReports.h).
//
//===----------------------------------------------------------------------===//
#include "LBRCommands.h"

#include "keel/LBR/LBRReports.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Text.h"

using namespace llvm;

namespace keel {

cl::OptionCategory &lbrCategory() {
  static cl::OptionCategory C("layout-profile blocks/timeline options");
  return C;
}

namespace {

cl::SubCommand BlocksCmd("blocks",
                         "Block table: cycles = CPI x instructions per LBR "
                         "block (Yamamoto et al.)");
cl::SubCommand TimelineCmd("timeline",
                           "Time line from LBR records, methods 1/2/3 and "
                           "hardware cycles (Ono et al.)");

#define BOTH cl::cat(lbrCategory()), cl::sub(BlocksCmd), cl::sub(TimelineCmd)

cl::opt<std::string> Bin("binary", cl::desc("The profiled binary"),
                         cl::value_desc("path"), cl::Required, BOTH);
cl::opt<std::string> Input(cl::Positional, cl::desc("<samples>"), cl::Required,
                           BOTH);
cl::opt<bool> PidField("perf-pid-field",
                       cl::desc("perf script: a single number before the "
                                "entries is the pid"),
                       BOTH);
cl::opt<unsigned> Pid("pid", cl::desc("perf script: only this process"),
                      cl::init(0), BOTH);
cl::opt<std::string> PathInProfile(
    "binary-path-in-profile",
    cl::desc("The binary's path as the recording names it (a mapping of "
             "this path is the binary's), for recordings without build ids "
             "of a binary since copied or renamed"),
    cl::value_desc("path"), BOTH);
cl::opt<std::string> Truth("truth",
                           cl::desc("Truth file of layout-lbrgen: print each "
                                    "estimate's error against it"),
                           cl::value_desc("path"), BOTH);
// A bare --json / --csv is stdout, as in layout-sweep.
cl::opt<std::string> JsonOut("json",
                             cl::desc("Write JSON here ('-' or no value: stdout)"),
                             cl::value_desc("path"), cl::ValueOptional, BOTH);
cl::opt<std::string> CsvOut("csv",
                            cl::desc("Write CSV here ('-' or no value: stdout)"),
                            cl::value_desc("path"), cl::ValueOptional, BOTH);
cl::opt<unsigned> Top("top", cl::desc("Rows in the text report (0: all)"),
                      cl::init(10), BOTH);

cl::opt<double> CPI("cpi",
                    cl::desc("CPI to use when the samples carry no cycle and "
                             "instruction counts (perf script text)"),
                    cl::init(0), cl::cat(lbrCategory()), cl::sub(BlocksCmd));
cl::opt<bool> PerSample("per-sample",
                        cl::desc("Print every block of every sample (the "
                                 "paper's table) instead of the summary"),
                        cl::cat(lbrCategory()), cl::sub(BlocksCmd));

cl::opt<std::string> SvgOut("svg",
                            cl::desc("Write the time line of --method as SVG"),
                            cl::value_desc("path"), cl::cat(lbrCategory()),
                            cl::sub(TimelineCmd));
cl::opt<std::string> HtmlOut("html",
                             cl::desc("Write every method's time line and the "
                                      "per-sample call sequence as HTML"),
                             cl::value_desc("path"), cl::cat(lbrCategory()),
                             cl::sub(TimelineCmd));
cl::opt<std::string> Method("method",
                            cl::desc("Method of the SVG: ip, uniform (1), "
                                     "profile (2), sample (3), hw, hwshare"),
                            cl::init("sample"), cl::cat(lbrCategory()),
                            cl::sub(TimelineCmd));
cl::opt<unsigned> Windows("windows",
                          cl::desc("Sample windows drawn in SVG/HTML (0: all)"),
                          cl::init(200), cl::cat(lbrCategory()),
                          cl::sub(TimelineCmd));
cl::opt<unsigned> Sequence(
    "sequence",
    cl::desc("Print the call sequence (FROM0 newest ... oldest) of the first "
             "N samples"),
    cl::init(0), cl::cat(lbrCategory()), cl::sub(TimelineCmd));
cl::opt<unsigned> Rows("rows", cl::desc("Function rows in SVG/HTML"),
                       cl::init(12), cl::cat(lbrCategory()),
                       cl::sub(TimelineCmd));

const char *const Tool = "layout-profile";

LBRReportOptions reportOptions() {
  LBRReportOptions O;
  O.Input = Input;
  O.Perf.FirstFieldIsPid = PidField;
  O.Perf.Pid = Pid;
  O.Perf.BinaryPathInProfile = PathInProfile;
  O.Truth = Truth;
  O.Out.Json = JsonOut;
  O.Out.Csv = CsvOut;
  O.Out.Svg = SvgOut;
  O.Out.Html = HtmlOut;
  O.Top = Top;
  O.CPI = CPI;
  O.PerSample = PerSample;
  O.Method = Method;
  O.Windows = Windows;
  O.Sequence = Sequence;
  O.Rows = Rows;
  return O;
}

} // namespace

bool lbrSubcommandActive() { return BlocksCmd || TimelineCmd; }

Error runLBRSubcommand() {
  for (cl::opt<std::string> *O : {&JsonOut, &CsvOut})
    if (O->getNumOccurrences() && O->empty())
      *O = "-";
  auto B = Binary::open(Bin);
  if (!B)
    return B.takeError();
  LBRReportOptions O = reportOptions();
  QualityReport Q;
  auto R = BlocksCmd ? runBlocksReport(O, **B, Q) : runTimelineReport(O, **B, Q);
  if (!R)
    return R.takeError();
  if (!O.Out.stdoutTaken())
    outs() << printableText(R->Text); // symbol names, escaped
  Q.print(errs(), Tool, R->NumEntries, "LBR entries");
  return Error::success();
}

} // namespace keel
