// Where messages say the reference documents are (common/doc_path.h): the
// installed copy next to an installed library, the source tree's docs/ in
// a build tree, docs/ when neither exists.
#include "common/doc_path.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace scopedsm {
namespace {

TEST(DocPath, AnInstalledLibraryNamesTheInstalledCopy) {
  const std::set<std::string> files = {"/opt/scopedsm/share/doc/scopedsm/CONFIG.md", "/src/docs/CONFIG.md"};
  const auto exists = [&](const std::string& f) { return files.count(f) != 0; };
  EXPECT_EQ(doc_path_for("CONFIG.md", "/opt/scopedsm/lib/libscopedsm.so.0", "/src/docs", exists),
            "/opt/scopedsm/share/doc/scopedsm/CONFIG.md");
  // Installed at the root: /lib and /share.
  const auto root = [](const std::string& f) { return f == "/share/doc/scopedsm/CONFIG.md"; };
  EXPECT_EQ(doc_path_for("CONFIG.md", "/lib/libscopedsm.so", "", root), "/share/doc/scopedsm/CONFIG.md");
}

TEST(DocPath, ABuildTreeNamesTheSourceDocs) {
  const std::set<std::string> files = {"/src/docs/CONFIG.md"};
  const auto exists = [&](const std::string& f) { return files.count(f) != 0; };
  EXPECT_EQ(doc_path_for("CONFIG.md", "/src/build/src/libscopedsm.so", "/src/docs", exists), "/src/docs/CONFIG.md");
  // A moved installation whose documents were left out, built elsewhere.
  EXPECT_EQ(doc_path_for("CONFIG.md", "/moved/lib/libscopedsm.so", "/src/docs", exists), "/src/docs/CONFIG.md");
}

TEST(DocPath, NeitherFoundNamesTheRelativePath) {
  const auto none = [](const std::string&) { return false; };
  EXPECT_EQ(doc_path_for("CONFIG.md", "/opt/x/lib/libscopedsm.so", "/src/docs", none), "docs/CONFIG.md");
  EXPECT_EQ(doc_path_for("OPENMP.md", "", "", none), "docs/OPENMP.md");
  EXPECT_EQ(doc_path_for("CONFIG.md", "libscopedsm.so", "", none), "docs/CONFIG.md");
}

// This build's library finds this source tree's documents.
TEST(DocPath, ThisBuildNamesItsSourceDocs) {
  EXPECT_EQ(doc_path("CONFIG.md"), SCOPEDSM_DOCS_DIR "/CONFIG.md");
}

}  // namespace
}  // namespace scopedsm
