// The one JSON object each micro-benchmark prints on stdout (rank 0):
//   {"bench":..,"procs":..,"unit":..,"reps":..,"rounds":..,
//    "median":..,"p90":..,"min":..,"max":..,"samples":..,"round_medians":{"min":..,"max":..},
//    "baseline":{"what":..,"median":..,"p90":..,"min":..,"max":..} | null,
//    "ratio":.. | null,"target_ratio":.. | null,"meets_target":bool | null,
//    "extra":{...}}
// "ratio" is median / baseline median; targets are reported, never enforced.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "common/timing.h"

namespace bench {

// Samples kept per round, so the spread between rounds shows the noise.
class Rounds {
 public:
  void add_round(std::vector<double> samples);
  Summary all() const;
  // Every sample of every round.
  std::vector<double> every() const;
  // Smallest and largest of the per-round medians.
  Summary round_medians() const;
  size_t rounds() const { return rounds_.size(); }

 private:
  std::vector<std::vector<double>> rounds_;
};

struct Report {
  std::string bench;
  int procs = 1;
  std::string unit = "us";
  long reps = 0;    // timed operations (or batches) per round
  long rounds = 0;
  Rounds measured;
  bool has_baseline = false;
  std::string baseline_what;
  Summary baseline;
  double target_ratio = 0;  // <= 0: no target
  bool higher_is_better = false;
  Json extra = Json::object();
};

Json render(const Report& report);
// Prints render(report) and a newline on stdout, and flushes.
void print_report(const Report& report);

// Collective over MPI_COMM_WORLD: every rank's ScopeDSM counters
// (scopedsm_stats_json) as a JSON array on rank 0, null elsewhere.
Json gather_runtime_stats();

// Prints "<program>: <message>" on stderr and ends every process.
[[noreturn]] void die(const char* program, const std::string& message);

}  // namespace bench
