#include "examples/sample_handlers.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gnomon/executor/process.h"

namespace gnomon::sample {
namespace {

using executor::JobContext;

void Demo(JobContext& ctx) {
  ctx.Log("demo handler started");
  ctx.Log("params: " + ctx.params());
  ctx.Log("demo handler done");
}

// The READMEs' example handler (README.md's taste uses it).
void Invoice(JobContext& ctx) { ctx.Log("invoicing " + ctx.params()); }

void Shell(JobContext& ctx) {
  if (ctx.params().empty()) {
    ctx.SetResult(500, "shell: params must be a command");
    return;
  }
  absl::StatusOr<int> exit = executor::RunProcess(ctx, {"/bin/sh", "-c", ctx.params()});
  if (!exit.ok()) {
    ctx.SetResult(500, std::string(exit.status().message()));
  } else if (*exit != 0) {
    ctx.SetResult(500, absl::StrCat("command exited with code ", *exit));
  }
}

struct HttpBody {
  std::string text;
  size_t limit = 64 * 1024;
};

size_t CollectBody(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<HttpBody*>(user);
  size_t n = size * count;
  if (body->text.size() < body->limit) {
    body->text.append(data, std::min(n, body->limit - body->text.size()));
  }
  return n;
}

int AbortIfCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<JobContext*>(user)->cancelled() ? 1 : 0;
}

void Http(JobContext& ctx) {
  std::string url(absl::StripAsciiWhitespace(ctx.params()));
  if (url.empty()) {
    ctx.SetResult(500, "http: params must be a URL");
    return;
  }
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    ctx.SetResult(500, "http: curl_easy_init failed");
    return;
  }
  HttpBody body;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, AbortIfCancelled);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &ctx);
  if (ctx.deadline() != absl::InfiniteFuture()) {
    int64_t ms = absl::ToInt64Milliseconds(ctx.deadline() - absl::Now());
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(ms, 1)));
  }
  ctx.Log("GET " + url);
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    ctx.SetResult(500, absl::StrCat("http: ", error[0] != '\0' ? error : curl_easy_strerror(rc)));
    return;
  }
  ctx.Log(absl::StrCat("HTTP ", status, ", ", body.text.size(), " bytes"));
  if (!body.text.empty()) ctx.Log(body.text.substr(0, 2048));
  if (status < 200 || status >= 300) ctx.SetResult(500, absl::StrCat("http: status ", status));
}

void Sharding(JobContext& ctx) {
  ctx.Log(absl::StrCat("shard ", ctx.shard_index(), " of ", ctx.shard_total()));
  // "fail-shard=N": shard N fails (to watch a broadcast retry one shard).
  absl::string_view params = ctx.params();
  uint32_t failing = 0;
  if (absl::ConsumePrefix(&params, "fail-shard=") && absl::SimpleAtoi(params, &failing) &&
      failing == ctx.shard_index()) {
    ctx.SetResult(500, absl::StrCat("sharding: shard ", failing, " fails on purpose"));
  }
}

void Slow(JobContext& ctx) {
  absl::string_view params = ctx.params();
  bool ignore_cancel = absl::ConsumeSuffix(&params, " ignore-cancel");
  int64_t ms = 0;
  if (!absl::SimpleAtoi(params, &ms) || ms < 0) {
    ctx.SetResult(500,
                  "slow: params must be milliseconds, optionally followed by ' ignore-cancel'");
    return;
  }
  ctx.Log(absl::StrCat("sleeping ", ms, " ms", ignore_cancel ? " (ignoring cancellation)" : ""));
  absl::Time end = absl::Now() + absl::Milliseconds(ms);
  while (absl::Now() < end) {
    absl::Duration step = std::min(absl::Milliseconds(20), end - absl::Now());
    if (ignore_cancel) {
      // Deliberately deaf to cancellation: this is what a misbehaving handler does.
      std::this_thread::sleep_for(absl::ToChronoMilliseconds(step));
    } else if (ctx.cancellation().WaitForCancellation(step)) {
      ctx.Log("cancelled: " + ctx.cancellation().reason());
      return;
    }
  }
  ctx.Log("slept");
}

// Does nothing and succeeds: for measuring gnomon itself (bench/).
void Noop(JobContext&) {}

// A workflow node: logs its parents' outputs and returns its params (after
// "output=", if they start so) as its own output, for its children and
// condition nodes.
void Echo(JobContext& ctx) {
  for (const executor::WorkflowInput& in : ctx.inputs()) {
    ctx.Log(absl::StrCat("input from ", in.node, ": ", in.output));
  }
  absl::string_view output = ctx.params();
  absl::ConsumePrefix(&output, "output=");
  if (absl::Status s = ctx.SetOutput(std::string(output)); !s.ok()) {
    ctx.SetResult(500, absl::StrCat("echo: ", s.message()));
  }
}

void Fail(JobContext& ctx) {
  ctx.Log("this handler always fails");
  ctx.SetResult(500, "fail handler: failed on purpose");
}

}  // namespace

absl::Status RegisterSampleHandlers(executor::Executor& executor,
                                    const std::string& invocations_file) {
  static const bool curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  (void)curl_ready;
  int fd = -1;
  if (!invocations_file.empty()) {
    // Open for the process's life; O_APPEND makes each line's write atomic.
    fd = ::open(invocations_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return absl::InvalidArgumentError("cannot open the invocations file");
  }
  for (auto& [name, handler] :
       std::initializer_list<std::pair<const char*, executor::Handler>>{{"demo", Demo},
                                                                        {"invoice", Invoice},
                                                                        {"shell", Shell},
                                                                        {"http", Http},
                                                                        {"sharding", Sharding},
                                                                        {"slow", Slow},
                                                                        {"fail", Fail},
                                                                        {"echo", Echo},
                                                                        {"noop", Noop}}) {
    executor::Handler h = handler;
    if (fd >= 0) {
      h = [fd, inner = std::move(h)](JobContext& ctx) {
        const std::string line = absl::StrCat(ctx.run_id(), " ", ctx.job_id(), " ", ctx.attempt(),
                                              " ", absl::ToUnixMicros(absl::Now()), "\n");
        if (::write(fd, line.data(), line.size()) < 0) ctx.Log("invocations file: write failed");
        inner(ctx);
        const std::string end =
            absl::StrCat("end ", ctx.run_id(), " ", absl::ToUnixMicros(absl::Now()), "\n");
        if (::write(fd, end.data(), end.size()) < 0) ctx.Log("invocations file: write failed");
      };
    }
    if (absl::Status s = executor.RegisterHandler(name, std::move(h)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace gnomon::sample
