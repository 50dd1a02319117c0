//===- ReportTest.cpp - text, JSON, CSV, SVG and HTML reports -------------===//
#include "keel/Support/Text.h"
#include "keel/SweepReport/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace keel::sweep;
using llvm::StringRef;

namespace {

/// 0..4096 by 256: base swings +-5% with a 2 KB period, compare is flat
/// within 0.1%, offset 512 of base crashed.
SweepResult sample() {
  SweepResult R;
  R.Binary = "bin/a<b>";
  R.Backend = "sim";
  R.Axis = "code";
  R.GeometryPreset = "small";
  R.CacheGeometry = "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64";
  R.Compare = Series{"compare", "bin/planned", {}};
  for (int64_t O = 0; O <= 4096; O += 256) {
    Measurement M;
    M.V = Variant{"base", "code", O};
    M.Cost = (O % 2048) < 1024 ? 1050 : 950;
    M.Instructions = 900;
    M.Counters = {{"Ir", 900}, {"I1mr", M.Cost > 1000 ? 15 : 5}};
    if (O == 512) {
      M.Failed = true;
      M.FailReason = "killed by signal 11";
    }
    R.Ms.push_back(M);
    Measurement C;
    C.V = Variant{"compare", "code", O};
    C.Cost = 1000 + (O % 512 ? 1 : -1);
    C.Instructions = 900;
    R.Compare->Ms.push_back(C);
  }
  return R;
}

struct Rendered {
  SweepResult R = sample();
  GateResult G;
  Rendered() {
    GateOptions O;
    O.FailOnFailedVariants = false;
    G = *evaluateGate(R, O, nullptr);
  }
  template <typename F> std::string render(F Fn) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Fn(OS, R, G);
    return S;
  }
};

size_t countOf(StringRef Haystack, StringRef Needle) {
  size_t N = 0;
  for (size_t P = Haystack.find(Needle); P != StringRef::npos;
       P = Haystack.find(Needle, P + 1))
    ++N;
  return N;
}

TEST(ReportTest, TextTable) {
  Rendered X;
  std::string T = X.render(writeTextReport);
  EXPECT_NE(T.find("layout-sweep: bin/a<b> (backend sim, axis code, preset "
                   "small, I1=4096,2,64"),
            std::string::npos);
  // Base mean over the 16 measured variants: (8*1050 + 8*950... minus the
  // failed 1050 at 512) = 15950/16... the row shows cost and vs mean.
  EXPECT_NE(T.find("    offset           cost   vs mean           Ir         "
                   "I1mr |        compare   vs mean"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("       512         FAILED         -            -"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("(killed by signal 11)"), std::string::npos);
  EXPECT_NE(T.find("period 2048 B (explains 100% of the variance, strength "
                   "1.00): I1 way size"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("verdict: spread 10.53% exceeds the resolution 0.0100% "
                   "(deterministic backend): a layout effect repeating every "
                   "2048 B"),
            std::string::npos);
  // No --max-spread, no --baseline: nothing was gated, and it says so.
  EXPECT_NE(T.find("gate: no gate set"), std::string::npos);
  EXPECT_EQ(T.find("gate: passed"), std::string::npos);
  EXPECT_EQ(T, X.render(writeTextReport)); // deterministic
}

TEST(ReportTest, JSONIsVersionedAndReadableAsAResult) {
  Rendered X;
  llvm::json::Value V = reportJSON(X.R, X.G);
  const llvm::json::Object *O = V.getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getInteger("version"), ReportVersion);
  EXPECT_EQ(O->getString("verdict")->str(), X.G.Verdict);
  const llvm::json::Object *Base =
      O->getObject("summary")->getObject("base");
  EXPECT_EQ(Base->getObject("period")->getInteger("bytes"), 2048);
  EXPECT_EQ(Base->getInteger("failed"), 1);
  EXPECT_EQ(O->getObject("noise")->getString("kind")->str(), "deterministic");
  EXPECT_EQ(O->getObject("gate")->getBoolean("failed"), false);
  // --baseline reads the report back as a SweepResult.
  SweepResult Back;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(V, Back, Root));
  EXPECT_EQ(Back.Ms.size(), X.R.Ms.size());
  ASSERT_TRUE(Back.Compare.has_value());
  EXPECT_EQ(Back.Compare->Ms.size(), X.R.Compare->Ms.size());
  EXPECT_EQ(X.render(writeJSONReport), X.render(writeJSONReport));
}

TEST(ReportTest, CSV) {
  Rendered X;
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeCSVReport(OS, X.R);
  llvm::SmallVector<StringRef> Lines;
  StringRef(S).trim().split(Lines, '\n');
  ASSERT_EQ(Lines.size(), 1 + 17u * 2);
  EXPECT_EQ(Lines[0], "series,axis,offset,status,cost,relative_to_mean,"
                      "instructions,I1mr,Ir,reason");
  EXPECT_EQ(Lines[1], "base,code,0,ok,1050,0.050000,900,15,900,");
  EXPECT_EQ(Lines[3], "base,code,512,failed,,,,,,killed by signal 11");
  EXPECT_EQ(Lines[18].substr(0, 18), "compare,code,0,ok,");
  for (StringRef L : Lines)
    EXPECT_EQ(countOf(L, ","), 9u) << L.str();
}

TEST(ReportTest, SVGPlot) {
  Rendered X;
  std::string S = X.render(writeSVGPlot);
  EXPECT_EQ(S.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), 0u);
  EXPECT_EQ(S.substr(S.size() - 7), "</svg>\n");
  EXPECT_EQ(countOf(S, "<polyline"), 2u);     // base and compare
  EXPECT_EQ(countOf(S, "<circle"), 16u);      // measured base variants
  EXPECT_EQ(countOf(S, "width=\"5\" height=\"5\""), 17u); // compare markers
  EXPECT_EQ(countOf(S, "stroke=\"#c0392b\""), 1u);        // the failed variant
  // The title escapes the binary name and names backend and geometry.
  EXPECT_NE(S.find("layout sweep: a&lt;b&gt; vs planned - cost"),
            std::string::npos);
  EXPECT_EQ(S.find("bin/a<b>"), std::string::npos);
  EXPECT_NE(S.find("bin/a&lt;b&gt;: backend sim, preset small, I1=4096,2,64"),
            std::string::npos);
  // With --compare both series share one absolute cost axis: 950 .. 1050
  // by nice steps, the compared series' mean (1000) inside it.
  EXPECT_NE(S.find(">code offset (bytes)<"), std::string::npos);
  EXPECT_NE(S.find(">cost (cost-model units)<"), std::string::npos);
  EXPECT_NE(S.find(">950<"), std::string::npos) << S;
  EXPECT_NE(S.find(">1000<"), std::string::npos);
  EXPECT_NE(S.find(">1050<"), std::string::npos);
  // No percent ticks: the value labels (right-aligned at the axis) are costs.
  // (A legend may end in a percentage: "spread 0.200%".)
  for (size_t At = S.find("text-anchor=\"end\""); At != std::string::npos;
       At = S.find("text-anchor=\"end\"", At + 1)) {
    size_t Open = S.find('>', At), Close = S.find('<', Open);
    std::string Label = S.substr(Open + 1, Close - Open - 1);
    EXPECT_EQ(Label.find('%'), std::string::npos) << Label;
  }
  // Offset ticks by 512 B: every label in bytes, none in KB.
  EXPECT_NE(S.find("class=\"offset-tick\">2048<"), std::string::npos);
  EXPECT_NE(S.find("class=\"offset-tick\">4096<"), std::string::npos);
  EXPECT_EQ(S.find(" KB<"), std::string::npos);
  // The deterministic backend's resolution around each series' mean.
  EXPECT_EQ(countOf(S, "<rect class=\"band\""), 2u);
  EXPECT_NE(S.find("grey band: resolution 0.0100%"), std::string::npos);
  EXPECT_NE(S.find("spread 10.53%, period 2048 B, 1 failed"),
            std::string::npos);
  EXPECT_NE(S.find(">base a&lt;b&gt;: spread 10.53%"), std::string::npos);
  EXPECT_NE(S.find(">compare planned: spread 0.200%"), std::string::npos);
  EXPECT_NE(S.find("times faster than"), std::string::npos);
  EXPECT_EQ(S, X.render(writeSVGPlot));
}

/// The x of every circle (base marker) in \p S.
std::vector<double> circleXs(const std::string &S) {
  std::vector<double> Xs;
  for (size_t At = 0; (At = S.find("<circle cx=\"", At)) != std::string::npos;
       ++At)
    Xs.push_back(std::stod(S.substr(At + 12)));
  return Xs;
}

TEST(ReportTest, OneSeriesPlotIsRelativeWithEveryPointInsideTheFrame) {
  Rendered X;
  X.R.Compare.reset();
  X.G = *evaluateGate(X.R, GateOptions{}, nullptr);
  std::string S = X.render(writeSVGPlot);
  EXPECT_NE(S.find("layout sweep: a&lt;b&gt; - cost relative to the mean"),
            std::string::npos);
  EXPECT_NE(S.find(">cost relative to the mean (%)<"), std::string::npos);
  EXPECT_NE(S.find(">+5%<"), std::string::npos) << S;
  EXPECT_NE(S.find(">-5%<"), std::string::npos);
  EXPECT_EQ(S.find(">+6%<"), std::string::npos); // +-5% fits +-5% exactly
  EXPECT_NE(S.find(">0%<"), std::string::npos);
  EXPECT_EQ(countOf(S, "<rect class=\"band\""), 1u);
  // The frame runs from x=90 to x=930; the first and last offsets (0 and
  // 4096) sit inside it, not on it.
  std::vector<double> Xs = circleXs(S);
  ASSERT_FALSE(Xs.empty());
  EXPECT_GT(*std::min_element(Xs.begin(), Xs.end()), 90 + 5);
  EXPECT_LT(*std::max_element(Xs.begin(), Xs.end()), 930 - 5);
}

TEST(ReportTest, OffsetAxisInKBWhenEveryTickIsWholeKB) {
  SweepResult R;
  R.Binary = "x";
  R.Backend = "sim";
  R.Axis = "code";
  for (int64_t O = 0; O <= 256 * 1024; O += 1024) {
    Measurement M;
    M.V = Variant{"base", "code", O};
    M.Cost = 100 + O % 3;
    R.Ms.push_back(M);
  }
  GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeSVGPlot(OS, R, G);
  EXPECT_NE(S.find(">code offset (KB)<"), std::string::npos) << S;
  EXPECT_NE(S.find("class=\"offset-tick\">0<"), std::string::npos);
  EXPECT_NE(S.find("class=\"offset-tick\">256<"), std::string::npos);
  EXPECT_EQ(S.find("class=\"offset-tick\">262144<"), std::string::npos);
}

TEST(ReportTest, CompareHeadlineStatesTheRatioAndItsSignificance) {
  Rendered X;
  std::optional<std::string> H = compareHeadline(X.R, X.G);
  ASSERT_TRUE(H);
  // Base (16 measured, mean ~1000) and compare (mean 1000): no difference
  // beyond the propagated spread.
  EXPECT_NE(H->find(" times faster than "), std::string::npos) << *H;
  EXPECT_NE(H->find("not significant"), std::string::npos) << *H;
  // Compare 2% cheaper at every offset: significant, compare is faster.
  for (Measurement &M : X.R.Compare->Ms)
    M.Cost = 0.98 * 1000;
  for (Measurement &M : X.R.Ms)
    M.Cost = 1000 + (M.V.Offset % 512 ? 1 : -1);
  X.G = *evaluateGate(X.R, GateOptions{}, nullptr);
  H = compareHeadline(X.R, X.G);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->rfind("planned is 1.0204 \u00b1 ", 0), 0u) << *H;
  EXPECT_NE(H->find("times faster than a<b>: mean cost 980 vs 1000; "
                    "Mann-Whitney p < 0.0001: significant"),
            std::string::npos)
      << *H;
  llvm::json::Value J = reportJSON(X.R, X.G);
  const llvm::json::Object *C = J.getAsObject()->getObject("comparison");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->getString("faster"), "compare");
  EXPECT_EQ(C->getBoolean("significant"), true);
  // No compare series: no headline.
  X.R.Compare.reset();
  EXPECT_FALSE(compareHeadline(X.R, X.G));
}

TEST(ReportTest, HTMLEmbedsPlotTablesAndVerdict) {
  Rendered X;
  std::string H = X.render(writeHTMLReport);
  EXPECT_EQ(H.find("<!DOCTYPE html>"), 0u);
  EXPECT_EQ(countOf(H, "<svg"), 1u);
  EXPECT_NE(H.find("<p class=\"verdict effect\">spread 10.53% exceeds the "
                   "resolution"),
            std::string::npos);
  EXPECT_NE(H.find("<p class=\"headline\">spread 10.53%"), std::string::npos);
  EXPECT_NE(H.find("<p class=\"gate none\">no gate set"), std::string::npos);
  EXPECT_EQ(H.find("gate passed"), std::string::npos);
  EXPECT_NE(H.find("failed: killed by signal 11"), std::string::npos);
  EXPECT_EQ(countOf(H, "<tr><td>"), 17u); // one row per offset
  EXPECT_NE(H.find("<th>spread (max/min - 1)</th><td>10.53%</td><td>0.200%</td>"),
            std::string::npos);
  EXPECT_EQ(H.find("<b>"), std::string::npos); // escaped everywhere
}

TEST(ReportTest, SeriesLabelsAreDistinct) {
  SweepResult R;
  R.Binary = "/tmp/x/objs/interp.default";
  EXPECT_EQ(seriesLabels(R).Base, "interp.default");
  R.Compare = Series{"compare", "/tmp/x/objs/interp.planned", {}, ""};
  EXPECT_EQ(seriesLabels(R).Base, "interp.default");
  EXPECT_EQ(seriesLabels(R).Compare, "interp.planned");
  // Same file name in two directories: the shortest tails that differ.
  R.Compare->Binary = "/tmp/x/new/interp.default";
  EXPECT_EQ(seriesLabels(R).Base, "objs/interp.default");
  EXPECT_EQ(seriesLabels(R).Compare, "new/interp.default");
  // One path for both, the compared variants written by --compare-relink.
  R.Compare->Binary = R.Binary;
  R.Compare->Relink = "clang {pad} -o {out}";
  EXPECT_EQ(seriesLabels(R).Base, "interp.default");
  EXPECT_EQ(seriesLabels(R).Compare,
            "interp.default (relinked by --compare-relink)");
  // The same file spelled two ways.
  R.Binary = "./app";
  R.Compare->Binary = "app";
  EXPECT_NE(seriesLabels(R).Base, seriesLabels(R).Compare);
}

TEST(ReportTest, TextEscapesControlAndBidiCharacters) {
  SweepResult R;
  R.Binary = "bin/\xe2\x80\xaeniam\x1b[31m";
  R.Backend = "sim";
  R.Axis = "env";
  GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeTextReport(OS, R, G);
  EXPECT_NE(S.find("layout-sweep: bin/\\u202eniam\\x1b[31m (backend sim"),
            std::string::npos)
      << S;
  EXPECT_EQ(S.find("\xe2\x80\xae"), std::string::npos) << S;
}

TEST(ReportTest, EmptyResultStillRenders) {
  SweepResult R;
  R.Binary = "x";
  R.Backend = "time";
  R.Axis = "stack";
  GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeSVGPlot(OS, R, G);
  writeHTMLReport(OS, R, G);
  writeTextReport(OS, R, G);
  EXPECT_NE(S.find("gate: FAILED: no variant was measured"), std::string::npos);
  // No NaN anywhere (the word "provenance" spells one).
  for (size_t At; (At = S.find("provenance")) != std::string::npos;)
    S.erase(At, 10);
  EXPECT_EQ(S.find("nan"), std::string::npos);
  EXPECT_EQ(S.find("inf"), std::string::npos);
}

TEST(ReportTest, TimePlotShowsNoiseBandAndIntervals) {
  SweepResult R;
  R.Binary = "t";
  R.Backend = "time";
  R.Axis = "code";
  for (int64_t O = 0; O < 4; ++O) {
    Measurement M;
    M.V = Variant{"base", "code", O * 64};
    M.Samples = {1.0 + O * 0.1, 1.01 + O * 0.1, 0.99 + O * 0.1};
    M.Cost = 1.0 + O * 0.1;
    M.Counters = {{"median_ci_low", M.Cost - 0.01},
                  {"median_ci_high", M.Cost + 0.01}};
    R.Ms.push_back(M);
  }
  for (int64_t C = 0; C < 2; ++C) {
    Measurement M;
    M.V = Variant{"base", "aa", C};
    M.Samples = {1.0, 1.02, 0.98};
    M.Cost = 1.0;
    R.NoiseFloor.push_back(M);
  }
  GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_EQ(G.Noise.Kind, NoiseFloor::Measured);
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeSVGPlot(OS, R, G);
  EXPECT_EQ(countOf(S, "<rect class=\"band\""), 1u);
  EXPECT_EQ(countOf(S, "stroke-opacity=\"0.45\""), 4u); // one bar per variant
  EXPECT_NE(S.find("grey band: noise floor " + percent(G.Noise.Spread)),
            std::string::npos);
  std::string T;
  llvm::raw_string_ostream TS(T);
  writeTextReport(TS, R, G);
  EXPECT_NE(T.find("ci_low      ci_high"), std::string::npos) << T;
  EXPECT_NE(T.find("noise: floor "), std::string::npos);
}

TEST(ReportTest, PercentTicksKeepTheirDecimals) {
  // +-11%: the tick step is 2.5%, so ticks print as +2.5%, +7.5%, +12.5%.
  SweepResult R;
  R.Binary = "x";
  R.Backend = "sim";
  R.Axis = "code";
  for (int64_t O = 0; O < 8; ++O) {
    Measurement M;
    M.V = Variant{"base", "code", O * 64};
    M.Cost = O % 2 ? 111 : 89;
    R.Ms.push_back(M);
  }
  GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeSVGPlot(OS, R, G);
  EXPECT_NE(S.find(">+7.5%<"), std::string::npos) << S;
  EXPECT_NE(S.find(">-12.5%<"), std::string::npos);
  EXPECT_NE(S.find(">+5.0%<"), std::string::npos);
}

TEST(ReportTest, EscapeXML) {
  EXPECT_EQ(keel::escapeMarkup("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

} // namespace

// The verdict's colour follows its three states: a layout effect red, a
// negligible spread (above the resolution, below --min-effect) grey, no
// effect green; the JSON carries the state and the threshold.
TEST(ReportTest, VerdictColoursFollowTheState) {
  struct Case {
    double Amp; // cost swing around 1000 (the base series)
    const char *State, *Fill;
  } Cases[] = {{50, "effect", "#b03a2e"},
               {2, "negligible", "#555"},
               {0, "no-effect", "#2e7d32"}};
  for (const Case &C : Cases) {
    Rendered X;
    for (Measurement &M : X.R.Ms)
      M.Cost = 1000 + ((M.V.Offset % 2048) < 1024 ? C.Amp : -C.Amp);
    GateOptions O;
    O.FailOnFailedVariants = false;
    X.G = *evaluateGate(X.R, O, nullptr);
    std::string S = X.render(writeSVGPlot);
    EXPECT_NE(S.find(std::string("class=\"chart-verdict\" fill=\"") + C.Fill +
                     "\""),
              std::string::npos)
        << C.State;
    std::string H = X.render(writeHTMLReport);
    EXPECT_NE(H.find(std::string("<p class=\"verdict ") + C.State + "\">"),
              std::string::npos)
        << C.State;
    llvm::json::Value V = reportJSON(X.R, X.G);
    const llvm::json::Object *J = V.getAsObject();
    EXPECT_EQ(J->getString("verdict_state")->str(), C.State);
    EXPECT_EQ(J->getNumber("min_effect"), DefaultMinEffect);
  }
}

// One measured variant: its cost, no spread and no verdict.
TEST(ReportTest, OnePointShowsTheMeasurement) {
  Rendered X;
  X.R.Compare.reset();
  X.R.Ms.resize(1);
  X.G = *evaluateGate(X.R, GateOptions{}, nullptr);
  std::string T = X.render(writeTextReport);
  EXPECT_NE(T.find("base: 1 measured, 0 failed; cost 1050 at offset 0\n"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("measurement: offset 0: cost 1050; no spread and no "
                   "verdict from one point"),
            std::string::npos)
      << T;
  EXPECT_EQ(T.find("verdict:"), std::string::npos);
  EXPECT_EQ(T.find("spread 0"), std::string::npos);
  std::string H = X.render(writeHTMLReport);
  EXPECT_NE(H.find("<p class=\"headline\">cost 1050"), std::string::npos);
  EXPECT_NE(H.find("<p class=\"verdict none\">"), std::string::npos);
}
