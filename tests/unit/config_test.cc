#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "common/config.h"
#include "common/config_doc.h"

namespace scopedsm {
namespace {

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Config, DefaultsWhenNothingIsSet) {
  Config c;
  ASSERT_TRUE(parse_config(env({}), &c).ok());
  EXPECT_EQ(c.region_size, 16ull << 30);
  EXPECT_EQ(c.cache_pages, 65536u);
  EXPECT_EQ(c.unit_pages, 1u);
  EXPECT_EQ(c.home_policy, HomePolicy::kCyclic);
  EXPECT_TRUE(c.summary);
  EXPECT_TRUE(c.stats_file.empty());
  EXPECT_EQ(c.timeout_s, 0.0) << "no limit: a process may compute as long as it likes while others wait";
}

TEST(Config, ReadsEveryVariable) {
  Config c;
  Status s = parse_config(env({{"SCOPEDSM_REGION_SIZE", "2G"},
                               {"SCOPEDSM_CACHE_PAGES", "8"},
                               {"SCOPEDSM_UNIT_PAGES", "128"},
                               {"SCOPEDSM_TEST_DELAY_US", "30"},
                               {"SCOPEDSM_HOME_POLICY", "first-touch"},
                               {"SCOPEDSM_STATS_FILE", "/tmp/s.json"},
                               {"SCOPEDSM_SUMMARY", "off"},
                               {"SCOPEDSM_LOG", "debug"},
                               {"SCOPEDSM_TIMEOUT", "2.5"},
                               {"SCOPEDSM_SPIN_US", "0"},
                               {"SCOPEDSM_SERVICE_SLICE_US", "250"},
                               {"SCOPEDSM_POLL_US", "10"},
                               {"SCOPEDSM_WRITE_DETECT", "all"},
                               {"SCOPEDSM_NODE_SHARING", "off"},
                               {"SCOPEDSM_SCHEDULE", "abs,bss,16"}}),
                          &c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.region_size, 2ull << 30);
  EXPECT_EQ(c.cache_pages, 8u);
  EXPECT_EQ(c.unit_pages, 128u);
  EXPECT_EQ(c.test_delay_us, 30u);
  EXPECT_EQ(c.home_policy, HomePolicy::kFirstTouch);
  EXPECT_EQ(c.stats_file, "/tmp/s.json");
  EXPECT_FALSE(c.summary);
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_DOUBLE_EQ(c.timeout_s, 2.5);
  EXPECT_EQ(c.service_slice_us, 250u);
  EXPECT_EQ(c.spin_us, 0u);
  EXPECT_EQ(c.poll_us, 10u);
  EXPECT_TRUE(c.write_detect_all);
  EXPECT_FALSE(c.node_sharing);
  EXPECT_EQ(c.schedule.scheme, Scheme::kABS);
  EXPECT_TRUE(c.schedule.local_bss);
  EXPECT_EQ(c.schedule.chunk, 16);
}

struct BadValue {
  const char* name;
  const char* value;
};

class ConfigRejects : public testing::TestWithParam<BadValue> {};

TEST_P(ConfigRejects, NamesTheVariableAndTheValue) {
  Config c;
  Status s = parse_config(env({{GetParam().name, GetParam().value}}), &c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(GetParam().name), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::string("'") + GetParam().value + "'"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(Malformed, ConfigRejects,
                         testing::Values(BadValue{"SCOPEDSM_REGION_SIZE", "lots"}, BadValue{"SCOPEDSM_REGION_SIZE", "12Q"},
                                         BadValue{"SCOPEDSM_REGION_SIZE", "1K"}, BadValue{"SCOPEDSM_REGION_SIZE", "-1G"},
                                         BadValue{"SCOPEDSM_REGION_SIZE", "99999T"}, BadValue{"SCOPEDSM_CACHE_PAGES", "0"}, BadValue{"SCOPEDSM_CACHE_PAGES", "3"},
                                         BadValue{"SCOPEDSM_CACHE_PAGES", "ten"}, BadValue{"SCOPEDSM_CACHE_PAGES", "-3"},
                                         BadValue{"SCOPEDSM_HOME_POLICY", "random"}, BadValue{"SCOPEDSM_CACHE_POLICY", "lru"}, BadValue{"SCOPEDSM_NODE_PROCS", "0"}, BadValue{"SCOPEDSM_NODE_PROCS", "half"}, BadValue{"SCOPEDSM_STATS_FILE", ""},
                                         BadValue{"SCOPEDSM_UNIT_PAGES", "0"}, BadValue{"SCOPEDSM_UNIT_PAGES", "3"},
                                         BadValue{"SCOPEDSM_UNIT_PAGES", "256"}, BadValue{"SCOPEDSM_UNIT_PAGES", "two"},
                                         BadValue{"SCOPEDSM_UNIT_PAGES", "-2"},
                                         BadValue{"SCOPEDSM_HOME_POLICY", "random"}, BadValue{"SCOPEDSM_STATS_FILE", ""},
                                         BadValue{"SCOPEDSM_SUMMARY", "maybe"}, BadValue{"SCOPEDSM_LOG", "loud"},
                                         BadValue{"SCOPEDSM_STRICT", "maybe"},
                                         BadValue{"SCOPEDSM_TIMEOUT", "-1"}, BadValue{"SCOPEDSM_TIMEOUT", "soon"},
                                         BadValue{"SCOPEDSM_SPIN_US", "100001"}, BadValue{"SCOPEDSM_POLL_US", "0"},
                                         BadValue{"SCOPEDSM_SERVICE_SLICE_US", "99"},
                                         BadValue{"SCOPEDSM_SERVICE_SLICE_US", "100001"},
                                         BadValue{"SCOPEDSM_SERVICE_SLICE_US", "short"},
                                         BadValue{"SCOPEDSM_WRITE_DETECT", "some"}, BadValue{"SCOPEDSM_NODE_SHARING", "maybe"}, BadValue{"SCOPEDSM_TEST_DELAY_US", "2000000"},
                                         BadValue{"SCOPEDSM_TEST_FAULT", "skip-everything"},
                                         BadValue{"SCOPEDSM_TEST_FAULT", "skip-diff,skip-everything"},
                                         BadValue{"SCOPEDSM_TEST_FAULT", "skip-diff,"},
                                         BadValue{"SCOPEDSM_TEST_FAULT", "none,skip-diff"},
                                         BadValue{"SCOPEDSM_HOME_BACKING", "disk"},
                                         BadValue{"SCOPEDSM_HOME_BACKING", "file:"},
                                         BadValue{"SCOPEDSM_HOME_BACKING", "file:relative/dir"},
                                         BadValue{"SCOPEDSM_HOME_MEMORY", "lots"},
                                         BadValue{"SCOPEDSM_RELEASE_POLICY", "eager"},
                                         BadValue{"SCOPEDSM_PREFETCH", "later"},
                                         BadValue{"SCOPEDSM_AUTO_HINTS", "yes"},
                                         BadValue{"SCOPEDSM_TEST_HINTS", "-1"},
                                         BadValue{"SCOPEDSM_LOCKS", "0"}, BadValue{"SCOPEDSM_LOCKS", "2147483648"},
                                         BadValue{"SCOPEDSM_LOCKS", "many"}, BadValue{"SCOPEDSM_LOCKS", "2147482623"},
                                         BadValue{"SCOPEDSM_SCHEDULE", "runtime"}, BadValue{"SCOPEDSM_SCHEDULE", "bss,0"},
                                         BadValue{"SCOPEDSM_SCHEDULE", "abs,tss"},
                                         BadValue{"SCOPEDSM_NEXT_TOUCH", "on"}, BadValue{"SCOPEDSM_NEXT_TOUCH", "barrier:0"},
                                         BadValue{"SCOPEDSM_NEXT_TOUCH", "barrier:1001"},
                                         BadValue{"SCOPEDSM_NEXT_TOUCH", "barrier:"},
                                         BadValue{"SCOPEDSM_NEXT_TOUCH_ON", "read"},
                                         BadValue{"SCOPEDSM_WRITE_VECTOR", "yes"}, BadValue{"SCOPEDSM_WRITE_VECTOR", "100"},
                                         BadValue{"SCOPEDSM_WRITE_VECTOR", "32"}, BadValue{"SCOPEDSM_WRITE_VECTOR", "65536"}));


// Booleans take exactly on or off, as docs/CONFIG.md says; other spellings
// of yes and no are errors naming the variable and the accepted values.
TEST(Config, BooleansAreOnOrOff) {
  for (const char* name : {"SCOPEDSM_SUMMARY", "SCOPEDSM_NODE_SHARING", "SCOPEDSM_STRICT"}) {
    Config c;
    ASSERT_TRUE(parse_config(env({{name, "on"}}), &c).ok()) << name;
    ASSERT_TRUE(parse_config(env({{name, "off"}}), &c).ok()) << name;
    for (const char* other : {"yes", "no", "1", "0", "true", "false", "ON", "Off", ""}) {
      Status s = parse_config(env({{name, other}}), &c);
      ASSERT_FALSE(s.ok()) << name << "=" << other;
      EXPECT_EQ(s.message(), std::string(name) + "='" + other + "' is invalid: expected on or off");
    }
  }
  Config c;
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_SUMMARY", "off"}, {"SCOPEDSM_NODE_SHARING", "off"}}), &c).ok());
  EXPECT_FALSE(c.summary);
  EXPECT_FALSE(c.node_sharing);
  EXPECT_FALSE(c.strict);
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_STRICT", "on"}}), &c).ok());
  EXPECT_TRUE(c.strict);
}

TEST(Config, UnknownVariablesAreListedWithTheClosestKnownOne) {
  Config c;
  ASSERT_TRUE(parse_config(env({}), &c,
                           {"SCOPEDSM_CACHE_PAGE", "SCOPEDSM_LOG", "SCOPEDSM_TIMOUT", "SCOPEDSM_CACHE_PAGE",
                            "SCOPEDSM_MPIEXEC", "SCOPEDSM_CC", "SCOPEDSM_CXX", "SCOPEDSM_BENCH_COMMIT",
                            "SCOPEDSM_TEST_DELAY_US", "SCOPEDSM_STRICT", "SCOPEDSM_NODESHARING", "OTHER_VARIABLE"})
                  .ok());
  ASSERT_EQ(c.unknown.size(), 3u);  // each once, in order; known ones (runtime and tools) and others never
  EXPECT_EQ(c.unknown[0].name, "SCOPEDSM_CACHE_PAGE");
  EXPECT_EQ(c.unknown[0].closest, "SCOPEDSM_CACHE_PAGES");
  EXPECT_EQ(c.unknown[1].name, "SCOPEDSM_TIMOUT");
  EXPECT_EQ(c.unknown[1].closest, "SCOPEDSM_TIMEOUT");
  EXPECT_EQ(c.unknown[2].closest, "SCOPEDSM_NODE_SHARING");
  EXPECT_EQ(describe_unknown(c.unknown[0]),
            "SCOPEDSM_CACHE_PAGE is not a ScopeDSM variable (did you mean SCOPEDSM_CACHE_PAGES?)");
  EXPECT_EQ(closest_known_variable("SCOPEDSM_MPIEXE"), "SCOPEDSM_MPIEXEC");
  EXPECT_EQ(closest_known_variable("SCOPEDSM_SUMARY"), "SCOPEDSM_SUMMARY");
}

TEST(Config, StrictMakesAnUnknownVariableAnError) {
  Config c;
  Status s = parse_config(env({{"SCOPEDSM_STRICT", "on"}}), &c, {"SCOPEDSM_STRICT", "SCOPEDSM_HOME_POLICI"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("SCOPEDSM_HOME_POLICI is not a ScopeDSM variable (did you mean SCOPEDSM_HOME_POLICY?)"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("SCOPEDSM_STRICT=on"), std::string::npos) << s.message();
  // Only unknown variables: known ones pass under strict.
  EXPECT_TRUE(parse_config(env({{"SCOPEDSM_STRICT", "on"}}), &c, {"SCOPEDSM_STRICT", "SCOPEDSM_MPIEXEC"}).ok());
  EXPECT_TRUE(c.unknown.empty());
}

TEST(Config, TestFaultsBecomeBitsOnce) {
  auto bits = [](std::initializer_list<TestFault> faults) {
    uint64_t b = 0;
    for (TestFault f : faults) b |= static_cast<uint64_t>(f);
    return b;
  };
  Config c;
  ASSERT_TRUE(parse_config(env({}), &c).ok());
  EXPECT_EQ(c.test_faults, 0u);
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_TEST_FAULT", "none"}}), &c).ok());
  EXPECT_EQ(c.test_faults, 0u);
  for (const TestFaultName& f : kTestFaultNames) {
    ASSERT_TRUE(parse_config(env({{"SCOPEDSM_TEST_FAULT", f.name}}), &c).ok()) << f.name;
    EXPECT_EQ(c.test_faults, bits({f.fault})) << f.name;
  }
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_TEST_FAULT", "skip-notices,skip-invalidate"}}), &c).ok());
  EXPECT_EQ(c.test_faults, bits({TestFault::kSkipNotices, TestFault::kSkipInvalidate}));
  EXPECT_NE(describe_config(c).find("test_fault=skip-invalidate,skip-notices"), std::string::npos) << describe_config(c);
}

TEST(Config, ParsesSizes) {
  uint64_t v = 0;
  ASSERT_TRUE(parse_size("4096", &v).ok());
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("64k", &v).ok());
  EXPECT_EQ(v, 65536u);
  ASSERT_TRUE(parse_size("3M", &v).ok());
  EXPECT_EQ(v, 3u << 20);
  ASSERT_TRUE(parse_size("1T", &v).ok());
  EXPECT_EQ(v, 1ull << 40);
  EXPECT_FALSE(parse_size("", &v).ok());
  EXPECT_FALSE(parse_size("G", &v).ok());
  EXPECT_FALSE(parse_size("18446744073709551615G", &v).ok());
}

TEST(Config, EveryVariableIsDocumented) {
  // The table drives docs/CONFIG.md and `scopedsm info`; parse_config must
  // not read a variable missing from it.
  std::set<std::string> documented;
  for (const Setting& v : settings()) documented.insert(v.name);
  std::set<std::string> read;
  Config c;
  (void)parse_config(
      [&](const char* name) -> std::optional<std::string> {
        read.insert(name);
        return std::nullopt;
      },
      &c);
  EXPECT_EQ(read, documented);
}

}  // namespace
}  // namespace scopedsm

namespace scopedsm {
namespace {

// The runtime's variables and the tools' (those never reported as unknown).
TEST(Config, EveryVariableIsInDocsConfig) {
  std::ifstream f(SCOPEDSM_DOCS_DIR "/CONFIG.md");
  ASSERT_TRUE(f) << "docs/CONFIG.md missing";
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (const Setting& v : settings())
    EXPECT_NE(text.find("`" + v.name + "`"), std::string::npos) << v.name << " is not in docs/CONFIG.md";
  for (const ToolVariable& v : tool_variables())
    EXPECT_NE(text.find(std::string("`") + v.name + "`"), std::string::npos) << v.name << " is not in docs/CONFIG.md";
}

// And the other way: a variable docs/CONFIG.md's tables name (a row's first
// cell) is one the runtime knows, so setting it is never reported as unknown.
TEST(Config, EveryVariableDocsConfigListsIsKnown) {
  std::ifstream f(SCOPEDSM_DOCS_DIR "/CONFIG.md");
  ASSERT_TRUE(f) << "docs/CONFIG.md missing";
  std::set<std::string> known;
  for (const Setting& v : settings()) known.insert(v.name);
  for (const ToolVariable& v : tool_variables()) known.insert(v.name);
  const std::regex row(R"(^\| `(SCOPEDSM_[A-Z_]+)` \|)");
  std::string line;
  int rows = 0;
  while (std::getline(f, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    ++rows;
    EXPECT_EQ(known.count(m[1].str()), 1u) << m[1].str() << " is in docs/CONFIG.md but unknown to the runtime";
  }
  EXPECT_GT(rows, 10);
}

// SCOPEDSM_SCHEDULE takes OMP_SCHEDULE's spellings, as the README says.
TEST(Config, TheScheduleTakesOpenMPSpellings) {
  const std::pair<const char*, const char*> cases[] = {
      {"dynamic,4", "bss,4"}, {"dynamic", "ss"}, {"guided", "gss"}, {"guided,8", "gss,8"}, {"static,16", "bss,16"},
      {"auto", "static"}, {"nonmonotonic:dynamic,2", "bss,2"}};
  for (const auto& [text, canonical] : cases) {
    Config c;
    const Status st = parse_config(env({{"SCOPEDSM_SCHEDULE", text}}), &c);
    ASSERT_TRUE(st.ok()) << text << ": " << st.message();
    EXPECT_EQ(schedule_text(c.schedule), canonical) << text;
  }
}

// Each variable has one row: two rows of one variable say different things.
TEST(Config, DocsConfigHasOneRowPerVariable) {
  std::ifstream f(SCOPEDSM_DOCS_DIR "/CONFIG.md");
  ASSERT_TRUE(f) << "docs/CONFIG.md missing";
  const std::regex row(R"(^\| `(SCOPEDSM_[A-Z_]+)` \|)");
  std::map<std::string, int> rows;
  std::string line;
  while (std::getline(f, line)) {
    std::smatch m;
    if (std::regex_search(line, m, row)) ++rows[m[1].str()];
  }
  for (const auto& [name, count] : rows) EXPECT_EQ(count, 1) << name << " has " << count << " rows in docs/CONFIG.md";
}

}  // namespace
}  // namespace scopedsm

namespace scopedsm {
namespace {

std::map<std::string, std::string> as_settings(const Config& c) {
  std::map<std::string, std::string> m;
  for (const auto& [name, value] : config_settings(c)) m[name] = value;
  return m;
}

std::string as_settings_text(const Config& c, const std::string& name) { return as_settings(c)[name]; }

TEST(Config, SettingsAreWrittenAsTheVariablesAre) {
  Config c;
  ASSERT_TRUE(parse_config(env({}), &c).ok());
  auto m = as_settings(c);
  EXPECT_EQ(m["log"], "warn");
  EXPECT_EQ(m["region_size"], "16G");
  EXPECT_EQ(m["timeout"], "0");
  EXPECT_EQ(m["summary"], "on");
  EXPECT_EQ(m.count("stats_file"), 0u);  // unset paths and test settings are left out
  EXPECT_EQ(m.count("test_fault"), 0u);
  EXPECT_EQ(describe_config(c).substr(0, 34), "region_size=16G cache_pages=65536 ");
}

TEST(Config, EverySettingReadBackGivesTheSameConfiguration) {
  // Each setting, given back as SCOPEDSM_<NAME>=value, selects what it describes.
  Config c;
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_REGION_SIZE", "1536M"},
                                {"SCOPEDSM_LOG", "debug"},
                                {"SCOPEDSM_TIMEOUT", "2.5"},
                                {"SCOPEDSM_STATS_FILE", "/tmp/s.json"},
                                {"SCOPEDSM_TRACE", "/tmp/t.json"},
                                {"SCOPEDSM_HOME_POLICY", "first-touch"},
                                {"SCOPEDSM_WRITE_DETECT", "all"},
                                {"SCOPEDSM_NODE_SHARING", "off"},
                                {"SCOPEDSM_HOME_MIGRATION", "on"},
                                {"SCOPEDSM_NEXT_TOUCH", "barrier:3"},
                                {"SCOPEDSM_NEXT_TOUCH_ON", "write"},
                                {"SCOPEDSM_LOCK_INCARNATIONS", "off"},
                                {"SCOPEDSM_WRITER_RETENTION", "off"},
                                {"SCOPEDSM_WRITE_VECTOR", "256"},
                                {"SCOPEDSM_BARRIER", "central"},
                                {"SCOPEDSM_FETCH", "message"},
                                {"SCOPEDSM_FETCH_PAGES", "8"},
                                {"SCOPEDSM_UNIT_PAGES", "16"},
                                {"SCOPEDSM_LOCKS", "2147482622"},
                                {"SCOPEDSM_NET", "occupancy=5,bandwidth=100,interrupt=2500"},
                                {"SCOPEDSM_SUMMARY", "off"},
                                {"SCOPEDSM_TEST_FAULT", "skip-diff,skip-notices"},
                                {"SCOPEDSM_TEST_DELAY_US", "7"},
                                {"SCOPEDSM_HOME_BACKING", "file:/var/tmp"},
                                {"SCOPEDSM_HOME_MEMORY", "256M"},
                                {"SCOPEDSM_RELEASE_POLICY", "aggressive"},
                                {"SCOPEDSM_AUTO_HINTS", "on"},
                                {"SCOPEDSM_TEST_HINTS", "5"},
                                {"SCOPEDSM_SCHEDULE", "sss,0.5"},
                                {"SCOPEDSM_CACHE_POLICY", "remote"},
                                {"SCOPEDSM_NODE_PROCS", "3"},
                                {"SCOPEDSM_TASK_MIGRATION", "compute"},
                                {"SCOPEDSM_TASK_MIGRATION_ALPHA", "7"},
                                {"SCOPEDSM_TASK_MIGRATION_BETA", "0.35"},
                                {"SCOPEDSM_SERVICE_SLICE_US", "300"},
                                {"SCOPEDSM_PREFETCH", "sync"}}),
                           &c)
                  .ok());
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : config_settings(c)) {
    std::string var = "SCOPEDSM_";
    for (char ch : name) var += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    vars[var] = value;
  }
  EXPECT_EQ(vars["SCOPEDSM_REGION_SIZE"], "1536M");
  EXPECT_EQ(vars["SCOPEDSM_LOG"], "debug");
  EXPECT_EQ(vars["SCOPEDSM_TRACE"], "/tmp/t.json");
  Config back;
  ASSERT_TRUE(parse_config(env(vars), &back).ok());
  EXPECT_EQ(config_settings(back), config_settings(c));
  EXPECT_EQ(vars["SCOPEDSM_FETCH"], "message");
  EXPECT_EQ(vars["SCOPEDSM_SERVICE_SLICE_US"], "300");
  EXPECT_EQ(vars["SCOPEDSM_FETCH_PAGES"], "8");
  EXPECT_EQ(vars["SCOPEDSM_HOME_BACKING"], "file:/var/tmp");
  EXPECT_EQ(vars["SCOPEDSM_HOME_MEMORY"], "256M");
  EXPECT_EQ(vars["SCOPEDSM_LOCKS"], "2147482622");
  EXPECT_EQ(back.locks, 2147482622);
  EXPECT_EQ(vars["SCOPEDSM_SCHEDULE"], "sss,0.5");
  EXPECT_EQ(vars["SCOPEDSM_NET"], "occupancy=5,bandwidth=100,interrupt=2500");
  EXPECT_EQ(vars["SCOPEDSM_CACHE_POLICY"], "remote");
  EXPECT_EQ(vars["SCOPEDSM_NODE_PROCS"], "3");
  EXPECT_EQ(vars["SCOPEDSM_NEXT_TOUCH"], "barrier:3");
  EXPECT_EQ(back.next_touch_barriers, 3u);
  EXPECT_TRUE(back.next_touch_write);
  EXPECT_EQ(vars["SCOPEDSM_TASK_MIGRATION"], "compute");
  EXPECT_EQ(back.task_migration_alpha, 7);
  EXPECT_EQ(back.task_migration_beta, 0.35);
  EXPECT_EQ(vars["SCOPEDSM_UNIT_PAGES"], "16");
  EXPECT_EQ(vars["SCOPEDSM_WRITE_VECTOR"], "256");
  EXPECT_EQ(vars["SCOPEDSM_AUTO_HINTS"], "on");
  EXPECT_EQ(vars["SCOPEDSM_PREFETCH"], "sync");
  EXPECT_TRUE(back.prefetch_sync);
  // Every setting is there (but the quiet ones this test leaves at their
  // default), and only settings are.
  size_t expected = 0;
  for (const Setting& s : settings()) expected += !s.quiet_at_default || vars.count(s.name) != 0 ? 1 : 0;
  EXPECT_EQ(vars.size(), expected);
  EXPECT_GE(vars.size(), 39u);
}

// SCOPEDSM_WRITE_VECTOR takes on, off or a block size; cache-only write
// detection is read, and refused together with home migration.
TEST(Config, WriteVectorsAndCacheOnlyDetection) {
  Config c;
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_WRITE_VECTOR", "256"}, {"SCOPEDSM_WRITE_DETECT", "cache-only"}}), &c).ok());
  EXPECT_TRUE(c.write_vector);
  EXPECT_EQ(c.write_vector_block, 256u);
  EXPECT_TRUE(c.write_detect_cache_only);
  EXPECT_FALSE(c.write_detect_all);
  EXPECT_EQ(as_settings_text(c, "write_detect"), "cache-only");
  EXPECT_EQ(as_settings_text(c, "write_vector"), "256");
  Config on;
  ASSERT_TRUE(parse_config(env({{"SCOPEDSM_WRITE_VECTOR", "on"}}), &on).ok());
  EXPECT_TRUE(on.write_vector);
  EXPECT_EQ(on.write_vector_block, 0u);  // 1/32 page, decided at start-up
  Config both;
  Status s = parse_config(env({{"SCOPEDSM_WRITE_DETECT", "cache-only"}, {"SCOPEDSM_HOME_MIGRATION", "on"}}), &both);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot be combined"), std::string::npos) << s.message();
  s = parse_config(env({{"SCOPEDSM_WRITE_DETECT", "cache-only"}, {"SCOPEDSM_NEXT_TOUCH", "barrier:2"}}), &both);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("SCOPEDSM_NEXT_TOUCH=barrier:N cannot be combined"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace scopedsm

// The settings are declared once (src/common/config_table.cc); everything
// else is made from the declarations. These tests hold each declaration to
// what the rest of ScopeDSM and docs/CONFIG.md make of it.
namespace scopedsm {
namespace {

std::string read_doc(const char* name) {
  std::ifstream f(std::string(SCOPEDSM_DOCS_DIR) + "/" + name);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(Settings, AreDeclaredOnceEach) {
  std::set<std::string> names, keys;
  size_t group = 0;  // the table keeps each group together, in kSettingGroups order
  for (const Setting& s : settings()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " is declared twice";
    EXPECT_TRUE(keys.insert(s.key()).second) << s.key();
    EXPECT_EQ(s.name.rfind("SCOPEDSM_", 0), 0u) << s.name;
    EXPECT_EQ(find_setting(s.name), &s);
    EXPECT_FALSE(s.accepted.empty()) << s.name;
    EXPECT_TRUE(!s.doc.empty() && s.doc.back() == '.' && s.doc.find('\n') == std::string::npos)
        << s.name << ": its doc is one sentence: " << s.doc;
    while (group < std::size(kSettingGroups) && kSettingGroups[group] != s.group) ++group;
    EXPECT_LT(group, std::size(kSettingGroups)) << s.name << " is out of its group's place";
  }
  for (const ToolVariable& v : tool_variables()) EXPECT_EQ(find_setting(v.name), nullptr) << v.name;
  EXPECT_EQ(find_setting("SCOPEDSM_NO_SUCH"), nullptr);
}

// Each setting reads its default and its example, and writes each back as
// it was given: the statistics JSON, the start-up log and `scopedsm info`
// show every setting that differs from its default.
TEST(Settings, ReadTheirDefaultAndExampleAndWriteThemBack) {
  Config defaults;
  ASSERT_TRUE(parse_config(env({}), &defaults).ok());
  const auto default_settings = config_settings(defaults);
  for (const Setting& s : settings()) {
    SCOPED_TRACE(s.name);
    const std::string dflt = s.print(Config{});
    if (!dflt.empty()) {  // an unset path has no value to give
      Config c;
      ASSERT_TRUE(parse_config(env({{s.name, dflt}}), &c).ok()) << s.default_text();
      EXPECT_EQ(config_settings(c), default_settings);
    }
    EXPECT_NE(s.example, dflt) << "the example must differ from the default";
    Config c;
    const Status st = parse_config(env({{s.name, s.example}}), &c);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(s.print(c), s.example);
    int found = 0;
    for (const auto& [key, value] : config_settings(c))
      if (key == s.key()) found += value == s.example ? 1 : 100;
    EXPECT_EQ(found, 1) << s.key() << " is not in config_settings() once, as " << s.example;
    EXPECT_NE((" " + describe_config(c) + " ").find(" " + s.key() + "=" + s.example + " "), std::string::npos)
        << describe_config(c);
    if (!s.quiet_at_default) {
      bool listed = false;
      for (const auto& entry : default_settings) listed = listed || entry.first == s.key();
      EXPECT_TRUE(listed) << s.key() << " is left out at its default";
    }
  }
}

// An empty value is no setting's: the error names the variable, the value
// and what the declaration says it accepts, in the words of every error.
TEST(Settings, RefuseAnEmptyValueInTheirOwnWords) {
  for (const Setting& s : settings()) {
    Config c;
    const Status st = parse_config(env({{s.name, ""}}), &c);
    ASSERT_FALSE(st.ok()) << s.name;
    EXPECT_EQ(st.message().rfind(s.name + "='' is invalid: expected " + s.accepted, 0), 0u) << st.message();
  }
}

// A variable some part of ScopeDSM reads is a setting or a tool's variable,
// so that setting it is never reported as unknown (nor an error under
// SCOPEDSM_STRICT=on). SCOPEDSM_OMP_STACK, read by the OpenMP runtime, was
// neither.
TEST(Settings, EveryVariableTheSourcesReadIsKnown) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(SCOPEDSM_DOCS_DIR).parent_path();
  const std::regex read(R"((getenv|environ\.get|environ\[)\(?\s*"(SCOPEDSM_[A-Z0-9_]+)\")");
  std::set<std::string> names;
  for (const char* dir : {"src", "tools", "apps", "bench", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".c" && ext != ".h" && ext != ".py")) continue;
      std::ifstream f(entry.path());
      for (std::string line; std::getline(f, line);) {
        if (line.find("SCOPEDSM_") == std::string::npos) continue;
        for (std::sregex_iterator m(line.begin(), line.end(), read), end; m != end; ++m) names.insert((*m)[2].str());
      }
    }
  }
  EXPECT_GT(names.size(), 20u);
  for (const std::string& name : names) {
    Config c;
    ASSERT_TRUE(parse_config(env({}), &c, {name}).ok());
    EXPECT_TRUE(c.unknown.empty()) << name << " is read but not declared (src/common/config_table.cc)";
  }
}

// docs/CONFIG.md's tables are made from the declarations: no variable is
// missing from them, listed twice or described apart from its declaration.
TEST(Settings, DocsTablesAreGenerated) {
  const std::string doc = read_doc("CONFIG.md");
  std::string current;
  const Status st = regenerate_config_doc(doc, &current);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(doc == current) << "docs/CONFIG.md's generated tables are stale: run `ninja -C build config-doc`";
  std::map<std::string, int> rows;
  const std::regex row(R"(^\| `(SCOPEDSM_[A-Z0-9_]+)` \|)");
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch m; std::regex_search(line, m, row)) ++rows[m[1].str()];
  for (const Setting& s : settings()) EXPECT_EQ(rows[s.name], 1) << s.name << "'s rows in docs/CONFIG.md";
  EXPECT_EQ(rows.size(), settings().size() + tool_variables().size());
}

// And each setting has one section of its own there, in the table's order.
TEST(Settings, EachHasOneSectionInDocs) {
  const std::string doc = read_doc("CONFIG.md");
  const std::regex heading(R"(^### `(SCOPEDSM_[A-Z0-9_]+)`$)");
  std::vector<std::string> sections, declared;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch m; std::regex_match(line, m, heading)) sections.push_back(m[1].str());
  for (const Setting& s : settings()) declared.push_back(s.name);
  EXPECT_EQ(sections, declared);
}

TEST(Settings, TheGeneratedTableRowsAreTheDeclarations) {
  const std::string table = settings_markdown();
  EXPECT_NE(table.find("### Memory and placement\n\n| Variable | Default | Accepted | Meaning |\n"), std::string::npos);
  EXPECT_NE(table.find("| `SCOPEDSM_STATS_FILE` | none | a file path | "), std::string::npos) << table;
  EXPECT_NE(table.find("| `SCOPEDSM_CACHE_PAGES` | `65536` | a page count from 4 to 268435456 | "), std::string::npos);
  std::string out;
  EXPECT_FALSE(regenerate_config_doc("no markers", &out).ok());
}

}  // namespace
}  // namespace scopedsm
