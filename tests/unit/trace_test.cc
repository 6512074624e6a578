// The trace's event log and the trace-event JSON it becomes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "stats/trace.h"
#include "transport/wire.h"

namespace scopedsm {
namespace {

using Json = nlohmann::json;

TEST(TraceLog, KeepsEveryEventAcrossChunksInOrder) {
  TraceLog log;
  const size_t n = TraceLog::kChunkEvents * 2 + 5;
  for (size_t i = 0; i < n; ++i) log.add(TraceKind::kFetch, TraceThread::kApp, i, i + 1, static_cast<uint32_t>(i));
  EXPECT_EQ(log.size(), n);
  EXPECT_EQ(log.dropped(), 0u);
  std::vector<TraceEvent> events;
  log.append_to(&events);
  ASSERT_EQ(events.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(events[i].arg, i);
}

TEST(TraceLog, CountsWhatItCannotHold) {
  TraceLog log(TraceLog::kChunkEvents * 2);
  for (size_t i = 0; i < TraceLog::kChunkEvents * 2 + 7; ++i) log.add(TraceKind::kLock, TraceThread::kApp, i, i);
  EXPECT_EQ(log.size(), TraceLog::kChunkEvents * 2);
  EXPECT_EQ(log.dropped(), 7u);
}

TEST(TraceSpan, TimesIntoTheStatisticsAndTheLog) {
  TraceLog log;
  uint64_t sink = 0;
  {
    TraceSpan span(&log, &sink, TraceKind::kDiffMake, 12);
    span.set_arg2(34);
  }
  { TraceSpan untraced(nullptr, &sink, TraceKind::kBarrier); }
  std::vector<TraceEvent> events;
  log.append_to(&events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, TraceKind::kDiffMake);
  EXPECT_EQ(events[0].arg, 12u);
  EXPECT_EQ(events[0].arg2, 34u);
  EXPECT_GE(sink, events[0].end_ns - events[0].start_ns);
}

TEST(TraceKinds, EachHasANameAndAStatisticsCategory) {
  const std::set<std::string> categories = {"fault", "fetch", "diff", "lock", "barrier", "atomic", "serve"};
  std::set<std::string> seen;
  for (int k = 0; k < kTraceKindCount; ++k) {
    const TraceKindInfo& info = trace_kind_info(static_cast<TraceKind>(k));
    EXPECT_NE(std::string(info.name), "");
    EXPECT_EQ(categories.count(info.category), 1u) << info.category;
    seen.insert(info.category);
  }
  EXPECT_EQ(seen, categories);
}

TEST(TraceWriter, WritesTraceEventJson) {
  const std::string path = testing::TempDir() + "/scopedsm-trace-test.json";
  TraceWriter w;
  ASSERT_TRUE(w.open(path).ok());
  const uint64_t origin = 1000000;
  w.add_rank(0, "alpha", origin,
             {{origin + 2000, origin + 5500, 7, 1, TraceKind::kFetch, TraceThread::kApp},
              {origin + 100, origin + 400, static_cast<uint32_t>(MsgType::kGetPage), 1, TraceKind::kServe,
               TraceThread::kService}},
             0);
  w.add_rank(1, "beta", 5000, {{4000, 6000, 3, 0, TraceKind::kLock, TraceThread::kApp}}, 2);
  ASSERT_TRUE(w.close("prog", 2).ok());
  std::ifstream f(path);
  const Json j = Json::parse(std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()));
  std::remove(path.c_str());
  EXPECT_EQ(j["otherData"]["program"], "prog");
  EXPECT_EQ(j["otherData"]["dropped_events"], 2);
  // Each rank's origin on its own clock, for lining up the ranks of a host.
  EXPECT_EQ(j["otherData"]["clock_origin_ns"], Json::parse(R"({"0": 1000000, "1": 5000})"));
  std::vector<Json> complete;
  std::set<std::string> process_names;
  for (const Json& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") complete.push_back(e);
  }
  EXPECT_EQ(process_names, (std::set<std::string>{"rank 0 (alpha)", "rank 1 (beta)"}));
  ASSERT_EQ(complete.size(), 3u);
  EXPECT_EQ(complete[0], Json::parse(R"({"name":"fetch","cat":"fetch","ph":"X","ts":2.0,"dur":3.5,"pid":0,"tid":0,
                                         "args":{"page":7,"home":1}})"));
  EXPECT_EQ(complete[1]["name"], msg_type_name(MsgType::kGetPage));
  EXPECT_EQ(complete[1]["cat"], "serve");
  EXPECT_EQ(complete[1]["tid"], 1);
  EXPECT_EQ(complete[1]["args"], Json::parse(R"({"from":1})"));
  EXPECT_EQ(complete[2]["ts"], 0.0);  // before its rank's time zero: clamped
  EXPECT_EQ(complete[2]["pid"], 1);
}

TEST(TraceWriter, AnUnwritablePathIsNamed) {
  TraceWriter w;
  const Status st = w.open("/nonexistent-dir/t.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot write /nonexistent-dir/t.json: No such file or directory");
}

}  // namespace
}  // namespace scopedsm
