// The communication-cost model's settings (SCOPEDSM_NET) and arithmetic:
// packets per MTU, occupancy and bandwidth per end, and one line
// serialising the messages that share it (transport/net_model.h).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>

#include "common/config.h"
#include "transport/net_model.h"

namespace scopedsm {
namespace {

TEST(NetSettings, OffByDefaultAndWhenSaidSo) {
  Config c;
  ASSERT_TRUE(parse_config([](const char*) -> std::optional<std::string> { return std::nullopt; }, &c).ok());
  EXPECT_FALSE(c.net.enabled);
  NetParams p;
  p.enabled = true;
  ASSERT_TRUE(parse_net("off", &p).ok());
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(net_text(p), "off");
}

TEST(NetSettings, ParsesEveryKeyInNanosecondsAndMegabytes) {
  NetParams p;
  ASSERT_TRUE(parse_net("overhead=600,occupancy=1000,mtu=2048,bandwidth=100,latency=250,interrupt=500", &p).ok());
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.overhead_ns, 600u);
  EXPECT_EQ(p.occupancy_ns, 1000u);
  EXPECT_EQ(p.mtu, 2048u);
  EXPECT_EQ(p.bandwidth_mbs, 100u);
  EXPECT_EQ(p.latency_ns, 250u);
  EXPECT_EQ(p.interrupt_ns, 500u);
  EXPECT_EQ(net_text(p), "overhead=600,occupancy=1000,mtu=2048,bandwidth=100,latency=250,interrupt=500");
  // Keys left out keep their defaults: no cost, 4 KiB packets, unlimited bandwidth.
  ASSERT_TRUE(parse_net("interrupt=7", &p).ok());
  EXPECT_EQ(p.overhead_ns, 0u);
  EXPECT_EQ(p.mtu, 4096u);
  EXPECT_EQ(p.bandwidth_mbs, 0u);
  EXPECT_EQ(net_text(p), "interrupt=7");
  // On with every cost 0: the model runs and injects nothing.
  ASSERT_TRUE(parse_net("latency=0", &p).ok());
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(net_text(p), "latency=0");
}

TEST(NetSettings, RejectsBadValuesNamingTheVariable) {
  for (const char* bad : {"", "on", "overhead", "overhead=", "overhead=-1", "overhead=1.5", "speed=3",
                          "overhead=1,overhead=2", "mtu=63", "mtu=1048577", "bandwidth=0", "latency=100000001",
                          "overhead=1,", ",overhead=1", "interrupt=1us"}) {
    NetParams p;
    const Status s = parse_net(bad, &p);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("SCOPEDSM_NET"), std::string::npos) << s.message();
  }
  // Through the configuration, as the runtime reads it.
  Config c;
  const Status s = parse_config(
      [](const char* name) -> std::optional<std::string> {
        if (std::string(name) == "SCOPEDSM_NET") return std::string("overhead=1,overhead=2");
        return std::nullopt;
      },
      &c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overhead is given twice"), std::string::npos) << s.message();
}

TEST(NetCost, PacketsFollowTheMtu) {
  NetParams p;
  p.mtu = 4096;
  p.occupancy_ns = 1000;
  EXPECT_EQ(end_cost(p, 0).packets, 1u);  // an empty message is still one packet
  EXPECT_EQ(end_cost(p, 1).packets, 1u);
  EXPECT_EQ(end_cost(p, 4096).packets, 1u);
  EXPECT_EQ(end_cost(p, 4097).packets, 2u);
  EXPECT_EQ(end_cost(p, 16 * 4096).packets, 16u);
  EXPECT_EQ(end_cost(p, 4097).occupancy_ns, 2000u);
  p.mtu = 1500;
  EXPECT_EQ(end_cost(p, 4096).packets, 3u);
  EXPECT_EQ(end_cost(p, 4096).occupancy_ns, 3000u);
}

TEST(NetCost, BandwidthIsBytesOverMegabytesPerSecond) {
  NetParams p;
  EXPECT_EQ(end_cost(p, 1 << 20).bandwidth_ns, 0u);  // unlimited
  p.bandwidth_mbs = 100;                              // 100 MB/s: 10 ns per byte
  EXPECT_EQ(end_cost(p, 4096).bandwidth_ns, 40960u);
  EXPECT_EQ(end_cost(p, 4096).total(), 40960u);
  p.bandwidth_mbs = 3;  // rounded up, never down to nothing
  EXPECT_EQ(end_cost(p, 1).bandwidth_ns, 334u);
  p.occupancy_ns = 5;
  EXPECT_EQ(end_cost(p, 1).total(), 339u);
}

TEST(NiLine, SerialisesMessagesThatShareIt) {
  std::atomic<uint64_t> word{0};
  NiLine line(&word);
  // Free: a message starts when it comes.
  EXPECT_EQ(line.reserve(1000, 300), 1000u);
  // Two more at the same moment queue behind it and behind each other.
  EXPECT_EQ(line.reserve(1100, 300), 1300u);
  EXPECT_EQ(line.reserve(1100, 50), 1600u);
  // One that comes after the line has drained starts at once again.
  EXPECT_EQ(line.reserve(5000, 10), 5000u);
  EXPECT_EQ(word.load(), 5010u);
  // Two lines over the same word are one resource (a node's processes).
  NiLine other(&word);
  EXPECT_EQ(other.reserve(5000, 1), 5010u);
  EXPECT_EQ(line.reserve(5000, 1), 5011u);
}

}  // namespace
}  // namespace scopedsm
