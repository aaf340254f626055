// ChildEnvironment: the environment RunProcess gives a child process (a
// script run, or a command a handler starts): the executor's own minus every
// variable whose name starts with GNOMON_. Those configure the SDK and carry
// its credentials (GNOMON_ACCESS_TOKEN is the group's token; GNOMON_TLS_KEY
// names the executor's private key), and a job is arbitrary code that must not
// get them. Everything else (PATH, HOME, LANG, TMPDIR, ...) is kept.
//
//   std::vector<std::string> env = ChildEnvironment(environ);  // "NAME=value"
//
// With `extra` ("NAME" -> "value"), those variables are set too, replacing
// kept entries of the same name (callers refuse GNOMON_ names in `extra`
// first: see ValidateExtraEnvironment).
//
// Thread safety: reads `env` only. Passing the process's `environ` races with
// a setenv() in another thread, as getenv() does.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHILD_ENVIRONMENT_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHILD_ENVIRONMENT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace gnomon::executor::internal {

// The entries of the null-terminated `env` ("NAME=value"; null is empty) a
// child gets, in their order.
std::vector<std::string> ChildEnvironment(const char* const* env,
                                          const std::map<std::string, std::string>& extra = {});

// InvalidArgument, naming the variable, if an entry of `extra` may not be
// set: an empty name, one with '=' or NUL, a GNOMON_ name, a value with NUL.
absl::Status ValidateExtraEnvironment(const std::map<std::string, std::string>& extra);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHILD_ENVIRONMENT_H_
