// Output files are checked at start-up and their errors name the path and
// the system's reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "common/files.h"

namespace scopedsm {
namespace {

class Files : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/scopedsm-files-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  static std::string read(const std::string& path) {
    std::ifstream f(path);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  std::string dir_;
};

TEST_F(Files, CheckingAMissingFileLeavesNothingBehind) {
  const std::string path = dir_ + "/stats.json";
  EXPECT_TRUE(check_writable(path).ok());
  EXPECT_NE(access(path.c_str(), F_OK), 0);
}

TEST_F(Files, CheckingAnExistingFileKeepsItsContents) {
  const std::string path = dir_ + "/kept.json";
  std::ofstream(path) << "old";
  EXPECT_TRUE(check_writable(path).ok());
  EXPECT_EQ(read(path), "old");
}

TEST_F(Files, AMissingDirectoryIsNamedWithTheReason) {
  const std::string path = dir_ + "/no/such/dir/stats.json";
  const Status st = check_writable(path);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot write " + path + ": No such file or directory");
  EXPECT_FALSE(write_file(path, "x").ok());
}

TEST_F(Files, ADirectoryIsRefused) {
  const Status st = check_writable(dir_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot write " + dir_ + ": Is a directory");
}

TEST_F(Files, AFullDiskIsFoundWhenWriting) {
  // /dev/full opens, and every write to it fails: what start-up cannot see.
  ASSERT_TRUE(check_writable("/dev/full").ok());
  const Status st = write_file("/dev/full", std::string(1 << 16, 'x'));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot write /dev/full: No space left on device");
}

TEST_F(Files, WriteFileReplacesTheContents) {
  const std::string path = dir_ + "/out.json";
  std::ofstream(path) << "a much longer old text";
  ASSERT_TRUE(write_file(path, "{}\n").ok());
  EXPECT_EQ(read(path), "{}\n");
}

}  // namespace
}  // namespace scopedsm
