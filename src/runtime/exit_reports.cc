#include "runtime/exit_reports.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include "common/files.h"
#include "common/log.h"

namespace scopedsm {

namespace {

// The command line, from the kernel: right whatever argc and argv the
// program passed to init (possibly none), and whatever MPI did to them.
std::vector<std::string> command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    argv.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Events go to rank 0 in pieces of this many, each well inside an MPI count.
constexpr size_t kPieceEvents = TraceLog::kChunkEvents;
constexpr int kTagHeader = 1;
constexpr int kTagEvents = 2;

}  // namespace

void ExitReports::start(const Config* config, int rank, int size, Stats* stats, MPI_Comm comm) {
  config_ = config;
  rank_ = rank;
  size_ = size;
  if (rank == 0) {
    // Before the program's work: a run whose statistics or trace were asked
    // for and cannot be kept should not run first and fail at the end.
    if (!config->stats_file.empty())
      if (Status st = check_writable(config->stats_file); !st.ok())
        fatal("SCOPEDSM_STATS_FILE: %s; rank 0 writes the statistics there at exit (give a writable path)",
              st.message().c_str());
    if (!config->trace_file.empty())
      if (Status st = check_writable(config->trace_file); !st.ok())
        fatal("SCOPEDSM_TRACE: %s; rank 0 writes the trace there at exit (give a writable path)", st.message().c_str());
    argv_ = command_line();
    started_ = utc_now();
  }
  // Rank 0 writes the trace, so its setting decides for everyone.
  int trace = rank == 0 && !config->trace_file.empty() ? 1 : 0;
  MPI_Bcast(&trace, 1, MPI_INT, 0, comm);
  tracing_ = trace != 0;
  if (tracing_) {
    MPI_Comm_dup(comm, &trace_comm_);
    stats->enable_trace();
  }
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> names(rank == 0 ? static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME : 0);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  for (int r = 0; rank == 0 && r < size; ++r) {
    const char* at = names.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    hosts_.emplace_back(at, strnlen(at, MPI_MAX_PROCESSOR_NAME));
  }
}

RunInfo ExitReports::run_info() const {
  RunInfo run;
  run.argv = argv_;
  if (!argv_.empty()) {
    const std::string& path = argv_.front();
    run.program = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  }
  run.started = started_;
  run.hosts = hosts_;
  run.config = config_settings(*config_);
  return run;
}

void ExitReports::write_statistics(const std::vector<StatsRecord>& records) const {
  if (config_->summary) {
    const std::string table = format_summary(records, hosts_);
    std::fputs(table.c_str(), stderr);
    std::fflush(stderr);
  }
  if (config_->stats_file.empty()) return;
  if (Status st = write_file(config_->stats_file, format_json(records, run_info())); !st.ok())
    fatal("SCOPEDSM_STATS_FILE: %s; the statistics are lost", st.message().c_str());
}

void ExitReports::write_trace(const Stats& stats) {
  if (!tracing_) return;
  const std::vector<TraceEvent> mine = stats.trace_events();
  // Header: event count, events dropped, this rank's time zero.
  uint64_t header[3] = {mine.size(), stats.trace_dropped(), origin_ns_};
  if (rank_ != 0) {
    MPI_Send(header, 3, MPI_UINT64_T, 0, kTagHeader, trace_comm_);
    for (size_t at = 0; at < mine.size(); at += kPieceEvents) {
      const size_t n = std::min(kPieceEvents, mine.size() - at);
      MPI_Send(mine.data() + at, static_cast<int>(n * sizeof(TraceEvent)), MPI_BYTE, 0, kTagEvents, trace_comm_);
    }
    MPI_Comm_free(&trace_comm_);
    return;
  }
  TraceWriter out;
  if (Status st = out.open(config_->trace_file); !st.ok()) fatal("SCOPEDSM_TRACE: %s; the trace is lost", st.message().c_str());
  uint64_t dropped = header[1];
  out.add_rank(0, hosts_.empty() ? "" : hosts_[0], origin_ns_, mine, header[1]);
  std::vector<TraceEvent> theirs;
  for (int r = 1; r < size_; ++r) {
    MPI_Recv(header, 3, MPI_UINT64_T, r, kTagHeader, trace_comm_, MPI_STATUS_IGNORE);
    theirs.resize(header[0]);
    for (size_t at = 0; at < theirs.size(); at += kPieceEvents) {
      const size_t n = std::min(kPieceEvents, theirs.size() - at);
      MPI_Recv(theirs.data() + at, static_cast<int>(n * sizeof(TraceEvent)), MPI_BYTE, r, kTagEvents, trace_comm_,
               MPI_STATUS_IGNORE);
    }
    dropped += header[1];
    out.add_rank(r, static_cast<size_t>(r) < hosts_.size() ? hosts_[static_cast<size_t>(r)] : "", header[2], theirs,
                 header[1]);
  }
  MPI_Comm_free(&trace_comm_);
  if (Status st = out.close(run_info().program, size_); !st.ok())
    fatal("SCOPEDSM_TRACE: %s; the trace is lost", st.message().c_str());
  if (dropped != 0)
    SCOPEDSM_LOG(LogLevel::kWarn,
                 "SCOPEDSM_TRACE: %" PRIu64 " events were not recorded: a thread's log holds at most %zu; the trace "
                 "has the earlier ones",
                 dropped, TraceLog::kMaxEvents);
}

}  // namespace scopedsm
