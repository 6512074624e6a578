#include "transport/peer_watch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace scopedsm {

namespace {

int open_pidfd(long pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
#else
  (void)pid;
  return -1;
#endif
}

}  // namespace

PeerWatch::~PeerWatch() {
  for (Watched& w : watched_)
    if (w.fd >= 0) close(w.fd);
}

uint64_t PeerWatch::start_ticks_of(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command (field 2) is in parentheses and may hold spaces: fields
  // are counted after its closing one. Field 22 is the start time.
  const size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return 0;
  std::istringstream rest(text.substr(close_paren + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i)
    if (!(rest >> field)) return 0;
  return std::strtoull(field.c_str(), nullptr, 10);
}

uint64_t PeerWatch::own_start_ticks() { return start_ticks_of(static_cast<long>(getpid())); }

void PeerWatch::watch(const std::vector<Peer>& peers, int size) {
  size_ = size;
  done_ = std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) done_[static_cast<size_t>(r)].store(false, std::memory_order_relaxed);
  for (const Peer& p : peers) {
    if (p.rank < 0 || p.rank >= size || p.pid <= 0) continue;
    const int fd = open_pidfd(p.pid);
    if (fd < 0) continue;
    // Opened, but is it the peer? Another pid namespace's pid may name an
    // unrelated process here (or none).
    if (p.start_ticks == 0 || start_ticks_of(p.pid) != p.start_ticks) {
      close(fd);
      continue;
    }
    watched_.push_back(Watched{p, fd, 0});
  }
}

void PeerWatch::init(MPI_Comm comm, int rank, int size) {
  MPI_Comm machine = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &machine);
  int here = 1;
  MPI_Comm_size(machine, &here);
  // rank, pid, start time
  const unsigned long long mine[3] = {static_cast<unsigned long long>(rank),
                                      static_cast<unsigned long long>(getpid()), own_start_ticks()};
  std::vector<unsigned long long> all(3 * static_cast<size_t>(here));
  MPI_Allgather(mine, 3, MPI_UNSIGNED_LONG_LONG, all.data(), 3, MPI_UNSIGNED_LONG_LONG, machine);
  MPI_Comm_free(&machine);
  std::vector<Peer> peers;
  for (int i = 0; i < here; ++i) {
    const auto r = static_cast<int>(all[3 * static_cast<size_t>(i)]);
    if (r == rank) continue;
    peers.push_back(Peer{r, static_cast<long>(all[3 * static_cast<size_t>(i) + 1]), all[3 * static_cast<size_t>(i) + 2]});
  }
  watch(peers, size);
}

void PeerWatch::finished(int rank) {
  if (done_ && rank >= 0 && rank < size_) done_[static_cast<size_t>(rank)].store(true, std::memory_order_release);
}

int PeerWatch::dead_peer(uint64_t now_ns, uint64_t grace_ns) {
  for (Watched& w : watched_) {
    if (done_[static_cast<size_t>(w.peer.rank)].load(std::memory_order_acquire)) continue;
    if (w.dead_since_ns == 0) {
      pollfd p{w.fd, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0 || (p.revents & (POLLIN | POLLHUP)) == 0) continue;
      w.dead_since_ns = now_ns;
      continue;
    }
    if (now_ns - w.dead_since_ns >= grace_ns) return w.peer.rank;
  }
  return -1;
}

long PeerWatch::pid_of(int rank) const {
  for (const Watched& w : watched_)
    if (w.peer.rank == rank) return w.peer.pid;
  return 0;
}

}  // namespace scopedsm
