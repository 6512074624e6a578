#include "transport/wakeup.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <algorithm>

namespace scopedsm {

namespace {

long futex(std::atomic<uint32_t>* addr, int op, uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), op, val, ts, nullptr, 0);
}

}  // namespace

Wakeup::~Wakeup() { shutdown(); }

void Wakeup::shutdown() {
  for (Slot*& slot : slots_) {
    if (slot != nullptr) munmap(slot, sizeof(Slot));
    slot = nullptr;
  }
  slots_.clear();
}

Status Wakeup::init(const NodeTopology& node) {
  node_ = &node;
  // Our own slot lives in a memfd; the node's processes map each other's.
  int fd = memfd_create("scopedsm-wakeup", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, sizeof(Slot)) != 0) {
    close(fd);
    fd = -1;
  }
  std::vector<int> fds;
  Status shared = node.exchange_fds(fd, &fds);
  if (fd >= 0) close(fd);
  if (shared.ok()) {
    slots_.assign(fds.size(), nullptr);
    for (size_t i = 0; i < fds.size(); ++i) {
      void* p = mmap(nullptr, sizeof(Slot), PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
      close(fds[i]);
      if (p != MAP_FAILED) slots_[i] = static_cast<Slot*>(p);
    }
  }
  int mine = !slots_.empty() && std::find(slots_.begin(), slots_.end(), nullptr) == slots_.end() ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, node.node_comm());
  if (!all) shutdown();
  my_slot_ = node.local_rank();
  // Either every process of a node maps every slot or none does, so this
  // is the same everywhere when the job is one node.
  has_remote_ = node.nodes() > 1 || slots_.empty();
  return Status::Ok();
}

Wakeup::Word* Wakeup::word(int rank, WakeRole role) const {
  if (slots_.empty()) return nullptr;
  int idx = rank < 0 ? my_slot_ : node_->local_index(rank);
  if (idx < 0) return nullptr;
  return &slots_[static_cast<size_t>(idx)]->words[static_cast<int>(role)];
}

void Wakeup::notify(int rank, WakeRole role) {
  Word* w = word(rank, role);
  if (w == nullptr) return;
  w->seq.fetch_add(1, std::memory_order_seq_cst);
  if (w->sleepers.load(std::memory_order_seq_cst) != 0) futex(&w->seq, FUTEX_WAKE, INT32_MAX, nullptr);
}

uint32_t Wakeup::snapshot(WakeRole role) const {
  Word* w = word(-1, role);
  return w == nullptr ? 0 : w->seq.load(std::memory_order_seq_cst);
}

bool Wakeup::sleep(WakeRole role, uint32_t seen, uint64_t max_ns) {
  timespec ts{static_cast<time_t>(max_ns / 1000000000ull), static_cast<long>(max_ns % 1000000000ull)};
  Word* w = word(-1, role);
  if (w == nullptr) {
    nanosleep(&ts, nullptr);
    return false;
  }
  w->sleepers.fetch_add(1, std::memory_order_seq_cst);
  // The caller re-polls after this returns; the word check closes the race
  // with a notify that happened after `seen` was read.
  if (w->seq.load(std::memory_order_seq_cst) == seen) futex(&w->seq, FUTEX_WAIT, seen, &ts);
  w->sleepers.fetch_sub(1, std::memory_order_seq_cst);
  return w->seq.load(std::memory_order_seq_cst) != seen;
}

}  // namespace scopedsm
