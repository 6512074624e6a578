// The deadlock detector's logic: which reported synchronization waits can
// never end, proved from what the processes report, and the one line that
// says so. Pure logic, no MPI: rank 0's DeadlockWatch (sync/deadlock_watch.h)
// feeds it the messages and sends its probes.
//
// A process whose synchronization wait (a lock acquire, a barrier or other
// collective call, a condition-variable wait) has lasted a second reports
// it: a per-process sequence number naming the wait, what it waits in, the
// locks it holds, how many collective calls it has entered, whether it
// still owes acknowledgements (SYNCWAIT). Nothing about a wait can change
// while it lasts: the process's application thread is inside it.
//
// Each reported wait w_p of process p comes with edges "w_p cannot end
// before w_q ends", from what the reports say alone:
//   lock l:          to the process q whose wait reports holding l. q
//                    holds l from before w_q began until after it ends, and
//                    l reaches p only once q has released it.
//   collective c:    (barrier, jia_wait, allocation, exit: every process's
//                    c-th collective call) to every q that had entered at
//                    most c collective calls when w_q began: q enters call c
//                    only after w_q ends.
//   condition var v: to every other process, provided none owes
//                    acknowledgements (each SETCV it sent has been applied
//                    at v's home) and v's home says p is still queued on v
//                    unset (no grant to p has left): only a SETCV sent after
//                    some other process's wait ends can then set v.
// A lock or collective wait can end only once every process it waits for
// has done something (AND); a condition-variable wait once any other process
// has (OR). The deadlocked set is the largest set D of waits such that
// every lock or collective wait in D has an edge into D and every
// condition-variable wait in D has all its edges into D: by the edges, no
// wait of D can end before another wait of D has ended, so none ever ends.
//
// The reports at rank 0 may be stale: a wait may have ended since (its end
// is not reported). So when the reports alone show a deadlocked set
// (candidate()), rank 0 probes every process (SYNCPROBE); each answers
// from its service thread with the wait its application thread is in now
// and, as a condition variable's home, who is queued on which unset
// condition variable (SYNCSTATE). A report confirmed by an answer given
// after every report was received names a wait that had begun before, and
// was still going on after, each of the other reported waits began, which
// is all the edges above need; no time limit is involved, and a grant in
// flight is never mistaken for a deadlock (its receiver's wait is over, or
// the holder's wait that kept the grant back is). Reports the answers
// contradict are dropped; a report arriving during a probe round voids the
// round, and a new one starts.
//
// Thread owner: whichever thread serves rank 0's requests (the serve mutex).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scopedsm {

enum class WaitKind : uint32_t { kLock = 1, kCollective = 2, kCondvar = 3 };

// A synchronization wait as its process reports it (SYNCWAIT).
struct WaitReport {
  uint64_t seq = 0;  // the process's number for this wait, from 1
  WaitKind kind = WaitKind::kLock;
  uint32_t id = 0;     // the lock, the collective call's number (from 0), or the condition variable
  uint32_t calls = 0;  // collective calls the process had entered when the wait began
  bool owes = false;   // some SETCV, RESETCV or DIFF of the process was not yet acknowledged
  std::vector<uint32_t> held;  // locks held, outermost first
  std::string call;            // the call as the program wrote it: "jia_lock(3)", "jia_barrier"
};

// A process queued on an unset condition variable at the variable's home.
struct CvQueued {
  uint32_t cv = 0;
  int rank = 0;
  bool operator==(const CvQueued&) const = default;
};

class DeadlockDetector {
 public:
  explicit DeadlockDetector(int size);

  // The latest wait `rank` reported (it replaces the one before). During a
  // probe round, voids the round.
  void report(int rank, WaitReport wait);
  // `rank`'s wait `seq` has ended (SYNCDONE): its report goes, if it is
  // that wait's.
  void done(int rank, uint64_t seq);
  // Whether the reports, all taken as current, show a deadlock: then a probe
  // round is due.
  bool candidate() const;
  bool probing() const { return probing_; }
  // Starts a probe round and returns its number (from 1).
  uint64_t start_round();
  // `rank`'s answer to round `round`: the wait it is in now (0: none) and the
  // processes queued on unset condition variables homed there. An answer to
  // another round, or a second answer, is ignored. Returns true once every
  // process has answered the current round.
  bool answer(int rank, uint64_t round, uint64_t seq, std::vector<CvQueued> queued);
  // Ends a complete round: drops the reports its answers contradict and
  // returns the deadlock line if the confirmed reports prove one. A voided
  // round proves nothing and drops nothing.
  std::optional<std::string> finish_round();

  // The deadlocked set among `reports` (indexed by rank; seq 0: none), given
  // which condition-variable waits their homes confirm (`queued`; nullptr:
  // take every one as confirmed). Ranks in increasing order; empty: none.
  static std::vector<int> deadlocked(const std::vector<WaitReport>& reports, const std::vector<CvQueued>* queued);
  // "deadlock: rank 1 waits in jia_barrier for rank 0, which waits in
  // jia_lock(3) held by rank 1; none of them can proceed", for a set
  // deadlocked() returned.
  static std::string describe(const std::vector<WaitReport>& reports, const std::vector<int>& deadlocked);

 private:
  std::vector<WaitReport> reports_;  // by rank; seq 0: no report
  bool probing_ = false;
  bool void_ = false;  // a report arrived during the round
  uint64_t round_ = 0;
  std::vector<std::optional<uint64_t>> answers_;  // this round's, by rank
  std::vector<CvQueued> queued_;                  // this round's, from every home
  int answered_ = 0;
};

}  // namespace scopedsm
