// config_doc FILE: rewrites the generated parts of docs/CONFIG.md (the
// tables of settings and of the tools' variables) from the declarations
// in src/common/config_table.cc. `ninja config-doc` runs it.
#include <cstdio>
#include <fstream>
#include <iterator>

#include "common/config_doc.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: config_doc docs/CONFIG.md\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "config_doc: cannot read %s\n", argv[1]);
    return 1;
  }
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  if (scopedsm::Status s = scopedsm::regenerate_config_doc(doc, &out); !s.ok()) {
    std::fprintf(stderr, "config_doc: %s: %s\n", argv[1], s.message().c_str());
    return 1;
  }
  if (out == doc) return 0;
  std::ofstream f(argv[1]);
  f << out;
  if (!f.flush()) {
    std::fprintf(stderr, "config_doc: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("config_doc: rewrote the generated tables of %s\n", argv[1]);
  return 0;
}
