#include "program.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace difftest {

namespace {

// splitmix64: seeds and a small fast generator.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
};

// Ways to cut one aligned 8-byte word into cells.
const std::vector<std::vector<uint32_t>> kSplits = {
    {8}, {8}, {4, 4}, {2, 2, 4}, {4, 2, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2}, {1, 1, 2, 4}, {4}, {2, 1}};

uint64_t value_of_size(Rng& rng, uint32_t size) {
  uint64_t v = rng.next();
  if (size < 8) v &= (1ull << (8 * size)) - 1;
  return v;
}

struct PhaseGen {
  Rng& rng;
  const Program& p;
  Phase& ph;
  uint32_t& next_id;
  std::vector<std::vector<uint32_t>> owned;   // per rank
  std::vector<uint32_t> readonly;
  std::vector<std::vector<uint32_t>> locked;  // per lock index

  void access_free(int me, std::vector<Op>& out) {
    const auto& mine = owned[static_cast<size_t>(me)];
    const size_t n = mine.size() + readonly.size();
    if (n == 0) return;
    const size_t k = rng.below(static_cast<uint32_t>(n));
    if (k < mine.size()) {
      const uint32_t c = mine[k];
      if (rng.chance(0.55))
        out.push_back({OpKind::kWrite, c, value_of_size(rng, p.cells[c].size), next_id++});
      else
        out.push_back({OpKind::kRead, c, 0, next_id++});
    } else {
      out.push_back({OpKind::kRead, readonly[k - mine.size()], 0, next_id++});
    }
  }

  void access_locked(const std::vector<uint32_t>& held, std::vector<Op>& out) {
    const uint32_t li = held[rng.below(static_cast<uint32_t>(held.size()))];
    const auto& cs = locked[li];
    if (cs.empty()) return;
    const uint32_t c = cs[rng.below(static_cast<uint32_t>(cs.size()))];
    if (rng.chance(0.5))
      out.push_back({OpKind::kWrite, c, value_of_size(rng, p.cells[c].size), next_id++});
    else
      out.push_back({OpKind::kRead, c, 0, next_id++});
  }

  // A critical section of a lock with index > `above` (-1: any).
  void critical_section(int me, int above, std::vector<uint32_t>& held, std::vector<Op>& out) {
    const int nl = static_cast<int>(p.locks.size());
    if (above + 1 >= nl) return;
    const uint32_t li = static_cast<uint32_t>(above + 1) + rng.below(static_cast<uint32_t>(nl - above - 1));
    out.push_back({OpKind::kLock, li, 0, next_id++});
    held.push_back(li);
    const uint32_t items = 1 + rng.below(7);
    for (uint32_t i = 0; i < items; ++i) {
      const double r = static_cast<double>(rng.below(1000)) / 1000.0;
      if (r < 0.6)
        access_locked(held, out);
      else if (r < 0.82 || held.size() >= 4)
        access_free(me, out);
      else
        critical_section(me, static_cast<int>(li), held, out);
    }
    held.pop_back();
    out.push_back({OpKind::kUnlock, li, 0, next_id++});
  }
};

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kOwned: return "OWNED";
    case Mode::kReadOnly: return "READONLY";
    case Mode::kLocked: return "LOCKED";
  }
  return "?";
}

Program generate(uint64_t seed, int np, uint32_t page_size) {
  Rng rng(seed ^ 0x5c0bed5eedull);
  Program p;
  p.seed = seed;
  p.np = np;
  p.page_size = page_size;
  p.pages = 64 + rng.below(kRegionPages - 64 + 1);

  // Cells: words cut into pieces, mostly on a set of hot pages.
  std::vector<uint32_t> hot;
  const uint32_t nhot = 12 + rng.below(13);
  for (uint32_t i = 0; i < nhot; ++i) hot.push_back(rng.below(p.pages));
  const uint32_t target = 150 + rng.below(351);
  const uint32_t words_per_page = page_size / 8;
  std::set<uint64_t> used_words;
  while (p.cells.size() < target) {
    const uint32_t pg = rng.chance(0.7) ? hot[rng.below(nhot)] : rng.below(p.pages);
    const uint32_t w = rng.chance(0.5) ? rng.below(16) : rng.below(words_per_page);  // crowd the first words
    const uint64_t word = static_cast<uint64_t>(pg) * words_per_page + w;
    if (!used_words.insert(word).second) continue;
    uint32_t off = static_cast<uint32_t>(word * 8);
    for (uint32_t size : kSplits[rng.below(static_cast<uint32_t>(kSplits.size()))]) {
      p.cells.push_back({off, size});
      off += size;
    }
  }

  // Locks: 1 to 6 distinct ids below 64 (homed all over), increasing.
  std::set<int> ids;
  const uint32_t nlocks = 1 + rng.below(6);
  while (ids.size() < nlocks) ids.insert(static_cast<int>(rng.below(64)));
  p.locks.assign(ids.begin(), ids.end());

  uint32_t next_id = 0;
  const uint32_t nphases = 6 + rng.below(15);
  const uint32_t ncells = static_cast<uint32_t>(p.cells.size());
  for (uint32_t f = 0; f < nphases; ++f) {
    Phase ph;
    ph.mode.resize(ncells);
    ph.owner.resize(ncells);
    ph.ops.resize(static_cast<size_t>(np));
    // Mode mix of this phase.
    const uint32_t w_owned = rng.below(5), w_ro = rng.below(3), w_locked = 1 + rng.below(5);
    const uint32_t wsum = w_owned + w_ro + w_locked;
    PhaseGen g{rng, p, ph, next_id, std::vector<std::vector<uint32_t>>(static_cast<size_t>(np)), {},
               std::vector<std::vector<uint32_t>>(p.locks.size())};
    for (uint32_t c = 0; c < ncells; ++c) {
      const uint32_t x = rng.below(wsum);
      if (x < w_owned) {
        ph.mode[c] = Mode::kOwned;
        ph.owner[c] = rng.below(static_cast<uint32_t>(np));
        g.owned[ph.owner[c]].push_back(c);
      } else if (x < w_owned + w_ro) {
        ph.mode[c] = Mode::kReadOnly;
        ph.owner[c] = 0;
        g.readonly.push_back(c);
      } else {
        ph.mode[c] = Mode::kLocked;
        ph.owner[c] = rng.below(static_cast<uint32_t>(p.locks.size()));
        g.locked[ph.owner[c]].push_back(c);
      }
    }
    for (int r = 0; r < np; ++r) {
      auto& out = ph.ops[static_cast<size_t>(r)];
      const size_t budget = 5 + rng.below(60);
      std::vector<uint32_t> held;
      while (out.size() < budget) {
        if (rng.chance(0.4))
          g.access_free(r, out);
        else
          g.critical_section(r, -1, held, out);
      }
    }
    p.phases.push_back(std::move(ph));
  }

  // Verification: every rank reads every cell (in its own order).
  Phase v;
  v.mode.assign(ncells, Mode::kReadOnly);
  v.owner.assign(ncells, 0);
  v.ops.resize(static_cast<size_t>(np));
  for (int r = 0; r < np; ++r)
    for (uint32_t k = 0; k < ncells; ++k)
      v.ops[static_cast<size_t>(r)].push_back({OpKind::kRead, (k + static_cast<uint32_t>(r) * 37) % ncells, 0, next_id++});
  p.phases.push_back(std::move(v));
  return p;
}

Program without(const Program& p, const std::set<uint32_t>& drop) {
  Program q = p;
  for (Phase& ph : q.phases)
    for (auto& ops : ph.ops) {
      std::vector<Op> kept;
      int skipping = 0;          // depth inside a dropped critical section
      std::vector<bool> opened;  // per open lock: kept (true) or unwrapped
      for (const Op& op : ops) {
        if (skipping > 0) {
          if (op.kind == OpKind::kLock) ++skipping;
          if (op.kind == OpKind::kUnlock) --skipping;
          continue;
        }
        if (op.kind == OpKind::kLock && drop.count(op.id)) {
          skipping = 1;
          continue;
        }
        if ((op.kind == OpKind::kRead || op.kind == OpKind::kWrite) && drop.count(op.id)) continue;
        if (op.kind == OpKind::kLock) {
          const bool unwrapped = drop.count(unwrap(op.id)) > 0;
          opened.push_back(!unwrapped);
          if (unwrapped) continue;
        }
        if (op.kind == OpKind::kUnlock) {
          const bool was_kept = opened.back();
          opened.pop_back();
          if (!was_kept) continue;
        }
        kept.push_back(op);
      }
      ops = std::move(kept);
    }
  return q;
}

std::vector<std::vector<uint32_t>> drop_units(const Program& p, int level) {
  std::vector<std::vector<uint32_t>> units;
  for (const Phase& ph : p.phases) {
    std::vector<uint32_t> phase_unit;
    for (const auto& ops : ph.ops) {
      int depth = 0;
      for (const Op& op : ops) {
        const bool top = depth == 0 && op.kind != OpKind::kUnlock;
        if (top) phase_unit.push_back(op.id);
        if (level == 1 && top) units.push_back({op.id});
        if (level == 2 && op.kind != OpKind::kUnlock) units.push_back({op.id});
        if (op.kind == OpKind::kLock) ++depth;
        if (op.kind == OpKind::kUnlock) --depth;
      }
    }
    if (level == 0 && !phase_unit.empty()) units.push_back(phase_unit);
  }
  return units;
}

std::set<uint32_t> slice_drop(const Program& p, uint32_t cell) {
  std::set<uint32_t> drop;
  for (const Phase& ph : p.phases)
    for (const auto& ops : ph.ops) {
      std::vector<std::pair<uint32_t, bool>> open;  // lock op id, touches the cell
      for (const Op& op : ops) {
        if (op.kind == OpKind::kLock) {
          open.push_back({op.id, false});
        } else if (op.kind == OpKind::kUnlock) {
          auto [id, touches] = open.back();
          open.pop_back();
          if (!touches) drop.insert(id);
          if (touches && !open.empty()) open.back().second = true;
        } else if (op.arg != cell) {
          drop.insert(op.id);
        } else if (!open.empty()) {
          open.back().second = true;
        }
      }
    }
  return drop;
}

std::vector<uint32_t> unwrappable(const Program& p) {
  std::vector<uint32_t> ids;
  for (const Phase& ph : p.phases)
    for (const auto& ops : ph.ops) {
      struct Open {
        uint32_t id, lock;
        bool guarded_access;
      };
      std::vector<Open> open;
      for (const Op& op : ops) {
        if (op.kind == OpKind::kLock) {
          open.push_back({op.id, op.arg, false});
        } else if (op.kind == OpKind::kUnlock) {
          if (!open.back().guarded_access) ids.push_back(open.back().id);
          open.pop_back();
        } else if (ph.mode[op.arg] == Mode::kLocked) {
          for (Open& o : open)
            if (o.lock == ph.owner[op.arg]) o.guarded_access = true;
        }
      }
    }
  return ids;
}

Counts count(const Program& p) {
  Counts c;
  for (const Phase& ph : p.phases) {
    ++c.barriers;
    for (const auto& ops : ph.ops)
      for (const Op& op : ops) {
        if (op.kind == OpKind::kRead) ++c.reads;
        if (op.kind == OpKind::kWrite) ++c.writes;
        if (op.kind == OpKind::kLock) ++c.locks;
      }
  }
  return c;
}

std::string describe_op(const Program& p, const Op& op) {
  char buf[160];
  switch (op.kind) {
    case OpKind::kRead:
      std::snprintf(buf, sizeof buf, "read c%u", op.arg);
      break;
    case OpKind::kWrite:
      std::snprintf(buf, sizeof buf, "write c%u=0x%llx", op.arg, static_cast<unsigned long long>(op.value));
      break;
    case OpKind::kLock:
      std::snprintf(buf, sizeof buf, "lock(%d) {", p.locks[op.arg]);
      break;
    case OpKind::kUnlock:
      std::snprintf(buf, sizeof buf, "} unlock(%d)", p.locks[op.arg]);
      break;
  }
  return buf;
}

std::string describe(const Program& p) {
  std::string s;
  char buf[200];
  std::snprintf(buf, sizeof buf, "program seed=%llu np=%d pages=%u cells=%zu locks=", static_cast<unsigned long long>(p.seed),
                p.np, p.pages, p.cells.size());
  s += buf;
  for (int l : p.locks) s += std::to_string(l) + " ";
  s += "\n";
  // Cells that some op touches.
  std::set<uint32_t> touched;
  for (const Phase& ph : p.phases)
    for (const auto& ops : ph.ops)
      for (const Op& op : ops)
        if (op.kind == OpKind::kRead || op.kind == OpKind::kWrite) touched.insert(op.arg);
  for (uint32_t c : touched) {
    std::snprintf(buf, sizeof buf, "  c%u: page %u offset %u size %u\n", c, p.cells[c].offset / p.page_size,
                  p.cells[c].offset % p.page_size, p.cells[c].size);
    s += buf;
  }
  size_t empty_run = 0;
  auto flush_empty = [&](size_t upto) {
    if (empty_run == 0) return;
    s += "phases " + std::to_string(upto - empty_run) + "-" + std::to_string(upto - 1) + ": (empty; " +
         std::to_string(empty_run) + " barrier(s))\n";
    empty_run = 0;
  };
  for (size_t f = 0; f < p.phases.size(); ++f) {
    const Phase& ph = p.phases[f];
    bool any = false;
    for (const auto& ops : ph.ops) any = any || !ops.empty();
    if (!any) {
      ++empty_run;
      continue;
    }
    flush_empty(f);
    s += "phase " + std::to_string(f) + ":";
    std::set<uint32_t> cells;
    for (const auto& ops : ph.ops)
      for (const Op& op : ops)
        if (op.kind == OpKind::kRead || op.kind == OpKind::kWrite) cells.insert(op.arg);
    for (uint32_t c : cells) {
      s += " c" + std::to_string(c) + "=" + mode_name(ph.mode[c]);
      if (ph.mode[c] == Mode::kOwned) s += "(" + std::to_string(ph.owner[c]) + ")";
      if (ph.mode[c] == Mode::kLocked) s += "(" + std::to_string(p.locks[ph.owner[c]]) + ")";
    }
    s += "\n";
    for (size_t r = 0; r < ph.ops.size(); ++r) {
      if (ph.ops[r].empty()) continue;
      s += "  rank " + std::to_string(r) + ":";
      for (const Op& op : ph.ops[r]) s += " " + describe_op(p, op);
      s += "\n";
    }
    s += "barrier\n";
  }
  flush_empty(p.phases.size());
  return s;
}

}  // namespace difftest
