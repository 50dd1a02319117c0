// libFuzzer target: readPerfScript (perf script brstack text). The first
// byte selects the options (keep samples, pid filter, pid-first form).
#include "FuzzCommon.h"
#include "keel/Profile/Formats.h"
using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  PerfScriptOptions Opts;
  if (Size) {
    Opts.KeepSamples = Data[0] & 1;
    Opts.FirstFieldIsPid = Data[0] & 2;
    Opts.Pid = (Data[0] & 4) ? 42 : 0;
    ++Data, --Size;
  }
  QualityReport Q;
  keel_fuzz::consume(
      readPerfScript(keel_fuzz::text(Data, Size), "fuzz.perf", nullptr, Q, Opts));
  return 0;
}
