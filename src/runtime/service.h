// The service thread: receives every request addressed to this process and
// hands it to the server for its type (pages and diffs, locks, barriers,
// condition variables). It never waits for another process, so requests
// are served whatever the application thread is doing, and nothing it does
// can take part in a wait cycle (docs/PROTOCOL.md, "Deadlock freedom").
//
// It polls for a spin window after the last message, then sleeps on its
// wake-up word; senders on the same node wake it.
#pragma once

#include <atomic>
#include <thread>

#include "protocol/home_server.h"
#include "runtime/state.h"
#include "sync/condvar_manager.h"
#include "sync/lock_manager.h"
#include "sync/rendezvous.h"

namespace scopedsm {

class Service {
 public:
  explicit Service(RuntimeState* state);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  void start();
  // Returns once every process has sent this one its shutdown message.
  void join();

 private:
  void run();
  // Serves one request; returns false when the last shutdown arrived.
  bool dispatch(const Incoming& in);

  RuntimeState* s_;
  HomeServer home_;
  LockManager locks_;
  RendezvousManager rendezvous_;
  CondvarManager condvars_;
  std::thread thread_;
  int shutdowns_ = 0;
};

}  // namespace scopedsm
