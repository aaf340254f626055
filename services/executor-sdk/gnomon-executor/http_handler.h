// HttpHandler: gnomon-executor's `http` handler (XXL-JOB's httpJobHandler).
// The job's params are a gnomon.v1.HttpTask in JSON; the handler sends that
// one request with libcurl and succeeds when the final status is expected.
//
// Every destination is vetted against the DestinationAllowList and the
// request pinned to its vetted addresses (services/common/curl/vetted_request.h:
// no DNS rebinding, no proxy from the environment, http and https only);
// redirects are followed only when the task asks, each hop vetted like the
// first.
//
// The request's time is bounded by the task's timeout and the run's deadline,
// and a kill or timeout of the run aborts it (curl's progress callback, at
// least once a second).
//
//   HttpHandlerOptions options{*DestinationAllowList::Parse("api.example.com")};
//   executor->RegisterHandler("http", HttpHandler(std::move(options)));
//
// Thread safety: const and stateless per call; one instance serves
// concurrent runs (curl_global_init must have run: see CurlGlobalInit).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_HTTP_HANDLER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_HTTP_HANDLER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/executor/job_context.h"
#include "services/common/curl/destination_allow_list.h"
#include "services/common/curl/vetted_request.h"

namespace gnomon::generic_executor {

using curl::DestinationAllowList;
using curl::IpAddress;
using curl::Resolver;
using curl::SystemResolve;

struct HttpHandlerOptions {
  DestinationAllowList allow;
  // Tests substitute a fake DNS.
  Resolver resolver = SystemResolve;
  std::string user_agent = "gnomon-executor";
};

class HttpHandler {
 public:
  explicit HttpHandler(HttpHandlerOptions options)
      : options_(std::make_shared<const HttpHandlerOptions>(std::move(options))) {}

  void operator()(executor::JobContext& ctx) const;

 private:
  std::shared_ptr<const HttpHandlerOptions> options_;  // shared: handlers are copied
};

// `text` with what a run-log line cannot hold replaced: bytes that are not
// valid UTF-8 and control characters other than tab and newline become '?',
// CR is dropped (so CRLF bodies log as lines).
std::string PrintableUtf8(absl::string_view text);

}  // namespace gnomon::generic_executor

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_HTTP_HANDLER_H_
