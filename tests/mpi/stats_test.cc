// The statistics a process reports about its own traffic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "jia.h"
#include "scopedsm.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

// The value of counter `name` in this process's statistics JSON.
uint64_t counter(const std::string& name) {
  std::vector<char> buf(1 << 16);
  size_t need = scopedsm_stats_json(buf.data(), buf.size());
  EXPECT_LT(need, buf.size());
  const std::string json(buf.data());
  const std::string key = "\"" + name + "\":";
  size_t at = json.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no counter " << name << " in " << json.substr(0, 200);
    return 0;
  }
  return std::strtoull(json.c_str() + at + key.size(), nullptr, 10);
}

TEST(Stats, MessagesToOneselfAreCountedApart) {
  // Rank 0 manages barriers: its own arrival (BARR) and its own grant
  // (BARRGRANT) go through the local mailbox, never through MPI. The other
  // ranks' barrier messages all go to rank 0.
  jia_barrier();
  const uint64_t self0 = counter("self_msgs_sent"), barr0 = counter("msgs_sent_BARR");
  const int rounds = 5;
  for (int i = 0; i < rounds; ++i) jia_barrier();
  const uint64_t self = counter("self_msgs_sent") - self0, barr = counter("msgs_sent_BARR") - barr0;
  EXPECT_EQ(barr, static_cast<uint64_t>(rounds));
  if (rank() == 0)
    EXPECT_EQ(self, 2u * rounds);
  else
    EXPECT_EQ(self, 0u);
  jia_barrier();
}

}  // namespace
