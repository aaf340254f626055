// VettedPost: one HTTP POST of a JSON document to a URL that a user chose (a
// job's webhook, an alarm channel's chat robot), the way every alarm channel
// posts: only where the allow list lets it (services/common/curl/
// vetted_request.h: checked, resolved, pinned), bounded by a timeout, and
// with errors that name the destination by its origin only (a webhook's
// path or query is often its secret).
//
//   absl::StatusOr<PostAnswer> answer = VettedPost(options, url, R"({"text":"hi"})");
//   if (!answer.ok()) return answer.status();  // "https://hooks.slack.com/...: ..."
//   if (answer->http_code != 200) ...          // the caller judges the answer
//
// Errors (the answer itself, whatever its HTTP status, is not one):
//   InvalidArgument  never works as configured: not an http(s) URL with a
//                    host, or a destination the allow list refuses (the
//                    message says how to allow it);
//   Unavailable      may work later: a name that does not resolve now, a
//                    connection refused, a timeout;
//   ResourceExhausted  out of memory for a curl handle.
//
// Thread safety: thread-safe (each call uses its own curl handle).
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_VETTED_POST_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_VETTED_POST_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/curl/destination_allow_list.h"
#include "services/common/curl/vetted_request.h"

namespace gnomon::scheduler::alarm {

struct PostOptions {
  // Bound on one POST (connect, send, answer).
  absl::Duration timeout = absl::Seconds(10);
  // Where posts may go; empty allows nothing.
  curl::DestinationAllowList allow;
  // Tests substitute a fake DNS.
  curl::Resolver resolver = curl::SystemResolve;
};

// How much of an answer's body is kept; the rest is read and dropped.
inline constexpr size_t kMaxPostAnswerBytes = 64 * 1024;

struct PostAnswer {
  long http_code = 0;
  // The answer's body, its first kMaxPostAnswerBytes at most.
  std::string body;
};

// POSTs `body` to `url` as application/json. An error's message is
// "<shown>: <what>"; `shown` empty means curl::UrlOrigin(url).
absl::StatusOr<PostAnswer> VettedPost(const PostOptions& options, const std::string& url,
                                      const std::string& body, absl::string_view shown = {});

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_VETTED_POST_H_
