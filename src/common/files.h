// Files the runtime writes at exit (the statistics, the trace), checked at
// start-up so that a job whose output cannot be written fails before its
// work, not after it.
#pragma once

#include <string>

#include "common/status.h"

namespace scopedsm {

// Whether `path` can be opened for writing, found by doing it: an existing
// file is opened without being truncated; a missing one is created and
// removed again. The error names the path and the system's reason.
Status check_writable(const std::string& path);

// Writes `text` to `path`, replacing it. The error names the path and the
// system's reason (including a full disk, found when the file is closed).
Status write_file(const std::string& path, const std::string& text);

// "cannot write <path>: <strerror(err)>"
Status file_error(const std::string& path, int err);

}  // namespace scopedsm
