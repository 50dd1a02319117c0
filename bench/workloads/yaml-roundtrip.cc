// The corpus's yaml-cpp workload (bench/corpus.py): yaml-roundtrip FILE.
// Parses every document of FILE three ways: into nodes (YAML::LoadAll), whose scalars
// are converted as integers, else floats, else booleans, else strings, and whose maps
// are asked for an optional key with as<> (which throws when it is absent, caught
// here); as events through a counting
// YAML::EventHandler; and again from what YAML::Emitter writes of the nodes (block
// style, then flow style). Prints counts only: the output and the instruction count
// are the same on every run.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Counts {
  unsigned long maps = 0, seqs = 0, ints = 0, floats = 0, bools = 0, strings = 0,
                nulls = 0, thrown = 0, bytes = 0;
  long long intSum = 0;
};

void walk(const YAML::Node &n, Counts &c) {
  switch (n.Type()) {
  case YAML::NodeType::Map:
    ++c.maps;
    for (const auto &kv : n) {
      walk(kv.first, c);
      walk(kv.second, c);
    }
    // A record's optional key, read with as<> as a program would: throws when absent.
    try {
      c.intSum += n["weight"].as<long long>();
    } catch (const YAML::Exception &) {
      ++c.thrown;
    }
    break;
  case YAML::NodeType::Sequence:
    ++c.seqs;
    for (const auto &e : n)
      walk(e, c);
    break;
  case YAML::NodeType::Scalar: {
    c.bytes += n.Scalar().size();
    long long i;
    double d;
    bool b;
    if (YAML::convert<long long>::decode(n, i)) {
      c.intSum += i;
      ++c.ints;
    } else if (YAML::convert<double>::decode(n, d)) {
      ++c.floats;
    } else if (YAML::convert<bool>::decode(n, b)) {
      ++c.bools;
    } else {
      ++c.strings;
    }
    break;
  }
  default:
    ++c.nulls;
    break;
  }
}

class EventCounter : public YAML::EventHandler {
public:
  unsigned long events = 0, anchors = 0, scalarBytes = 0;
  void OnDocumentStart(const YAML::Mark &) override { ++events; }
  void OnDocumentEnd() override { ++events; }
  void OnNull(const YAML::Mark &, YAML::anchor_t a) override { count(a); }
  void OnAlias(const YAML::Mark &, YAML::anchor_t a) override { count(a); }
  void OnScalar(const YAML::Mark &, const std::string &tag, YAML::anchor_t a,
                const std::string &value) override {
    count(a);
    scalarBytes += tag.size() + value.size();
  }
  void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t a,
                       YAML::EmitterStyle::value) override {
    count(a);
  }
  void OnSequenceEnd() override { ++events; }
  void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t a,
                  YAML::EmitterStyle::value) override {
    count(a);
  }
  void OnMapEnd() override { ++events; }

private:
  void count(YAML::anchor_t a) {
    ++events;
    anchors += a != YAML::NullAnchor;
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: yaml-roundtrip FILE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception &e) {
    std::fprintf(stderr, "yaml-roundtrip: %s\n", e.what());
    return 1;
  }
  Counts first;
  for (const YAML::Node &d : docs)
    walk(d, first);

  EventCounter events;
  {
    std::istringstream is(text);
    YAML::Parser parser(is);
    while (parser.HandleNextDocument(events)) {
    }
  }

  unsigned long emitted = 0;
  Counts again;
  for (bool flow : {false, true}) {
    YAML::Emitter out;
    if (flow) {
      out.SetMapFormat(YAML::Flow);
      out.SetSeqFormat(YAML::Flow);
    }
    out.SetIndent(3);
    for (const YAML::Node &d : docs)
      out << YAML::BeginDoc << d;
    emitted += out.size();
    for (const YAML::Node &d : YAML::LoadAll(out.c_str()))
      walk(d, again);
  }
  std::printf("docs %zu maps %lu seqs %lu ints %lu (sum %lld) floats %lu bools %lu strings %lu "
              "nulls %lu thrown %lu bytes %lu events %lu anchors %lu emitted %lu again-maps %lu "
              "again-scalars %lu\n",
              docs.size(), first.maps, first.seqs, first.ints, first.intSum, first.floats,
              first.bools, first.strings, first.nulls, first.thrown, first.bytes, events.events,
              events.anchors, emitted, again.maps,
              again.ints + again.floats + again.bools + again.strings);
  return 0;
}
