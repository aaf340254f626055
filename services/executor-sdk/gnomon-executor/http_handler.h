// HttpHandler: gnomon-executor's `http` handler (XXL-JOB's httpJobHandler).
// The job's params are a gnomon.v1.HttpTask in JSON; the handler sends that
// one request with libcurl and succeeds when the final status is expected.
//
// Every destination passes the DestinationAllowList twice: the URL's host
// before anything is looked up, then every address it resolves to. The
// connection is then pinned to those vetted addresses (CURLOPT_RESOLVE), and
// curl may open sockets only to them (CURLOPT_OPENSOCKETFUNCTION), so a name
// that answers differently on a second lookup (DNS rebinding) cannot move the
// request elsewhere. Proxies from the environment (http_proxy, ...) are not
// used: a proxy would connect to a destination nobody checked. Only http and
// https; redirects are followed only when the task asks, each hop checked
// like the first.
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
#include "services/executor-sdk/gnomon-executor/destination_allow_list.h"

namespace gnomon::generic_executor {

// Looks a host name up: its addresses, or an error saying why not.
using Resolver = std::function<absl::StatusOr<std::vector<IpAddress>>(const std::string& host)>;

// getaddrinfo (IPv4 and IPv6), duplicates removed.
absl::StatusOr<std::vector<IpAddress>> SystemResolve(const std::string& host);

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
