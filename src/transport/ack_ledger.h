// The acknowledgement ledger: what this process is still owed, per destination.
//
// DIFF, SETCV and RESETCV change state at their destination and have no
// reply of their own, so each is acknowledged (DIFFGRANT, ACK; PROTOCOL.md
// §4). Their sender records each here (expect); every reply the application
// thread reads passes through absorb(), which counts acknowledgements
// whenever they come and hands every other reply back to the reader; and
// every release first calls wait_except(), so nothing this process sent
// before the release can be overtaken by what others do after it. This is
// the only place that counts acknowledgements and the only code that knows
// which reply types are acknowledgements. Which requests owe one is the
// sender's knowledge: it calls expect() right after sending one.
//
// Why in transport/: acknowledgements arrive among the replies the
// application thread reads while it waits for something else (a grant, a
// home), and the one reader of replies is Transport::await_reply. Both the
// coherence engine (DIFF) and the synchronization client (SETCV, RESETCV)
// owe acknowledgements, so the ledger has to sit below both layers anyway.
// It knows nothing else of the protocol: two reply types, and counts.
//
// Thread owner: the application thread. It alone sends these requests and
// reads replies (the service thread only sends the acknowledgements).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "common/status.h"
#include "transport/wire.h"

namespace scopedsm {

class AckLedger {
 public:
  // A reply as the ledger needs to see it.
  struct Reply {
    MsgType type;
    int source;
    size_t payload_bytes = 0;  // an acknowledgement has none
  };
  // Waits for the next reply addressed to the application thread, whatever
  // it is; `what` describes the wait for the timeout report.
  using ReadReply = std::function<Reply(const char* what)>;

  // `size` destinations, none owing; wait_except() reads through `read_reply`.
  void init(int size, ReadReply read_reply);

  // True for the reply types that acknowledge a request: DIFFGRANT and ACK.
  static bool is_ack(MsgType type) { return type == MsgType::kDiffAck || type == MsgType::kAck; }

  // A state-changing request was sent to `dest`: it owes one acknowledgement.
  void expect(int dest);
  // An acknowledgement of type `type` arrived from `source`, with
  // `payload_bytes` after its header. An error if `source` owed none, if
  // `type` is not an acknowledgement, or if it carries a payload.
  Status consume(MsgType type, int source, size_t payload_bytes = 0);
  // For the reader of replies: true if the reply was an acknowledgement,
  // now counted (one nobody owed is a protocol error that ends the job);
  // false if it is for the reader.
  bool absorb(MsgType type, int source, size_t payload_bytes = 0);

  // Acknowledgements `dest` still owes.
  int owed(int dest) const { return owed_[static_cast<size_t>(dest)]; }
  // The lowest destination other than `except` that still owes, or -1.
  int owing_except(int except) const;

  // Returns once every destination except `except` (-1: none) has
  // acknowledged everything sent to it. Requests sent to `except` after
  // this are ordered after ours anyway: MPI keeps one sender's messages to
  // one receiver in order, and a home serves its requests in order. Every
  // reply read meanwhile must be an acknowledgement (from anyone).
  void wait_except(int except);
  // Returns once `dest` has acknowledged everything sent to it: before a
  // one-sided read from `dest`, which is not ordered after our requests.
  void wait_for(int dest);

 private:
  // Reads one reply, which must be an acknowledgement, and counts it.
  void read_ack();

  std::vector<int> owed_;
  ReadReply read_reply_;
};

}  // namespace scopedsm
