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
#include <random>

namespace scopedsm {

namespace {

long futex(std::atomic<uint32_t>* addr, int op, uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), op, val, ts, nullptr, 0);
}

}  // namespace

Wakeup::~Wakeup() { shutdown(); }

void Wakeup::shutdown() {
  if (slots_ != nullptr) {
    munmap(slots_, slots_bytes_);
    slots_ = nullptr;
  }
}

Status Wakeup::init(MPI_Comm world) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  std::vector<int> members(static_cast<size_t>(node_size));
  MPI_Allgather(&rank, 1, MPI_INT, members.data(), 1, MPI_INT, node);

  // The node leader creates a uniquely named segment and tells the others.
  char name[64] = {};
  slots_bytes_ = sizeof(Slot) * static_cast<size_t>(node_size);
  int ok = 1;
  if (node_rank == 0) {
    std::random_device rd;
    std::snprintf(name, sizeof name, "/scopedsm.%d.%08x", static_cast<int>(getpid()), rd());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(slots_bytes_)) != 0) ok = 0;
    if (fd >= 0) close(fd);
  }
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node);
  MPI_Bcast(&ok, 1, MPI_INT, 0, node);
  if (ok) {
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd >= 0) {
      void* p = mmap(nullptr, slots_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      if (p != MAP_FAILED) slots_ = static_cast<Slot*>(p);
    }
  }
  int mine = slots_ != nullptr ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, node);
  MPI_Barrier(node);
  if (node_rank == 0 && ok) shm_unlink(name);
  if (!all && slots_ != nullptr) shutdown();

  local_index_.assign(static_cast<size_t>(size), -1);
  if (slots_ != nullptr) {
    for (int i = 0; i < node_size; ++i) local_index_[static_cast<size_t>(members[static_cast<size_t>(i)])] = i;
    my_slot_ = node_rank;
  }
  int remote_here = (slots_ == nullptr || node_size < size) ? 1 : 0, remote_any = 0;
  MPI_Allreduce(&remote_here, &remote_any, 1, MPI_INT, MPI_MAX, world);
  has_remote_ = remote_any != 0;
  MPI_Comm_free(&node);
  return Status::Ok();
}

Wakeup::Word* Wakeup::own(WakeRole role) const {
  if (slots_ == nullptr) return nullptr;
  return &slots_[my_slot_].words[static_cast<int>(role)];
}

void Wakeup::notify(int rank, WakeRole role) {
  if (slots_ == nullptr) return;
  int idx = local_index_[static_cast<size_t>(rank)];
  if (idx < 0) return;
  Word& w = slots_[idx].words[static_cast<int>(role)];
  w.seq.fetch_add(1, std::memory_order_seq_cst);
  if (w.sleepers.load(std::memory_order_seq_cst) != 0) futex(&w.seq, FUTEX_WAKE, INT32_MAX, nullptr);
}

uint32_t Wakeup::snapshot(WakeRole role) const {
  Word* w = own(role);
  return w == nullptr ? 0 : w->seq.load(std::memory_order_seq_cst);
}

bool Wakeup::sleep(WakeRole role, uint32_t seen, uint64_t max_ns) {
  timespec ts{static_cast<time_t>(max_ns / 1000000000ull), static_cast<long>(max_ns % 1000000000ull)};
  Word* w = own(role);
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
