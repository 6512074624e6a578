// Litmus: message passing through a lock (G2, G5).
//
// Two channels, each a lock, a data page and a flag page homed at different
// ranks. In every iteration one process (rotating) is the writer of a
// channel: inside the lock it writes the same stamp (its grant version + 1)
// into three data words spread over the data page and then into the flag.
// Every other process reads the flag and the data inside the lock.
//   Forbidden locally: flag and data words that differ (a reader sees part
//   of a critical section).
//   Forbidden globally: a reader whose grant follows a writer's (by lock
//   version) seeing anything but the stamp of the latest earlier writer —
//   neither a stale value nor a future one. Rank 0 checks this after the run
//   from every process's record of (channel, version, value seen).
// --global-only skips the local check, so that a negative control shows the
// global check failing on its own.
#include <algorithm>

#include "litmus.h"

using namespace litmus;

namespace {

struct Record {
  int32_t channel;
  int32_t writer;  // 1 if this critical section wrote, 0 if it read
  int64_t iter;
  uint64_t version;
  uint64_t seen;  // reader: the flag value seen
  int32_t rank;
  int32_t pad;
};

}  // namespace

int main(int argc, char** argv) {
  const long iters = start("mp_lock", &argc, &argv, 1500);
  bool local_check = true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--global-only") == 0) local_check = false;
  const int np = nprocs();
  const size_t pg = page();
  const size_t words = pg / sizeof(uint64_t);
  // Pages 0..3 homed at 1, 2, 3, 4 (mod np): data0, flag0, data1, flag1.
  auto* base = static_cast<uint64_t*>(scopedsm_alloc_cyclic(4 * pg, pg, 1 % np));
  const int lock[2] = {3, 4};
  std::vector<Record> log;
  log.reserve(static_cast<size_t>(iters) * 2);

  for (long i = 0; i < iters; ++i) {
    for (int k = 0; k < 2; ++k) {
      const int ch = (rank() % 2 == 0) ? k : 1 - k;  // ranks take the channels in different orders
      uint64_t* data = base + static_cast<size_t>(2 * ch) * words;
      uint64_t* flag = base + static_cast<size_t>(2 * ch + 1) * words + 5;
      const bool writer = (i / 2 + ch) % np == rank();
      jia_lock(lock[ch]);
      const uint64_t v = version(lock[ch]);
      if (writer) {
        data[0] = v + 1;
        data[words / 2] = v + 1;
        data[words - 1] = v + 1;
        *flag = v + 1;
        log.push_back({ch, 1, i, v, 0, rank(), 0});
      } else {
        const uint64_t f = *flag;
        const uint64_t d0 = data[0], d1 = data[words / 2], d2 = data[words - 1];
        if (local_check && (d0 != f || d1 != f || d2 != f))
          violation(i, "channel %d (lock version %" PRIu64 "): flag %" PRIu64 " but data words %" PRIu64 " %" PRIu64
                    " %" PRIu64 " (all must equal the flag)",
                    ch, v, f, d0, d1, d2);
        log.push_back({ch, 0, i, v, f, rank(), 0});
      }
      jia_unlock(lock[ch]);
    }
  }

  std::vector<Record> all = gather(log);
  if (rank() == 0) {
    for (int ch = 0; ch < 2; ++ch) {
      std::vector<Record> cs;
      for (const Record& r : all)
        if (r.channel == ch) cs.push_back(r);
      std::sort(cs.begin(), cs.end(), [](const Record& a, const Record& b) { return a.version < b.version; });
      uint64_t last = 0;  // stamp of the latest writer so far
      for (size_t n = 0; n < cs.size(); ++n) {
        const Record& r = cs[n];
        if (r.version != n)
          violation(r.iter, "channel %d: critical section %zu of lock %d carried version %" PRIu64
                    " (versions must number the critical sections 0, 1, 2, ...)",
                    ch, n, lock[ch], r.version);
        if (r.writer) {
          last = r.version + 1;
        } else if (r.seen != last) {
          violation(r.iter, "channel %d: rank %d acquired lock %d at version %" PRIu64 " and read flag %" PRIu64
                    ", but the latest earlier writer wrote %" PRIu64 " (%s)",
                    ch, r.rank, lock[ch], r.version, r.seen, last, r.seen < last ? "stale" : "from the future");
        }
      }
    }
  }
  return finish(iters);
}
