#include "common/report.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "scopedsm.h"

namespace bench {

void Rounds::add_round(std::vector<double> samples) { rounds_.push_back(std::move(samples)); }

std::vector<double> Rounds::every() const {
  std::vector<double> out;
  for (const auto& r : rounds_) out.insert(out.end(), r.begin(), r.end());
  return out;
}

Summary Rounds::all() const { return summarize(every()); }

Summary Rounds::round_medians() const {
  std::vector<double> medians;
  for (const auto& r : rounds_)
    if (!r.empty()) medians.push_back(summarize(r).median);
  return summarize(std::move(medians));
}

Json render(const Report& r) {
  const Summary m = r.measured.all();
  const Summary spread = r.measured.round_medians();
  Json j;
  j["bench"] = r.bench;
  j["procs"] = r.procs;
  j["unit"] = r.unit;
  j["reps"] = r.reps;
  j["rounds"] = r.rounds;
  j["median"] = m.median;
  j["p90"] = m.p90;
  j["min"] = m.min;
  j["max"] = m.max;
  j["samples"] = static_cast<long long>(m.count);
  j["round_medians"] = {{"min", spread.min}, {"max", spread.max}};
  j["baseline"] = nullptr;
  j["ratio"] = nullptr;
  j["target_ratio"] = nullptr;
  j["meets_target"] = nullptr;
  if (r.has_baseline) {
    j["baseline"] = {{"what", r.baseline_what},
                     {"median", r.baseline.median},
                     {"p90", r.baseline.p90},
                     {"min", r.baseline.min},
                     {"max", r.baseline.max},
                     {"samples", static_cast<long long>(r.baseline.count)}};
    const double ratio = r.baseline.median > 0 ? m.median / r.baseline.median : -1;
    if (ratio >= 0) j["ratio"] = ratio;
    if (r.target_ratio > 0 && ratio >= 0) {
      j["target_ratio"] = r.target_ratio;
      j["meets_target"] = r.higher_is_better ? ratio >= r.target_ratio : ratio <= r.target_ratio;
    }
  }
  j["extra"] = r.extra;
  return j;
}

void print_report(const Report& report) {
  std::string text = json_text(render(report));
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

Json gather_runtime_stats() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mine = json_text(runtime_record());
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int i = 0; i < size; ++i) {
    offsets[static_cast<size_t>(i)] = total;
    total += lens[static_cast<size_t>(i)];
  }
  std::string all(rank == 0 ? static_cast<size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0) return nullptr;
  Json out = Json::array();
  for (int i = 0; i < size; ++i)
    out.push_back(Json::parse(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(i)]),
                                         static_cast<size_t>(lens[static_cast<size_t>(i)]))));
  return out;
}

void die(const char* program, const std::string& message) {
  if (scopedsm_initialized()) scopedsm_fatal("%s: %s", program, message.c_str());
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  std::exit(2);
}

}  // namespace bench
