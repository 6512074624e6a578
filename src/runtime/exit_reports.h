// What the runtime writes at exit besides the program's own output: the
// statistics table (SCOPEDSM_SUMMARY), the statistics file
// (SCOPEDSM_STATS_FILE) and the trace (SCOPEDSM_TRACE), all by rank 0, and
// what start-up gathers for them (host names, the command line, the start
// time). docs/CONFIG.md describes the files.
//
// A file that cannot be written ends the job with the path and the
// system's reason: checked at start-up, before the program's work, and
// again when it is written.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "stats/stats.h"

namespace scopedsm {

class ExitReports {
 public:
  ExitReports() = default;
  ExitReports(const ExitReports&) = delete;
  ExitReports& operator=(const ExitReports&) = delete;

  // Collective, early in start-up. Rank 0 checks that its statistics and
  // trace files can be written (the job ends if not); every rank traces
  // if rank 0's SCOPEDSM_TRACE is set (stats->enable_trace()); rank 0
  // learns every rank's host name. `config` is the runtime's, read again at
  // exit, not copied: the statistics file shows the settings in force then
  // (jia_config switches some at run time). `comm` is the runtime's own
  // communicator (its ranks are rank's and size's).
  void start(const Config* config, int rank, int size, Stats* stats, MPI_Comm comm);
  // Time zero of this rank's trace: the end of start-up.
  void set_origin(uint64_t ns) { origin_ns_ = ns; }

  // Rank 0, at exit, with every rank's record: prints the table and
  // writes the statistics file as configured.
  void write_statistics(const std::vector<StatsRecord>& records) const;
  // Collective, once this rank's threads record nothing more: rank 0
  // collects every rank's events and writes the trace.
  void write_trace(const Stats& stats);

 private:
  RunInfo run_info() const;

  const Config* config_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  bool tracing_ = false;
  uint64_t origin_ns_ = 0;
  MPI_Comm trace_comm_ = MPI_COMM_NULL;
  std::vector<std::string> hosts_;  // rank 0: by rank
  std::vector<std::string> argv_;   // rank 0
  std::string started_;             // rank 0
};

}  // namespace scopedsm
