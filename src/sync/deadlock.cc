#include "sync/deadlock.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace scopedsm {

DeadlockDetector::DeadlockDetector(int size)
    : reports_(static_cast<size_t>(size)), answers_(static_cast<size_t>(size)) {}

void DeadlockDetector::report(int rank, WaitReport wait) {
  reports_[static_cast<size_t>(rank)] = std::move(wait);
  if (probing_) void_ = true;
}

void DeadlockDetector::done(int rank, uint64_t seq) {
  WaitReport& w = reports_[static_cast<size_t>(rank)];
  if (w.seq == seq) w = WaitReport{};
}

bool DeadlockDetector::candidate() const { return !deadlocked(reports_, nullptr).empty(); }

uint64_t DeadlockDetector::start_round() {
  probing_ = true;
  void_ = false;
  ++round_;
  std::fill(answers_.begin(), answers_.end(), std::nullopt);
  queued_.clear();
  answered_ = 0;
  return round_;
}

bool DeadlockDetector::answer(int rank, uint64_t round, uint64_t seq, std::vector<CvQueued> queued) {
  auto& a = answers_[static_cast<size_t>(rank)];
  if (!probing_ || round != round_ || a) return false;
  a = seq;
  queued_.insert(queued_.end(), queued.begin(), queued.end());
  return ++answered_ == static_cast<int>(answers_.size());
}

std::optional<std::string> DeadlockDetector::finish_round() {
  probing_ = false;
  if (void_) return std::nullopt;
  // A report its process's answer contradicts is of a wait that has ended;
  // one whose condition variable's home no longer queues it, of a wait
  // whose grant has left.
  for (size_t r = 0; r < reports_.size(); ++r) {
    WaitReport& w = reports_[r];
    if (w.seq == 0) continue;
    const bool current = answers_[r] && *answers_[r] == w.seq;
    const bool queued = w.kind != WaitKind::kCondvar ||
                        std::find(queued_.begin(), queued_.end(), CvQueued{w.id, static_cast<int>(r)}) != queued_.end();
    if (!current || !queued) w = WaitReport{};
  }
  const std::vector<int> d = deadlocked(reports_, &queued_);
  if (d.empty()) return std::nullopt;
  return describe(reports_, d);
}

namespace {

bool reported(const WaitReport& w) { return w.seq != 0; }

// Who `p`'s wait waits for among the ranks in `in`, lowest first: the
// holder of its lock, the processes that have not entered its collective
// call, or (a condition variable) every other process.
std::vector<int> awaited(const std::vector<WaitReport>& reports, const std::vector<bool>& in, int p) {
  const WaitReport& w = reports[static_cast<size_t>(p)];
  std::vector<int> out;
  for (int q = 0; q < static_cast<int>(reports.size()); ++q) {
    if (q == p || !in[static_cast<size_t>(q)]) continue;
    const WaitReport& o = reports[static_cast<size_t>(q)];
    switch (w.kind) {
      case WaitKind::kLock:
        if (std::find(o.held.begin(), o.held.end(), w.id) != o.held.end()) out.push_back(q);
        break;
      case WaitKind::kCollective:
        if (o.calls <= w.id) out.push_back(q);
        break;
      case WaitKind::kCondvar:
        out.push_back(q);
        break;
    }
  }
  return out;
}

}  // namespace

std::vector<int> DeadlockDetector::deadlocked(const std::vector<WaitReport>& reports,
                                              const std::vector<CvQueued>* queued) {
  const size_t n = reports.size();
  std::vector<bool> in(n, false);
  for (size_t p = 0; p < n; ++p) {
    const WaitReport& w = reports[p];
    in[p] = reported(w);
    if (in[p] && w.kind == WaitKind::kCondvar && queued != nullptr)
      in[p] = std::find(queued->begin(), queued->end(), CvQueued{w.id, static_cast<int>(p)}) != queued->end();
  }
  // Remove every wait that may end, until none may: what is left is the
  // largest set in which each wait waits on the set (deadlock.h). Removing
  // a wait never lets another stay, so the order does not matter.
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_map<uint32_t, int> holder;
    uint32_t min_calls = UINT32_MAX;
    size_t count = 0;
    for (size_t q = 0; q < n; ++q) {
      if (!in[q]) continue;
      ++count;
      min_calls = std::min(min_calls, reports[q].calls);
      for (uint32_t l : reports[q].held) holder[l] = static_cast<int>(q);
    }
    for (size_t p = 0; p < n; ++p) {
      if (!in[p]) continue;
      const WaitReport& w = reports[p];
      bool stuck = false;
      switch (w.kind) {
        case WaitKind::kLock: {
          auto it = holder.find(w.id);
          stuck = it != holder.end() && it->second != static_cast<int>(p);
          break;
        }
        case WaitKind::kCollective:
          // Its own count is id + 1: only others can be at id or below.
          stuck = min_calls <= w.id;
          break;
        case WaitKind::kCondvar: {
          stuck = count == n;
          for (size_t q = 0; q < n && stuck; ++q)
            if (q != p && reports[q].owes) stuck = false;
          break;
        }
      }
      if (!stuck) {
        in[p] = false;
        changed = true;
      }
    }
  }
  std::vector<int> out;
  for (size_t p = 0; p < n; ++p)
    if (in[p]) out.push_back(static_cast<int>(p));
  return out;
}

std::string DeadlockDetector::describe(const std::vector<WaitReport>& reports, const std::vector<int>& deadlocked) {
  const size_t n = reports.size();
  std::vector<bool> in(n, false);
  for (int p : deadlocked) in[static_cast<size_t>(p)] = true;
  std::vector<std::vector<int>> waits_for(n);
  for (int p : deadlocked) waits_for[static_cast<size_t>(p)] = awaited(reports, in, p);
  auto next = [&](int p) {
    const std::vector<int>& w = waits_for[static_cast<size_t>(p)];
    return w.empty() ? -1 : w.front();
  };
  // Follow the waits from the lowest rank until one repeats: from there
  // they form a cycle, which the line tells first; then the others.
  std::vector<bool> seen(n, false);
  int p = deadlocked.front();
  while (p >= 0 && !seen[static_cast<size_t>(p)]) {
    seen[static_cast<size_t>(p)] = true;
    p = next(p);
  }
  std::vector<int> order;
  std::vector<bool> told(n, false);
  for (int q = p >= 0 ? p : deadlocked.front(); q >= 0 && !told[static_cast<size_t>(q)]; q = next(q)) {
    order.push_back(q);
    told[static_cast<size_t>(q)] = true;
  }
  for (int q : deadlocked)
    if (!told[static_cast<size_t>(q)]) order.push_back(q);

  std::string line = "deadlock: ";
  for (size_t i = 0; i < order.size(); ++i) {
    const int q = order[i];
    const WaitReport& w = reports[static_cast<size_t>(q)];
    const std::vector<int>& whom = waits_for[static_cast<size_t>(q)];
    const bool linked = i > 0 && waits_for[static_cast<size_t>(order[i - 1])].size() == 1 &&
                        reports[static_cast<size_t>(order[i - 1])].kind != WaitKind::kCondvar &&
                        waits_for[static_cast<size_t>(order[i - 1])].front() == q;
    if (i == 0) line += "rank " + std::to_string(q) + " ";
    else if (linked) line += ", which ";
    else line += "; rank " + std::to_string(q) + " ";
    line += "waits in " + w.call;
    switch (w.kind) {
      case WaitKind::kLock:
        line += " held by rank " + std::to_string(whom.front());
        break;
      case WaitKind::kCollective: {
        line += whom.size() == 1 ? " for rank " : " for ranks ";
        for (size_t j = 0; j < whom.size(); ++j) line += (j > 0 ? ", " : "") + std::to_string(whom[j]);
        break;
      }
      case WaitKind::kCondvar:
        line += whom.empty() ? ", which only another process could set, and there is none"
                             : " for another process to set it";
        break;
    }
  }
  line += order.size() == 1 ? "; it can never proceed" : "; none of them can proceed";
  return line;
}

}  // namespace scopedsm
