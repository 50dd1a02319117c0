// The corpus's re2 workload (bench/corpus.py): re2-match PATTERNS TEXT.
// PATTERNS has one "FLAGS<TAB>REGEXP" a line (FLAGS: '-' or any of i = case-insensitive,
// l = longest match, p = POSIX syntax, L = literal). Each regexp is compiled (bad ones
// count as errors), matched against every line of TEXT (with its capturing groups
// when it has some: the NFA, one-pass and bit-state engines; without: the DFA),
// searched for every match in the whole text, and used to rewrite the first lines;
// then one RE2::Set of the regexps is matched against every line. Prints counts
// only: the output and the instruction count are the same on every run.
#include <re2/re2.h>
#include <re2/set.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos)
      nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

struct Pattern {
  std::string flags, regexp;
};

RE2::Options optionsFor(const std::string &flags) {
  RE2::Options o;
  o.set_log_errors(false);
  for (char c : flags) {
    if (c == 'i')
      o.set_case_sensitive(false);
    else if (c == 'l')
      o.set_longest_match(true);
    else if (c == 'p')
      o.set_posix_syntax(true);
    else if (c == 'L')
      o.set_literal(true);
  }
  return o;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: re2-match PATTERNS TEXT\n");
    return 2;
  }
  std::vector<Pattern> patterns;
  for (const std::string &line : splitLines(readFile(argv[1]))) {
    size_t tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos)
      continue;
    patterns.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  const std::string text = readFile(argv[2]);
  const std::vector<std::string> lines = splitLines(text);

  unsigned long errors = 0, lineMatches = 0, captured = 0, found = 0, replaced = 0,
                progSize = 0, rangeBytes = 0;
  RE2::Set set(optionsFor("-"), RE2::UNANCHORED);
  for (const Pattern &p : patterns) {
    RE2 re(p.regexp, optionsFor(p.flags));
    if (!re.ok()) {
      ++errors;
      continue;
    }
    progSize += re.ProgramSize();
    if (p.flags.find('L') == std::string::npos && p.flags.find('p') == std::string::npos)
      set.Add(p.regexp, nullptr);

    // Every line: with submatches when the regexp has groups.
    int groups = re.NumberOfCapturingGroups();
    int n = groups < 4 ? groups : 4;
    std::vector<std::string> subs(n);
    std::vector<RE2::Arg> args(n);
    std::vector<const RE2::Arg *> argp(n);
    for (int i = 0; i < n; ++i) {
      args[i] = &subs[i];
      argp[i] = &args[i];
    }
    for (const std::string &line : lines) {
      if (RE2::PartialMatchN(line, re, argp.data(), n)) {
        ++lineMatches;
        for (const std::string &s : subs)
          captured += s.size();
      }
    }

    // Every match in the whole text (find-all), with the match's extent.
    re2::StringPiece input(text), match;
    size_t pos = 0;
    while (pos <= text.size() &&
           re.Match(input, pos, text.size(), RE2::UNANCHORED, &match, 1)) {
      ++found;
      size_t end = match.data() - text.data() + match.size();
      pos = end > pos ? end : pos + 1;
    }

    // Rewrite the first lines.
    std::string head;
    for (size_t i = 0; i < lines.size() && i < 64; ++i)
      head += lines[i] + "\n";
    replaced += RE2::GlobalReplace(&head, re, "<\\0>");

    std::string lo, hi;
    if (re.PossibleMatchRange(&lo, &hi, 10))
      rangeBytes += lo.size() + hi.size();
  }

  unsigned long setMatches = 0;
  if (set.Compile()) {
    std::vector<int> which;
    for (const std::string &line : lines) {
      which.clear();
      if (set.Match(line, &which))
        setMatches += which.size();
    }
  }
  std::printf("patterns %zu errors %lu lines %zu line-matches %lu captured %lu found %lu "
              "replaced %lu set-matches %lu program %lu range %lu\n",
              patterns.size(), errors, lines.size(), lineMatches, captured, found, replaced,
              setMatches, progSize, rangeBytes);
  return 0;
}
