#include "sync/condvar_manager.h"

#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

CondvarManager::CvState& CondvarManager::cv_state(uint32_t cv, uint32_t epoch, const char* what, int source) {
  if (home_of(static_cast<int>(cv), p_.size) != p_.rank)
    fatal("protocol error: %s from rank %d names condition variable %u, which is not homed here", what, source, cv);
  CvState& c = cvs_[cv];
  if (epoch > c.epoch) {
    c.notices.clear();  // the barrier in between made them visible
    c.epoch = epoch;
  }
  return c;
}

void CondvarManager::grant(uint32_t cv, const CvState& c, int rank) {
  // Every grant until the next reset carries them all: keep them.
  CvGrantMsg msg{cv, c.notices.sorted()};
  p_.transport->send(rank, kTagReply, encode(msg, p_.transport->next_seq()));
}

void CondvarManager::on(const Incoming& in, const CvSetMsg& msg) {
  CvState& c = cv_state(msg.cv, msg.epoch, "SETCV", in.source);
  if (msg.epoch == c.epoch && !p_.test_fault(TestFault::kSkipNotices)) c.notices.add_all(msg.notices);
  c.set = true;
  for (int w : c.waiters) grant(msg.cv, c, w);
  c.waiters.clear();
  p_.transport->send(in.source, kTagReply, encode(AckMsg{}, p_.transport->next_seq()));
}

void CondvarManager::on(const Incoming& in, const CvResetMsg& msg) {
  CvState& c = cv_state(msg.cv, msg.epoch, "RESETCV", in.source);
  c.set = false;
  c.notices.clear();
  p_.transport->send(in.source, kTagReply, encode(AckMsg{}, p_.transport->next_seq()));
}

std::vector<CvQueued> CondvarManager::queued() const {
  std::vector<CvQueued> out;
  for (const auto& [cv, c] : cvs_)
    if (!c.set)
      for (int w : c.waiters) out.push_back(CvQueued{cv, w});
  return out;
}

void CondvarManager::on(const Incoming& in, const CvWaitMsg& msg) {
  CvState& c = cv_state(msg.cv, msg.epoch, "WAITCV", in.source);
  if (c.set) {
    grant(msg.cv, c, in.source);
  } else {
    c.waiters.push_back(in.source);
  }
}

}  // namespace scopedsm
