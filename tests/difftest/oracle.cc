#include "oracle.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace difftest {

namespace {

// Where a value came from, for the report.
struct Source {
  uint64_t value = 0;
  int rank = -1;  // -1: the value at the start of the program
  size_t phase = 0;
  uint32_t op_id = 0;
};

struct Held {
  uint32_t lock;  // index
  uint64_t version;
};

struct Event {
  uint64_t version;
  int rank;
  size_t index;  // position in the rank's ops of the phase
  const Op* op;
  size_t read_slot;  // index into the rank's read log (reads)
};

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string source_text(const Mismatch& m) {
  if (m.src_rank < 0) return "the value at the start of the program";
  return "write #" + std::to_string(m.src_op) + " by rank " + std::to_string(m.src_rank) + " in phase " +
         std::to_string(m.src_phase);
}

// Every access to `cell` in phases [0, upto], with the locks held and the
// versions their grants carried: the slice of the program that decides
// what the failing read must return.
std::string slice(const Program& p, const std::vector<RankLog>& logs, uint32_t cell, size_t upto,
                  const Mismatch& m) {
  std::string s;
  const Cell& c = p.cells[cell];
  s += "slice of the program for cell c" + std::to_string(cell) + " (page " + std::to_string(c.offset / p.page_size) +
       ", offset " + std::to_string(c.offset % p.page_size) + ", size " + std::to_string(c.size) + "):\n";
  std::vector<size_t> vslot(logs.size(), 0);
  size_t quiet = 0;
  for (size_t f = 0; f <= upto && f < p.phases.size(); ++f) {
    const Phase& ph = p.phases[f];
    // Lines in the order that decides the value: by the grant version of the
    // cell's lock when it is LOCKED, else by rank and program order.
    std::vector<std::pair<std::pair<uint64_t, uint64_t>, std::string>> lines;
    for (size_t r = 0; r < ph.ops.size(); ++r) {
      std::vector<std::pair<int, uint64_t>> held;
      std::vector<uint32_t> held_index;
      for (size_t k = 0; k < ph.ops[r].size(); ++k) {
        const Op& op = ph.ops[r][k];
        if (op.kind == OpKind::kLock) {
          held.push_back({p.locks[op.arg], logs[r].versions[vslot[r]++]});
          held_index.push_back(op.arg);
          continue;
        }
        if (op.kind == OpKind::kUnlock) {
          held.pop_back();
          held_index.pop_back();
          continue;
        }
        if (op.arg != cell) continue;
        std::string line = "    rank " + std::to_string(r) + ": ";
        uint64_t key = r;
        for (size_t h = 0; h < held.size(); ++h) {
          line += "lock(" + std::to_string(held[h].first) + ")@v" + std::to_string(held[h].second) + " > ";
          if (ph.mode[cell] == Mode::kLocked && held_index[h] == ph.owner[cell]) key = held[h].second;
        }
        line += "#" + std::to_string(op.id) + " " + describe_op(p, op);
        if (op.id == m.op_id && static_cast<int>(r) == m.rank)
          line += "   <-- saw " + hex(m.seen) + ", the model requires " + hex(m.expected);
        lines.push_back({{key, k}, line + "\n"});
      }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string body;
    for (auto& l : lines) body += l.second;
    if (body.empty()) {
      ++quiet;
      continue;
    }
    if (quiet) s += "  (" + std::to_string(quiet) + " phase(s) not touching c" + std::to_string(cell) + ", each ending in a barrier)\n";
    quiet = 0;
    std::string mode = mode_name(ph.mode[cell]);
    if (ph.mode[cell] == Mode::kOwned) mode += "(rank " + std::to_string(ph.owner[cell]) + ")";
    if (ph.mode[cell] == Mode::kLocked) mode += "(lock " + std::to_string(p.locks[ph.owner[cell]]) + ")";
    s += "  phase " + std::to_string(f) + ", c" + std::to_string(cell) + " is " + mode + ":\n" + body + "  barrier\n";
  }
  return s;
}

}  // namespace

CheckResult check(const Program& p, const std::vector<RankLog>& logs, std::vector<uint64_t>* state, bool use_versions) {
  CheckResult res;
  const size_t ncells = p.cells.size();
  std::vector<Source> cur(ncells);
  for (size_t c = 0; c < ncells; ++c) cur[c].value = (*state)[c];
  std::vector<size_t> rslot(logs.size(), 0), vslot(logs.size(), 0);
  std::string problems;

  // Versions: the critical sections of one lock must carry distinct,
  // consecutive versions (the run's total order of that lock).
  {
    std::map<uint32_t, std::vector<uint64_t>> by_lock;
    std::vector<size_t> vs(logs.size(), 0);
    for (const Phase& ph : p.phases)
      for (size_t r = 0; r < ph.ops.size(); ++r)
        for (const Op& op : ph.ops[r])
          if (op.kind == OpKind::kLock) {
            if (vs[r] >= logs[r].versions.size()) {
              problems += "rank " + std::to_string(r) + " logged fewer lock grants than the program has\n";
              break;
            }
            by_lock[op.arg].push_back(logs[r].versions[vs[r]++]);
          }
    for (auto& [li, v] : by_lock) {
      std::sort(v.begin(), v.end());
      for (size_t i = 1; i < v.size(); ++i)
        if (v[i] != v[i - 1] + 1) {
          problems += "lock " + std::to_string(p.locks[li]) + ": grant versions " + std::to_string(v[i - 1]) + " and " +
                      std::to_string(v[i]) + " are not consecutive (critical sections not totally ordered)\n";
          break;
        }
    }
    for (size_t r = 0; r < logs.size(); ++r) {
      size_t nreads = 0;
      for (const Phase& ph : p.phases)
        for (const Op& op : ph.ops[r]) nreads += op.kind == OpKind::kRead;
      if (nreads != logs[r].reads.size())
        problems += "rank " + std::to_string(r) + " logged " + std::to_string(logs[r].reads.size()) + " reads, the program has " +
                    std::to_string(nreads) + "\n";
    }
    if (!problems.empty()) {
      res.report = "DIFFTEST MISMATCH seed=" + std::to_string(p.seed) + " np=" + std::to_string(p.np) + ": " + problems;
      res.mismatches.push_back({});
      return res;
    }
  }

  for (size_t f = 0; f < p.phases.size(); ++f) {
    const Phase& ph = p.phases[f];
    const std::vector<Source> start = cur;
    std::vector<Source>& next = cur;  // owned and locked cells are updated in place, read-only ones never change
    std::map<uint32_t, std::vector<Event>> locked_events;
    auto expect = [&](int r, const Op& op, size_t slot, const Source& want) {
      const uint64_t seen = logs[static_cast<size_t>(r)].reads[slot];
      if (seen != want.value)
        res.mismatches.push_back({f, r, op.id, op.arg, want.value, seen, want.rank, want.phase, want.op_id});
    };
    for (size_t r = 0; r < ph.ops.size(); ++r) {
      std::vector<Held> held;
      const auto& ops = ph.ops[r];
      for (size_t k = 0; k < ops.size(); ++k) {
        const Op& op = ops[k];
        switch (op.kind) {
          case OpKind::kLock:
            held.push_back({op.arg, logs[r].versions[vslot[r]++]});
            break;
          case OpKind::kUnlock:
            held.pop_back();
            break;
          case OpKind::kRead:
          case OpKind::kWrite: {
            const uint32_t c = op.arg;
            const size_t slot = op.kind == OpKind::kRead ? rslot[r]++ : 0;
            if (ph.mode[c] == Mode::kLocked) {
              uint64_t v = 0;
              for (const Held& h : held)
                if (h.lock == ph.owner[c]) v = h.version;
              locked_events[ph.owner[c]].push_back({v, static_cast<int>(r), k, &op, slot});
            } else if (op.kind == OpKind::kRead) {
              expect(static_cast<int>(r), op, slot, ph.mode[c] == Mode::kOwned ? next[c] : start[c]);
            } else {
              next[c] = {op.value, static_cast<int>(r), f, op.id};
            }
            break;
          }
        }
      }
    }
    for (auto& [li, events] : locked_events) {
      std::stable_sort(events.begin(), events.end(), [use_versions](const Event& a, const Event& b) {
        if (!use_versions) return a.rank != b.rank ? a.rank < b.rank : a.index < b.index;
        return a.version != b.version ? a.version < b.version : a.index < b.index;
      });
      for (const Event& e : events) {
        if (e.op->kind == OpKind::kRead)
          expect(e.rank, *e.op, e.read_slot, next[e.op->arg]);
        else
          next[e.op->arg] = {e.op->value, e.rank, f, e.op->id};
      }
    }
    if (!res.mismatches.empty() && res.report.empty()) {
      const Mismatch& m = res.mismatches.front();
      // Which writes could have produced the value seen?
      std::string origin;
      for (size_t g = 0; g <= f; ++g)
        for (size_t r = 0; r < p.phases[g].ops.size(); ++r)
          for (const Op& op : p.phases[g].ops[r])
            if (op.kind == OpKind::kWrite && op.arg == m.cell && op.value == m.seen)
              origin += " #" + std::to_string(op.id) + " (rank " + std::to_string(r) + ", phase " + std::to_string(g) + ")";
      if (origin.empty()) origin = m.seen == 0 ? " none (0 is the initial value)" : " none";
      res.report = "DIFFTEST MISMATCH seed=" + std::to_string(p.seed) + " np=" + std::to_string(p.np) + " phase " +
                   std::to_string(f) + ": rank " + std::to_string(m.rank) + " op #" + std::to_string(m.op_id) +
                   " read c" + std::to_string(m.cell) + " and saw " + hex(m.seen) + "; the model requires " +
                   hex(m.expected) + " (" + source_text(m) + "). Writes of the value seen:" + origin + ". " + std::to_string(res.mismatches.size()) +
                   " mismatching read(s) in this phase.\n" + slice(p, logs, m.cell, f, m);
      return res;
    }
  }
  for (size_t c = 0; c < ncells; ++c) (*state)[c] = cur[c].value;
  return res;
}

}  // namespace difftest
