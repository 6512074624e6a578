#include "transport/ack_ledger.h"

#include <string>

#include "common/log.h"

namespace scopedsm {

void AckLedger::init(int size, ReadReply read_reply) {
  owed_.assign(static_cast<size_t>(size), 0);
  read_reply_ = std::move(read_reply);
}

void AckLedger::expect(int dest) {
  if (dest < 0 || static_cast<size_t>(dest) >= owed_.size())
    fatal("internal error: an acknowledgement expected from rank %d of %zu", dest, owed_.size());
  ++owed_[static_cast<size_t>(dest)];
}

Status AckLedger::consume(MsgType type, int source, size_t payload_bytes) {
  if (!is_ack(type)) return Status::Error(std::string(msg_type_name(type)) + " is not an acknowledgement");
  if (payload_bytes != 0)
    return Status::Error(std::string(msg_type_name(type)) + " from rank " + std::to_string(source) + " carries " +
                         std::to_string(payload_bytes) + " byte(s); it has no payload");
  if (source < 0 || static_cast<size_t>(source) >= owed_.size() || owed_[static_cast<size_t>(source)] <= 0)
    return Status::Error(std::string("unexpected ") + msg_type_name(type) + " from rank " + std::to_string(source));
  --owed_[static_cast<size_t>(source)];
  return Status::Ok();
}

bool AckLedger::absorb(MsgType type, int source, size_t payload_bytes) {
  if (!is_ack(type)) return false;
  if (Status s = consume(type, source, payload_bytes); !s.ok()) fatal("protocol error: %s", s.message().c_str());
  return true;
}

int AckLedger::owing_except(int except) const {
  for (size_t d = 0; d < owed_.size(); ++d)
    if (static_cast<int>(d) != except && owed_[d] > 0) return static_cast<int>(d);
  return -1;
}

void AckLedger::wait_except(int except) {
  while (owing_except(except) >= 0) read_ack();
}

void AckLedger::wait_for(int dest) {
  while (owed(dest) > 0) read_ack();
}

void AckLedger::read_ack() {
  // An acknowledgement from anyone may come first; it counts where it belongs.
  const Reply r = read_reply_("requests to be applied (DIFFGRANT or ACK)");
  if (!absorb(r.type, r.source, r.payload_bytes))
    fatal("protocol error: waiting for acknowledgements (DIFFGRANT or ACK) but received %s from rank %d",
          msg_type_name(r.type), r.source);
}

}  // namespace scopedsm
