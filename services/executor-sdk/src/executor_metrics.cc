#include "services/executor-sdk/src/executor_metrics.h"

#include <algorithm>
#include <string>

#include "google/protobuf/util/time_util.h"
#include "services/common/metrics/buckets.h"

namespace gnomon::executor::internal {
namespace {

using google::protobuf::util::TimeUtil;

constexpr char kDispatches[] = "gnomon_executor_dispatches_total";
constexpr char kDispatchesHelp[] =
    "Runs schedulers dispatched here, by answer: accepted, already_accepted (a resend), covered "
    "(accepted; "
    "COVER_EARLY killed the job's earlier runs), or the refusal's kind.";

double Seconds(const google::protobuf::Timestamp& from, const google::protobuf::Timestamp& to) {
  return std::max<int64_t>(
             0, TimeUtil::TimestampToMilliseconds(to) - TimeUtil::TimestampToMilliseconds(from)) /
         1000.0;
}

}  // namespace

ExecutorMetrics::ExecutorMetrics(metrics::MetricsRegistry& m)
    : accepted_(m.Counter(kDispatches, kDispatchesHelp, {{"outcome", "accepted"}})),
      already_accepted_(m.Counter(kDispatches, kDispatchesHelp, {{"outcome", "already_accepted"}})),
      covered_(m.Counter(kDispatches, kDispatchesHelp, {{"outcome", "covered"}})),
      rejected_(m.CounterFamily(kDispatches, kDispatchesHelp), "outcome", prometheus::Labels{}),
      start_lateness_(m.HistogramFamily(
                          "gnomon_executor_start_lateness_seconds",
                          "From when a run was due to its handler starting here, by trigger type "
                          "(retries and backfills, whose due instant is not sent, are left out)."),
                      "trigger_type", prometheus::Labels{}, metrics::LatenessBuckets()),
      handler_duration_(m.Histogram("gnomon_executor_handler_duration_seconds",
                                    "How long handlers ran here, start to end.",
                                    metrics::RunDurationBuckets())),
      runs_(m, "gnomon_executor_runs_total", "Runs that ended here, by status and handle code."),
      auth_failures_(m.Counter("gnomon_executor_auth_failures_total",
                               "Calls refused for a missing or wrong group access token.")),
      running_(m.Gauge("gnomon_executor_runs_in_flight", "Runs whose handlers are executing now.")),
      queued_(
          m.GaugeFamily(
              "gnomon_executor_queued_runs",
              "Runs waiting here for their job's earlier run or for a worker, by block strategy."),
          "block_strategy", prometheus::Labels{}),
      spooled_(m.Gauge(
          "gnomon_executor_spool_items",
          "Report items (starts, log batches, results) not yet acknowledged by the log service.")),
      oldest_result_age_(m.Gauge(
          "gnomon_executor_oldest_unacked_result_age_seconds",
          "Age of the oldest run result the log service has not acknowledged (0: none).")) {}

void ExecutorMetrics::Answered(const DispatchOutcome& o) {
  if (!o.accepted) {
    rejected_[o.kind].Increment();
  } else if (o.already_accepted) {
    already_accepted_.Increment();
  } else {
    (o.covered ? covered_ : accepted_).Increment();
  }
}

void ExecutorMetrics::Started(const v1::RunRequest& request, absl::Time start) {
  if (!metrics::RequestTimeIsDue(request.trigger_type())) return;
  const int64_t late_ms =
      absl::ToUnixMillis(start) - TimeUtil::TimestampToMilliseconds(request.scheduled_time());
  start_lateness_[request.trigger_type()].Observe(std::max<int64_t>(0, late_ms) / 1000.0);
}

void ExecutorMetrics::Finished(const v1::RunResult& result) {
  runs_.Ended(result.handle_code());
  if (result.has_start_time() && result.has_end_time()) {
    handler_duration_.Observe(Seconds(result.start_time(), result.end_time()));
  }
}

void ExecutorMetrics::SetState(uint32_t running, const std::map<v1::BlockStrategy, int>& queued,
                               size_t spooled, std::optional<absl::Time> oldest_result_end,
                               absl::Time now) {
  running_.Set(running);
  for (int s = 1; s <= v1::BlockStrategy_MAX; ++s) {  // RunManager names every strategy (not 0).
    if (!v1::BlockStrategy_IsValid(s)) continue;
    auto it = queued.find(static_cast<v1::BlockStrategy>(s));
    queued_[s].Set(it == queued.end() ? 0 : it->second);
  }
  spooled_.Set(static_cast<double>(spooled));
  oldest_result_age_.Set(
      oldest_result_end ? std::max(0.0, absl::ToDoubleSeconds(now - *oldest_result_end)) : 0);
}

}  // namespace gnomon::executor::internal
