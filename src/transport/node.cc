#include "transport/node.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

namespace scopedsm {

void NodeTopology::finalize() {
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
}

Status NodeTopology::init(MPI_Comm world, bool sharing, uint32_t max_procs) {
  sharing_ = sharing;
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);
  if (sharing) {
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_);
    if (max_procs > 0) {
      // Smaller nodes within the machine: groups of consecutive local ranks.
      int local = 0;
      MPI_Comm_rank(node_comm_, &local);
      MPI_Comm part = MPI_COMM_NULL;
      MPI_Comm_split(node_comm_, local / static_cast<int>(max_procs), local, &part);
      MPI_Comm_free(&node_comm_);
      node_comm_ = part;
    }
  } else {
    MPI_Comm_split(world, rank_, 0, &node_comm_);  // a node of one
  }
  int local_size = 1;
  MPI_Comm_rank(node_comm_, &local_rank_);
  MPI_Comm_size(node_comm_, &local_size);
  members_.assign(static_cast<size_t>(local_size), -1);
  MPI_Allgather(&rank_, 1, MPI_INT, members_.data(), 1, MPI_INT, node_comm_);
  local_index_.assign(static_cast<size_t>(size_), -1);
  for (int i = 0; i < local_size; ++i) local_index_[static_cast<size_t>(members_[static_cast<size_t>(i)])] = i;

  // Number the nodes by their lowest rank.
  int leader = *std::min_element(members_.begin(), members_.end());
  std::vector<int> leaders(static_cast<size_t>(size_));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, world);
  std::map<int, int> number;
  for (int l : leaders) number.emplace(l, 0);
  int n = 0;
  for (auto& [l, id] : number) id = n++;
  nodes_ = n;
  node_of_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) node_of_[static_cast<size_t>(r)] = number[leaders[static_cast<size_t>(r)]];
  return Status::Ok();
}

std::string NodeTopology::describe() const {
  std::string out = std::to_string(nodes_) + (nodes_ == 1 ? " node:" : " nodes:");
  for (int node = 0; node < nodes_; ++node) {
    out += " {";
    bool first = true;
    for (int r = 0; r < size_; ++r) {
      if (node_of(r) != node) continue;
      if (!first) out += ",";
      out += std::to_string(r);
      first = false;
    }
    out += "}";
  }
  if (!sharing_) out += " (SCOPEDSM_NODE_SHARING=off)";
  return out;
}

Status NodeTopology::exchange_fds(int my_fd, std::vector<int>* fds) const {
  const int local_size = this->local_size();
  long mine[2] = {static_cast<long>(getpid()), my_fd};
  std::vector<long> all(2 * static_cast<size_t>(local_size));
  MPI_Allgather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, node_comm_);
  fds->assign(static_cast<size_t>(local_size), -1);
  std::string error;
  for (int i = 0; i < local_size && error.empty(); ++i) {
    const long pid = all[2 * static_cast<size_t>(i)];
    const long fd = all[2 * static_cast<size_t>(i) + 1];
    if (fd < 0) {
      error = "rank " + std::to_string(members_[static_cast<size_t>(i)]) + " has no memory to share";
      break;
    }
    int got = -1;
    if (i == local_rank_) {
      got = fcntl(my_fd, F_DUPFD_CLOEXEC, 0);
    } else {
      std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
      got = open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (got < 0) error = "cannot open " + path + " of rank " + std::to_string(members_[static_cast<size_t>(i)]) + ": " +
                           std::strerror(errno);
    }
    (*fds)[static_cast<size_t>(i)] = got;
  }
  // Everyone keeps its own memfd open until every peer has opened it; the
  // reduction is also the agreement on whether sharing works at all.
  int ok = error.empty() ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node_comm_);
  if (!all_ok) {
    for (int& fd : *fds)
      if (fd >= 0) close(fd);
    fds->clear();
    return Status::Error(error.empty() ? "a peer on this node could not open our memory" : error);
  }
  return Status::Ok();
}

}  // namespace scopedsm
