#include "sync/condvar_manager.h"

#include <algorithm>

#include "common/log.h"
#include "jia.h"

namespace scopedsm {

CondvarManager::CvState& CondvarManager::cv_state(uint32_t cv, uint32_t epoch, const char* what, int source) {
  if (cv >= static_cast<uint32_t>(Maxcondvs) || home_of(static_cast<int>(cv), s_->size) != s_->rank)
    fatal("protocol error: %s from rank %d names condition variable %u, which is not homed here", what, source, cv);
  CvState& c = cvs_[cv];
  if (epoch > c.epoch) {
    c.notices.clear();  // the barrier in between made them visible
    c.epoch = epoch;
  }
  return c;
}

void CondvarManager::grant(uint32_t cv, const CvState& c, int rank) {
  std::vector<WriteNotice> out;
  out.reserve(c.notices.size());
  for (const auto& [page, writer] : c.notices) out.push_back({page, writer});
  std::sort(out.begin(), out.end(), [](const WriteNotice& a, const WriteNotice& b) { return a.page < b.page; });
  Writer w(MsgType::kCvGrant);
  w.put<uint32_t>(cv);
  put_notices(&w, out);
  s_->transport.send(rank, kTagReply, w.finish(s_->transport.next_seq()));
}

void CondvarManager::on_set(const Incoming& in, Reader* r) {
  uint32_t cv = 0, epoch = 0;
  std::vector<WriteNotice> notices;
  if (!r->get(&cv).ok() || !r->get(&epoch).ok() || !get_notices(r, s_->pages.allocated(), s_->size, &notices).ok())
    fatal("protocol error: malformed SETCV from rank %d", in.source);
  CvState& c = cv_state(cv, epoch, "SETCV", in.source);
  if (epoch == c.epoch && !s_->test_fault("skip-notices")) {
    for (const WriteNotice& n : notices) {
      auto [it, inserted] = c.notices.try_emplace(n.page, n.writer);
      if (!inserted && it->second != n.writer) it->second = kMultipleWriters;
    }
  }
  c.set = true;
  for (int w : c.waiters) grant(cv, c, w);
  c.waiters.clear();
}

void CondvarManager::on_reset(const Incoming& in, Reader* r) {
  uint32_t cv = 0, epoch = 0;
  if (!r->get(&cv).ok() || !r->get(&epoch).ok()) fatal("protocol error: malformed RESETCV from rank %d", in.source);
  CvState& c = cv_state(cv, epoch, "RESETCV", in.source);
  c.set = false;
  c.notices.clear();
}

void CondvarManager::on_wait(const Incoming& in, Reader* r) {
  uint32_t cv = 0, epoch = 0;
  if (!r->get(&cv).ok() || !r->get(&epoch).ok()) fatal("protocol error: malformed WAITCV from rank %d", in.source);
  CvState& c = cv_state(cv, epoch, "WAITCV", in.source);
  if (c.set) {
    grant(cv, c, in.source);
  } else {
    c.waiters.push_back(in.source);
  }
}

}  // namespace scopedsm
