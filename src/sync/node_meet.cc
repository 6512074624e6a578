#include "sync/node_meet.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace scopedsm {

namespace {

constexpr size_t kNoticeBytes = 8;  // u32 page, i32 writer
constexpr size_t kAlign = 4096;

size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

NodeMeet::~NodeMeet() { shutdown(); }

void NodeMeet::shutdown() {
  for (std::byte* s : slots_)
    if (s != nullptr) munmap(s, bytes_);
  slots_.clear();
}

Status NodeMeet::init(MPI_Comm world, const NodeTopology& node, bool shared, uint64_t capacity) {
  MPI_Comm_rank(world, &rank_);
  capacity_ = capacity;
  broadcast_offset_ = round_up(sizeof(Head) + capacity * kNoticeBytes);
  bytes_ = broadcast_offset_ + kMaxBroadcast;
  Status result = Status::Ok();
  if (shared && node.local_size() > 1) {
    // Sparse: only what barriers write takes memory.
    int fd = memfd_create("scopedsm-meet", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
      close(fd);
      fd = -1;
    }
    std::vector<int> fds;
    result = node.exchange_fds(fd, &fds);
    if (fd >= 0) close(fd);
    if (result.ok()) {
      slots_.assign(fds.size(), nullptr);
      for (size_t i = 0; i < fds.size(); ++i) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fds[i], 0);
        close(fds[i]);
        if (p != MAP_FAILED) slots_[i] = static_cast<std::byte*>(p);
      }
    }
    int mine = !slots_.empty() && std::find(slots_.begin(), slots_.end(), nullptr) == slots_.end() ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, node.node_comm());
    if (!all) shutdown();
  }
  if (active()) {
    members_ = node.members();
    local_ = static_cast<size_t>(node.local_rank());
  } else {
    members_ = {rank_};
    local_ = 0;
  }
  leader_ = members_.front();
  int size = 0;
  MPI_Comm_size(world, &size);
  std::vector<int> leader_of(static_cast<size_t>(size));
  MPI_Allgather(&leader_, 1, MPI_INT, leader_of.data(), 1, MPI_INT, world);
  leaders_.clear();
  for (int r = 0; r < size; ++r)
    if (leader_of[static_cast<size_t>(r)] == r) leaders_.push_back(r);
  return result;
}

void NodeMeet::write_notices(const std::vector<WriteNotice>& notices) const {
  auto* out = reinterpret_cast<uint32_t*>(slots_[local_] + sizeof(Head));
  for (const WriteNotice& n : notices) {
    *out++ = n.page;
    const int32_t w = pack_writer(n);
    std::memcpy(out++, &w, sizeof w);
  }
}

void NodeMeet::read_notices(size_t local, uint64_t count, std::vector<WriteNotice>* out) const {
  const auto* in = reinterpret_cast<const uint32_t*>(slots_[local] + sizeof(Head));
  out->resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    WriteNotice& n = (*out)[i];
    n = WriteNotice{};
    n.page = in[2 * i];
    int32_t w;
    std::memcpy(&w, &in[2 * i + 1], sizeof w);
    unpack_writer(w, &n);
  }
}

}  // namespace scopedsm
