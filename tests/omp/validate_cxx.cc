// C++ under scopedsm-c++ -fopenmp: the standard library's containers and
// strings built by the master are read by the whole team (their memory is
// the shared heap: new, and libstdc++'s own allocations for the program),
// objects are created and destroyed inside regions, and a class's members
// run in parallel loops.
//
//   validate_cxx     prints "validate_cxx: ok (T threads)" or the failures
#include <omp.h>

#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace {

// Under AddressSanitizer, whose operator new takes the place of ScopeDSM's
// for the whole process, libstdc++'s own allocations (a std::string's
// buffer, grown inside libstdc++) stay private to the process that makes
// them (docs/OPENMP.md, "Limits"); the program's own new and the
// containers instantiated in it are still shared.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kStringsShared = false;
#else
constexpr bool kStringsShared = true;
#endif

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("validate_cxx: FAILED: %s\n", what);
    ++failures;
  }
}

std::vector<double> g_values;                // a global container
std::string g_name;                          // and a string longer than the small-string buffer
std::map<int, std::string> g_table;

class Grid {
 public:
  explicit Grid(int n) : n_(n), cells_(static_cast<size_t>(n) * n, 0.0) {}
  void fill() {
#pragma omp parallel for schedule(dynamic, 3)
    for (int i = 0; i < n_; i++)
      for (int j = 0; j < n_; j++) cells_[static_cast<size_t>(i) * n_ + j] = i * 1000.0 + j;
  }
  double sum() const { return std::accumulate(cells_.begin(), cells_.end(), 0.0); }

 private:
  int n_;
  std::vector<double> cells_;
};

}  // namespace

int main() {
  for (int i = 0; i < 5000; i++) g_values.push_back(i * 0.5);
  g_name = "a name much longer than fifteen characters, kept by libstdc++ on the heap";
  for (int i = 0; i < 50; i++) g_table[i] = "entry " + std::to_string(i) + " of the table, long enough to allocate";
  std::vector<long> local(5000, 1);  // on the master's stack, its data on the heap

  int threads = 1, bad_values = 0, bad_name = 0, bad_table = 0, bad_objects = 0;
  long local_sum = 0;
#pragma omp parallel reduction(+ : bad_values, bad_name, bad_table, bad_objects, local_sum)
  {
#pragma omp master
    threads = omp_get_num_threads();
    for (size_t i = 0; i < g_values.size(); i++) bad_values += g_values[i] != i * 0.5;
    if (kStringsShared) {
      bad_name += g_name.size() != 73 || g_name.compare(0, 6, "a name") != 0;
      for (int i = 0; i < 50; i++)
        bad_table += g_table.at(i) != "entry " + std::to_string(i) + " of the table, long enough to allocate";
    }
#pragma omp for
    for (size_t i = 0; i < local.size(); i++) local_sum += local[i];
    // Objects made and destroyed inside the region, by every thread.
    auto owned = std::make_unique<std::vector<int>>(1000, omp_get_thread_num());
    std::string text(200, static_cast<char>('a' + omp_get_thread_num() % 26));
    for (int v : *owned) bad_objects += v != omp_get_thread_num();
    bad_objects += text[199] != static_cast<char>('a' + omp_get_thread_num() % 26);
  }
  expect(bad_values == 0, "a global std::vector read by the team");
  expect(bad_name == 0, "a global std::string read by the team");
  expect(bad_table == 0, "a global std::map of strings read by the team");
  expect(local_sum == 5000, "a std::vector on the master's stack summed by an omp for");
  expect(bad_objects == 0, "objects created in the region");

  Grid grid(120);
  grid.fill();
  double want = 0;
  for (int i = 0; i < 120; i++)
    for (int j = 0; j < 120; j++) want += i * 1000.0 + j;
  expect(grid.sum() == want, "a member function's parallel loop");

  // Strings built inside the region by each thread, gathered by the master.
  if (kStringsShared) {
    std::vector<std::string> names(static_cast<size_t>(threads));
#pragma omp parallel
    names[static_cast<size_t>(omp_get_thread_num())] = "thread " + std::to_string(omp_get_thread_num()) +
                                                       " wrote this string, long enough to be on the heap";
    for (int t = 0; t < threads; t++)
      expect(names[static_cast<size_t>(t)] ==
                 "thread " + std::to_string(t) + " wrote this string, long enough to be on the heap",
             "strings made by the team, read by the master");
  }
  if (failures == 0) std::printf("validate_cxx: ok (%d threads)\n", threads);
  return failures == 0 ? 0 : 1;
}
