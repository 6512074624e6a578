#include "runtime/loop.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "common/limits.h"
#include "common/log.h"
#include "runtime/runtime.h"
#include "transport/traffic.h"

namespace scopedsm {

namespace {

// The loop's counters for one call of next(): synchronizations made and
// messages this thread sent and received.
class GrabCount {
 public:
  explicit GrabCount(AppCounters* stats) : stats_(stats), messages0_(Traffic::thread_messages()) {}
  ~GrabCount() { stats_->loop_messages += Traffic::thread_messages() - messages0_; }
  GrabCount(const GrabCount&) = delete;
  GrabCount& operator=(const GrabCount&) = delete;

 private:
  AppCounters* stats_;
  uint64_t messages0_;
};

}  // namespace

int LoopScheduler::queue_lock(int rank) const {
  // The reserved lock whose home (id % size) is `rank`: reserved index i is
  // lock id locks + i (common/limits.h).
  const int base = rt_->state().config.locks;
  return ((rank - base) % size_ + size_) % size_;
}

bool LoopScheduler::no_steal() const {
  return (rt_->state().config.test_faults & static_cast<uint64_t>(TestFault::kNoSteal)) != 0;
}

Segment* LoopScheduler::segments() const { return reinterpret_cast<Segment*>(central_ + sizeof(CentralQueue)); }

CentralQueue* LoopScheduler::queue() const { return reinterpret_cast<CentralQueue*>(central_); }

Segment* LoopScheduler::own_queue(int rank) const {
  return reinterpret_cast<Segment*>(queues_ + page_ * static_cast<size_t>(rank));
}

void LoopScheduler::lock(ApiCall call, int index) {
  ++rt_->state().stats.app.loop_syncs;
  rt_->sync().lock_reserved(call, index);
}

void LoopScheduler::unlock(ApiCall call, int index) { rt_->sync().unlock_reserved(call, index); }

void LoopScheduler::allocate(ApiCall call) {
  RuntimeState& s = rt_->state();
  rank_ = s.rank;
  size_ = s.size;
  if (size_ + 1 > kReservedLocks)
    fatal("%s: loop scheduling supports at most %d processes (this job has %d)", call.name, kReservedLocks - 1, size_);
  page_ = s.region.page_size();
  Placement at_rank0;
  at_rank0.block_bytes = uint64_t{1} << 40;  // larger than the allocation: all of it at rank 0
  const size_t central_bytes = sizeof(CentralQueue) + sizeof(Segment) * static_cast<size_t>(size_);
  const std::string what = std::string(call.name) + " [the loop queue]";
  central_ = static_cast<std::byte*>(rt_->allocate(call, what, central_bytes, at_rank0));
  Placement per_rank;
  per_rank.block_bytes = page_;
  queues_ = static_cast<std::byte*>(rt_->allocate(call, what + " [one page per process]",
                                                  page_ * static_cast<size_t>(size_), per_rank));
}

void LoopScheduler::start(ApiCall call, int64_t begin, int64_t end, const char* schedule, const void* data,
                          size_t stride) {
  RuntimeState& s = rt_->state();
  Schedule sched = s.config.schedule;  // checked at start-up
  if (schedule != nullptr) {
    if (Status st = parse_schedule(schedule, &sched); !st.ok()) fatal("%s: %s", call.name, st.message().c_str());
  }
  if (end < begin) end = begin;
  if (data != nullptr && stride == 0) fatal("%s: a data address needs a stride (bytes per iteration) above 0", call.name);
  // Every process must start the same loop: checked at the rendezvous.
  char desc[256];
  std::snprintf(desc, sizeof desc, "%s(begin=%" PRId64 ", end=%" PRId64 ", schedule=%s, data=%p, stride=%zu)",
                call.name, begin, end, schedule_text(sched).c_str(), data, stride);
  rt_->sync().collective(desc, {});
  if (central_ == nullptr) allocate(call);
  if (rank_ == 0) {
    std::vector<int> owner;
    if (data != nullptr && is_affinity_scheme(sched.scheme)) {
      owner.resize(static_cast<size_t>(end - begin));
      const std::byte* base = static_cast<const std::byte*>(data);
      const std::byte* page = nullptr;
      int home = -1;
      for (size_t i = 0; i < owner.size(); ++i) {
        const std::byte* a = base + i * stride;
        const std::byte* p = a - (reinterpret_cast<uintptr_t>(a) % page_);
        if (p != page) {
          page = p;
          home = rt_->home_of(a, call);
        }
        owner[i] = home;
      }
    }
    const std::vector<Segment> segs = affinity_segments(begin, end, size_, owner);
    *queue() = central_start(sched, begin, end, size_);
    for (int r = 0; r < size_; ++r) {
      segments()[r] = segs[static_cast<size_t>(r)];
      *own_queue(r) = segs[static_cast<size_t>(r)];
    }
  }
  rt_->sync().barrier(call);
  schedule_ = sched;
  begin_ = begin;
  end_ = end;
  started_ = true;
  static_taken_ = false;
}

bool LoopScheduler::next(ApiCall call, Chunk* out) {
  if (!started_) fatal("%s: no loop started; start one first (every process, collectively)", call.name);
  AppCounters& stats = rt_->state().stats.app;
  bool got;
  {
    GrabCount count(&stats);
    got = grab(call, out);
  }
  if (got) ++stats.loop_grabs;
  else *out = {end_, end_};
  return got;
}

bool LoopScheduler::grab(ApiCall call, Chunk* out) {
  switch (schedule_.scheme) {
    case Scheme::kStatic:
      if (static_taken_) return false;
      static_taken_ = true;
      *out = static_block(begin_, end_, size_, rank_);
      return out->size() > 0;
    case Scheme::kABS: return grab_abs(call, out);
    case Scheme::kAFS:
    case Scheme::kAAFS: return grab_distributed(call, out);
    default: return grab_central(call, out);
  }
}

bool LoopScheduler::grab_central(ApiCall call, Chunk* out) {
  lock(call, central_lock());
  const bool got = central_grab(schedule_, size_, queue(), out);
  unlock(call, central_lock());
  return got;
}

bool LoopScheduler::grab_abs(ApiCall call, Chunk* out) {
  const int64_t n = end_ - begin_;
  lock(call, central_lock());
  Segment* segs = segments();
  Segment& own = segs[rank_];
  bool got = false;
  if (own.remaining() > 0) {
    *out = take_front(&own, local_chunk(schedule_, n, size_, own, 0));
    own.taken += out->size();
    got = true;
  } else if (!no_steal()) {
    const int victim = most_loaded(segs, size_);
    if (victim >= 0) {
      *out = take_back(&segs[victim], steal_chunk(schedule_, n, size_, segs[victim].remaining()));
      ++rt_->state().stats.app.loop_steals;
      got = true;
    }
  }
  unlock(call, central_lock());
  return got;
}

bool LoopScheduler::grab_distributed(ApiCall call, Chunk* out) {
  const int64_t n = end_ - begin_;
  const bool adaptive = schedule_.scheme == Scheme::kAAFS;
  // AAFS: every queue's count and remainder, each read under its lock.
  std::vector<int64_t> remaining(static_cast<size_t>(size_), 0);
  double mean_taken = 0;
  const auto read_all = [&](bool skip_own) {
    for (int r = 0; r < size_; ++r) {
      if (skip_own && r == rank_) continue;
      lock(call, queue_lock(r));
      remaining[static_cast<size_t>(r)] = own_queue(r)->remaining();
      mean_taken += static_cast<double>(own_queue(r)->taken) / size_;
      unlock(call, queue_lock(r));
    }
  };
  if (adaptive) read_all(false);
  // Our queue only shrinks while we do not take from it: AAFS, having read
  // it empty, goes straight to the steal (p + 1 synchronizations in all).
  if (!adaptive || remaining[static_cast<size_t>(rank_)] > 0) {
    Segment* mine = own_queue(rank_);
    lock(call, queue_lock(rank_));
    if (mine->remaining() > 0) {
      *out = take_front(mine, local_chunk(schedule_, n, size_, *mine, mean_taken));
      mine->taken += out->size();
      unlock(call, queue_lock(rank_));
      return true;
    }
    unlock(call, queue_lock(rank_));
  }
  if (no_steal()) return false;
  // Remote: the most loaded queue (AFS reads them now; AAFS has), then a
  // steal from it; if it emptied meanwhile, look again.
  remaining[static_cast<size_t>(rank_)] = 0;
  if (!adaptive) read_all(true);
  for (;;) {
    int victim = -1;
    for (int r = 0; r < size_; ++r)
      if (remaining[static_cast<size_t>(r)] > 0 &&
          (victim < 0 || remaining[static_cast<size_t>(r)] > remaining[static_cast<size_t>(victim)]))
        victim = r;
    if (victim < 0) return false;
    lock(call, queue_lock(victim));
    Segment* q = own_queue(victim);
    *out = take_back(q, steal_chunk(schedule_, n, size_, q->remaining()));
    remaining[static_cast<size_t>(victim)] = q->remaining();
    unlock(call, queue_lock(victim));
    if (out->size() > 0) {
      ++rt_->state().stats.app.loop_steals;
      return true;
    }
  }
}

}  // namespace scopedsm
