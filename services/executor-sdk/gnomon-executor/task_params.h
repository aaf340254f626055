// Parsing and validation of gnomon-executor's job params: a job for handler
// `http` carries a gnomon.v1.HttpTask, one for `command` a
// gnomon.v1.CommandTask (proto/gnomon/v1/handlers.proto), as protobuf JSON.
// Parsing is strict — an unknown field, a wrong type or a bad value fails the
// run with a message naming the field — and messages never repeat a long
// value from the params (they land in run records and alarms).
//
//   absl::StatusOr<v1::HttpTask> task = ParseHttpTask(ctx.params());
//   if (!task.ok()) ctx.SetResult(500, task.status().message());
//
// Thread safety: stateless functions.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_TASK_PARAMS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_TASK_PARAMS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gnomon/v1/handlers.pb.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::generic_executor {

// Defaults and bounds of HttpTask (documented in handlers.proto).
inline constexpr absl::Duration kDefaultHttpTimeout = absl::Seconds(30);
inline constexpr absl::Duration kMaxHttpTimeout = absl::Hours(1);
inline constexpr uint32_t kDefaultMaxResponseBytes = 4096;
inline constexpr uint32_t kMaxResponseBytes = 1 << 20;
inline constexpr uint32_t kDefaultMaxRedirects = 5;
inline constexpr uint32_t kMaxRedirects = 20;

// At most 100 characters of a value taken from a job, for messages.
using curl::Shown;

// The params as an HttpTask, validated: a URL is given, the method is known
// (returned upper-cased, GET when empty), headers are well-formed and not
// ones the executor sets, GET/HEAD carry no body, the timeout and limits
// are in range. InvalidArgument, naming the field, otherwise. Whether the
// URL's scheme and host are allowed is the handler's check (it parses the
// URL with curl, as the request will).
absl::StatusOr<v1::HttpTask> ParseHttpTask(absl::string_view params);

// The params as a CommandTask, validated: argv is non-empty and holds no NUL,
// environment names are NAME-like and not GNOMON_ or code-loading ones (see
// IsRefusedEnvironmentName), working_dir is absolute, the timeout positive,
// exit codes in 0..255. InvalidArgument, naming the field, otherwise.
// Whether argv[0] is allowed is the handler's check.
absl::StatusOr<v1::CommandTask> ParseCommandTask(absl::string_view params);

// Variables a command may not be given: GNOMON_* (the executor's own, its
// credentials among them) and those that make the dynamic loader or a common
// interpreter load other code (LD_*, BASH_ENV, PYTHONPATH, NODE_OPTIONS,
// ...), which would turn an allowed program into any program.
bool IsRefusedEnvironmentName(absl::string_view name);

// Duration helpers for the tasks' google.protobuf.Duration fields.
absl::Duration ToDuration(const google::protobuf::Duration& d);

}  // namespace gnomon::generic_executor

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_TASK_PARAMS_H_
