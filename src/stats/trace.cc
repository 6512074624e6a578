#include "stats/trace.h"

#include <cerrno>

#include "common/files.h"
#include "stats/json_text.h"
#include "transport/wire.h"

namespace scopedsm {

namespace {

constexpr TraceKindInfo kKinds[kTraceKindCount] = {
    {"read fault", "fault", "page", nullptr},
    {"write fault", "fault", "page", nullptr},
    {"fetch", "fetch", "page", "home"},
    {"node copy", "fetch", "page", "home"},
    {"make diff", "diff", "page", "bytes"},
    {"apply diffs", "diff", "from", "bytes"},
    {"lock", "lock", "lock", nullptr},
    {"unlock", "lock", "lock", nullptr},
    {"setcv", "lock", "cv", nullptr},
    {"resetcv", "lock", "cv", nullptr},
    {"waitcv", "lock", "cv", nullptr},
    {"barrier", "barrier", "epoch", nullptr},
    {"wait", "barrier", nullptr, nullptr},
    {"atomic", "atomic", "page", "offset"},
    {"serve", "serve", "type", "from"},
};

double micros(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

Json metadata(const char* what, int pid, int tid, Json args) {
  Json j;
  j["name"] = what;
  j["ph"] = "M";
  j["pid"] = pid;
  if (tid >= 0) j["tid"] = tid;
  j["args"] = std::move(args);
  return j;
}

}  // namespace

const TraceKindInfo& trace_kind_info(TraceKind kind) { return kKinds[static_cast<int>(kind)]; }

TraceLog::TraceLog(size_t max_events) : max_events_(max_events) {
  chunks_.push_back(std::make_unique<TraceEvent[]>(kChunkEvents));
}

bool TraceLog::next_chunk() {
  if ((chunks_.size() + 1) * kChunkEvents > max_events_) return false;
  chunks_.push_back(std::make_unique<TraceEvent[]>(kChunkEvents));
  used_ = 0;
  return true;
}

void TraceLog::append_to(std::vector<TraceEvent>* out) const {
  out->reserve(out->size() + size());
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const size_t n = c + 1 == chunks_.size() ? used_ : kChunkEvents;
    out->insert(out->end(), chunks_[c].get(), chunks_[c].get() + n);
  }
}

TraceWriter::~TraceWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

Status TraceWriter::open(const std::string& path) {
  path_ = path;
  f_ = std::fopen(path.c_str(), "w");
  if (f_ == nullptr) return file_error(path, errno);
  std::fputs("{\"traceEvents\":[\n", f_);
  return Status::Ok();
}

void TraceWriter::put(const std::string& text) {
  if (!first_) write(",\n");
  first_ = false;
  write(text);
}

void TraceWriter::write(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size() && write_errno_ == 0)
    write_errno_ = errno != 0 ? errno : EIO;  // the reason now, not whatever errno says at close
}

void TraceWriter::add_rank(int rank, const std::string& host, uint64_t origin_ns,
                           const std::vector<TraceEvent>& events, uint64_t dropped) {
  dropped_ += dropped;
  origins_.emplace_back(rank, origin_ns);
  put(json_text(metadata("process_name", rank, -1, {{"name", "rank " + std::to_string(rank) + " (" + host + ")"}})));
  put(json_text(metadata("process_sort_index", rank, -1, {{"sort_index", rank}})));
  put(json_text(metadata("thread_name", rank, 0, {{"name", "application"}})));
  put(json_text(metadata("thread_name", rank, 1, {{"name", "service"}})));
  for (const TraceEvent& e : events) {
    if (static_cast<int>(e.kind) >= kTraceKindCount) continue;
    const TraceKindInfo& k = trace_kind_info(e.kind);
    Json j;
    j["name"] = e.kind == TraceKind::kServe ? msg_type_name(static_cast<MsgType>(e.arg)) : k.name;
    j["cat"] = k.category;
    j["ph"] = "X";
    j["ts"] = micros(e.start_ns > origin_ns ? e.start_ns - origin_ns : 0);
    j["dur"] = micros(e.end_ns > e.start_ns ? e.end_ns - e.start_ns : 0);
    j["pid"] = rank;
    j["tid"] = static_cast<int>(e.thread);
    Json args = Json::object();
    if (k.arg != nullptr && e.kind != TraceKind::kServe) args[k.arg] = e.arg;
    if (k.arg2 != nullptr) args[k.arg2] = e.arg2;
    j["args"] = std::move(args);
    put(json_text(j));
  }
}

Status TraceWriter::close(const std::string& program, int processes) {
  Json other;
  other["scopedsm_trace"] = 1;
  other["program"] = program;
  other["processes"] = processes;
  other["dropped_events"] = dropped_;
  Json origins = Json::object();
  for (const auto& [rank, origin] : origins_) origins[std::to_string(rank)] = origin;
  other["clock_origin_ns"] = std::move(origins);
  const std::string tail = "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" + json_text(other) + "}\n";
  write(tail);
  const int closed = std::fclose(f_);  // flushes: a full disk may only show here
  const int close_errno = errno;
  f_ = nullptr;
  if (write_errno_ != 0) return file_error(path_, write_errno_);
  if (closed != 0) return file_error(path_, close_errno);
  return Status::Ok();
}

}  // namespace scopedsm
