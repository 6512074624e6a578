#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace scopedsm {

Status file_error(const std::string& path, int err) {
  return Status::Error("cannot write " + path + ": " + std::strerror(err));
}

Status check_writable(const std::string& path) {
  struct stat st;
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) return file_error(path, EISDIR);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (existed ? 0 : O_CREAT | O_EXCL), 0666);
  if (fd < 0) return file_error(path, errno);
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
  return Status::Ok();
}

Status write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return file_error(path, errno);
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0) return file_error(path, errno);
  if (!wrote) return file_error(path, write_errno);
  return Status::Ok();
}

}  // namespace scopedsm
