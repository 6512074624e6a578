#include "stats/stats.h"

#include <cstring>
#include <sstream>

#include "common/clock.h"

namespace scopedsm {

namespace {

void add_traffic(std::vector<std::pair<std::string, uint64_t>>* v, const char* dir, TrafficCounters& t) {
  for (size_t i = 1; i < kMsgTypeCount; ++i) {
    std::string name = msg_type_name(static_cast<MsgType>(i));
    v->push_back({std::string("msgs_") + dir + "_" + name, t.messages[i].load(std::memory_order_relaxed)});
    v->push_back({std::string("bytes_") + dir + "_" + name, t.bytes[i].load(std::memory_order_relaxed)});
  }
  v->push_back({std::string("msgs_") + dir + "_PAGE", t.page_messages.load(std::memory_order_relaxed)});
  v->push_back({std::string("bytes_") + dir + "_PAGE", t.page_bytes.load(std::memory_order_relaxed)});
}

}  // namespace

StatsRecord Stats::raw(int rank, TrafficCounters& sent, TrafficCounters& received) const {
  StatsRecord r;
  r.rank = rank;
  r.segv_cost_ns = segv_cost_ns_;
#define X(name) r.values.push_back({#name, app.name});
  SCOPEDSM_APP_COUNTERS(X)
#undef X
#define X(name) r.values.push_back({#name, service.name.load(std::memory_order_relaxed)});
  SCOPEDSM_SERVICE_COUNTERS(X)
#undef X
  add_traffic(&r.values, "sent", sent);
  // Not prefixed msgs_/bytes_: a subset of the sent counts above.
  r.values.push_back({"self_msgs_sent", sent.self_messages.load(std::memory_order_relaxed)});
  r.values.push_back({"self_bytes_sent", sent.self_bytes.load(std::memory_order_relaxed)});
  add_traffic(&r.values, "recv", received);
  if (net_ != nullptr) {
#define X(name) r.values.push_back({"net_" #name, net_->name.load(std::memory_order_relaxed)});
    SCOPEDSM_NET_COUNTERS(X)
#undef X
  }
  return r;
}

void Stats::start(TrafficCounters& sent, TrafficCounters& received) {
  base_ = raw(0, sent, received);
  start_ns_ = now_ns();
  started_ = true;
  stopped_ = false;
}

void Stats::stop(TrafficCounters& sent, TrafficCounters& received) {
  end_ = raw(0, sent, received);
  stop_ns_ = now_ns();
  stopped_ = true;
}

StatsRecord Stats::snapshot(int rank, TrafficCounters& sent, TrafficCounters& received) const {
  StatsRecord r = stopped_ ? end_ : raw(rank, sent, received);
  r.rank = rank;
  r.segv_cost_ns = segv_cost_ns_;
  if (started_) {
    for (size_t i = 0; i < r.values.size() && i < base_.values.size(); ++i) r.values[i].second -= base_.values[i].second;
  }
  r.values.insert(r.values.end(), layout_.begin(), layout_.end());
  uint64_t end = stopped_ ? stop_ns_ : now_ns();
  r.elapsed_s = static_cast<double>(end - (started_ ? start_ns_ : origin_ns_)) / 1e9;
  return r;
}

void Stats::enable_trace() {
  app_trace_ = std::make_unique<TraceLog>();
  serve_trace_ = std::make_unique<TraceLog>();
  app.trace = app_trace_.get();
  service.trace = serve_trace_.get();
}

std::vector<TraceEvent> Stats::trace_events() const {
  std::vector<TraceEvent> out;
  if (app_trace_) app_trace_->append_to(&out);
  if (serve_trace_) serve_trace_->append_to(&out);
  return out;
}

uint64_t Stats::trace_dropped() const {
  return (app_trace_ ? app_trace_->dropped() : 0) + (serve_trace_ ? serve_trace_->dropped() : 0);
}

}  // namespace scopedsm
