#include "services/scheduler/scheduler_role.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {

std::string DefaultReplicaId();
std::vector<std::unique_ptr<alarm::AlarmChannel>> AlarmChannels(const SchedulerOptions& o,
                                                                const alarm::ChatOptions& chat,
                                                                alarm::FindAlarmChannel find);
alarm::ChatOptions ChatOptionsOf(const SchedulerOptions& o, Clock* clock);
alarm::AlarmSenderOptions AlarmOptions(const SchedulerOptions& o, Clock* clock);
std::unique_ptr<SchedulerMetrics> MetricsOf(metrics::MetricsRegistry* registry,
                                            const SchedulerOptions& o);

namespace {

// How often the runs queued for pools' slots are looked at: a slot freed by
// a run's end is taken within about this long (the end may be stored by
// another replica, so it is polled for).
constexpr absl::Duration kPoolGrantInterval = absl::Milliseconds(100);

RunReaperOptions ReaperOptions(const SchedulerOptions& o) {
  RunReaperOptions out = o.reaper;
  out.returning_grace = o.executor_return_grace;
  return out;
}

}  // namespace

SchedulerRole::SchedulerRole(store::Store* store, Authenticator* auth, SchedulerOptions options,
                             metrics::MetricsRegistry* registry, Clock* clock)
    : options_(options),
      metrics_(MetricsOf(registry, options)),
      executor_rows_(store),
      clock_(clock),
      membership_(auth->cluster_token(), clock, options.registry_dial),
      executors_(
          auth,
          {.replica_id = options.replica_id.empty() ? DefaultReplicaId() : options.replica_id},
          clock),
      dispatch_recorder_(store, clock, &in_flight_, options.dispatch_record_delay),
      pools_(clock, options.pools),
      prober_(store, &executors_, clock, absl::Seconds(2)),
      run_recorder_(store, clock, &in_flight_),
      targets_(store, &membership_, clock, &prober_),
      deliveries_({.executors = &executors_,
                   .outcomes = &dispatch_recorder_,
                   .targets = &targets_,
                   .clock = clock,
                   .partition_count = store->partition_count(),
                   .pools = &pools_,
                   .metrics = metrics_.get(),
                   .in_flight = &in_flight_}),
      resender_(store, &targets_, &deliveries_, &in_flight_),
      trigger_(&run_recorder_, &targets_, &deliveries_, metrics_.get(), &dispatch_recorder_),
      loop_(store, &trigger_, clock, options.loop, metrics_.get(), store),
      workflows_(store, store, &trigger_, clock, store, metrics_.get()),
      workflow_scheduler_(store, &workflows_, clock, {}, store),
      alarm_book_(store, clock),
      alarms_(AlarmChannels(options, ChatOptionsOf(options, clock),
                            [this](const std::string& name) { return alarm_book_.Find(name); }),
              AlarmOptions(options, clock),
              [store](int64_t run_id, const std::string& status) {
                if (absl::Status s = store->RecordAlarmStatus(run_id, status); !s.ok()) {
                  GNOMON_LOG(WARNING)
                      << "scheduler: recording alarm status of run " << run_id << ": " << s;
                }
              }),
      followups_(store, store, store, &trigger_, &loop_, clock, options.followups, &alarms_,
                 &workflows_, metrics_.get()),
      deadlines_(store, store, clock, {}, &alarms_, metrics_.get()),
      reaper_(store, &membership_, clock, ReaperOptions(options), metrics_.get(), &in_flight_),
      redispatcher_(store, &resender_, clock, options.redispatch, &in_flight_),
      pool_granter_(store, &resender_, clock, &in_flight_, metrics_.get()),
      lease_(store, store->partition_count(),
             options.replica_id.empty() ? DefaultReplicaId() : options.replica_id, clock,
             options.lease,
             [this](std::shared_ptr<const Ownership> o) {
               // Runs carry their partition's epoch; the loop, the
               // follow-ups and the run reaper handle only the partitions
               // held. Runs its partitions' earlier holders recorded and
               // never sent are sent again.
               run_recorder_.set_ownership(o);
               followups_.SetOwnership(o);
               deadlines_.SetOwnership(o);
               workflow_scheduler_.SetOwnership(o);
               redispatcher_.SetOwnership(o);
               pool_granter_.SetOwnership(o);
               reaper_.SetOwnership(o);
               if (metrics_ != nullptr) metrics_->Owned(*o);
               loop_.SetOwnership(std::move(o));
             }),
      core_(AdminStores{store, store, store, store, store, store, store}, &trigger_, &targets_,
            &loop_, &executors_, clock, options.limits, options.token_grace),
      workflow_admin_({store, store, store, store}, &workflows_, &core_, clock, options.limits),
      calendar_admin_(store, clock, &loop_),
      alarm_chat_([this](const std::string& name) { return alarm_book_.Find(name); },
                  ChatOptionsOf(options, clock)),
      alarm_channel_admin_(store, clock, &alarm_chat_),
      pool_admin_(store, clock),
      admin_limiter_(options.admin_rate, clock),
      audit_(store, clock),
      service_(&core_, auth, &admin_limiter_, &audit_, &workflow_admin_, &calendar_admin_,
               &alarm_channel_admin_, &pool_admin_) {
  // An executor that left gets no new runs; its link (and unanswered
  // dispatches) are failed at once.
  membership_.OnLeft([this](const v1::ExecutorInfo& e) {
    executors_.Drop(e.address());
    reaper_.ExecutorLeft(e);
  });
  // Nothing fires until partitions are held.
  loop_.SetOwnership(std::make_shared<const Ownership>());
  followups_.SetOwnership(std::make_shared<const Ownership>());
  deadlines_.SetOwnership(std::make_shared<const Ownership>());
  workflow_scheduler_.SetOwnership(std::make_shared<const Ownership>());
  reaper_.SetOwnership(std::make_shared<const Ownership>());
  pool_granter_.SetOwnership(std::make_shared<const Ownership>());
  if (metrics_ != nullptr) {
    scrape_hook_ = registry->OnScrape([this, store] {
      metrics_->SetPools(pools_.stats());
      metrics_->SetExecutorStreams(executors_.connected());
      metrics_->SetAlarms(alarms_.counters());
      // A cheap aggregate; a store that is down leaves the last counts.
      if (absl::StatusOr<std::vector<store::JobCount>> jobs = store->CountJobs(); jobs.ok()) {
        metrics_->SetJobs(*jobs);
      }
      if (absl::StatusOr<std::vector<v1::Pool>> pools = store->ListPools(clock_->NowMillis());
          pools.ok()) {
        metrics_->SetPoolRuns(*pools);
      }
    });
  }
}

std::unique_ptr<SchedulerMetrics> MetricsOf(metrics::MetricsRegistry* registry,
                                            const SchedulerOptions& o) {
  if (registry == nullptr) return nullptr;
  std::vector<std::string> channels;  // The names of the channels AlarmChannels makes.
  for (const auto& channel : AlarmChannels(o, ChatOptionsOf(o, &RealClock()), {})) {
    channels.push_back(channel->name());
  }
  return std::make_unique<SchedulerMetrics>(*registry, o.metrics_jobs, channels);
}

alarm::ChatOptions ChatOptionsOf(const SchedulerOptions& o, Clock* clock) {
  return {.timeout = o.webhook.timeout,
          .allow = o.webhook.allow,
          .resolver = o.webhook.resolver,
          .clock = clock};
}

std::vector<std::unique_ptr<alarm::AlarmChannel>> AlarmChannels(const SchedulerOptions& o,
                                                                const alarm::ChatOptions& chat,
                                                                alarm::FindAlarmChannel find) {
  std::vector<std::unique_ptr<alarm::AlarmChannel>> channels;
  channels.push_back(std::make_unique<alarm::WebhookChannel>(o.webhook));
  channels.push_back(std::make_unique<alarm::ChatChannel>(std::move(find), chat));
  if (!o.email.smtp_url.empty()) channels.push_back(std::make_unique<alarm::EmailChannel>(o.email));
  return channels;
}

alarm::AlarmSenderOptions AlarmOptions(const SchedulerOptions& o, Clock* clock) {
  alarm::AlarmSenderOptions a = o.alarms;
  a.clock = clock;
  return a;
}

std::string DefaultReplicaId() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, ":", ::getpid());
}

SchedulerRole::~SchedulerRole() { Stop(); }

void SchedulerRole::Start(const std::string& registry_endpoint) {
  alarms_.Start();
  executors_.Start();
  threads_.emplace_back([this, registry_endpoint] { membership_.Run(registry_endpoint); });
  threads_.emplace_back([this] { dispatch_recorder_.Run(); });
  deliveries_.Start();
  loop_thread_ = std::thread([this] { loop_.Run(); });
  followups_.Start();
  deadlines_.Start();
  workflow_scheduler_.Start();
  reaper_.Start();
  redispatcher_.Start();
  pool_granter_.Start(kPoolGrantInterval);
  // Partitions are taken only once the executors are known: a replica that
  // fired before would fail its first runs "no live executor".
  if (!membership_.WaitSynced(absl::Seconds(10))) {
    GNOMON_LOG(WARNING)
        << "scheduler: no executor snapshot from the registry yet; scheduling anyway";
  }
  AwaitReturningExecutors();
  lease_.Start();
  prober_.Start();
}

void SchedulerRole::AwaitReturningExecutors() {
  if (options_.executor_return_grace <= absl::ZeroDuration()) return;
  // Rows outlive their sessions when this process stopped or died (the
  // registry keeps them on shutdown; pruning takes 10 minutes): they are the
  // executors that were connected before, reconnecting with their backoff.
  absl::StatusOr<std::vector<v1::ExecutorInfo>> rows = executor_rows_->ListExecutors();
  if (!rows.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: cannot read the executors known before this start: "
                        << rows.status();
    return;
  }
  std::vector<std::string> known;
  for (const v1::ExecutorInfo& e : *rows) known.push_back(e.address());
  const absl::Time deadline = absl::Now() + options_.executor_return_grace;
  std::vector<std::string> missing = membership_.AwaitExecutors(known, absl::ZeroDuration());
  if (missing.empty()) {
    // Possible when they reconnected while this replica was syncing.
    GNOMON_LOG(INFO) << "scheduler: all " << known.size()
                     << " executors known before this start are back";
  } else {
    GNOMON_LOG(INFO) << "scheduler: waiting up to "
                     << absl::FormatDuration(options_.executor_return_grace) << " for "
                     << missing.size() << " of " << known.size()
                     << " executors known before this start to reconnect";
    const absl::Time started = absl::Now();
    missing = membership_.AwaitExecutors(std::move(missing), options_.executor_return_grace);
    if (missing.empty()) {
      GNOMON_LOG(INFO) << "scheduler: executors back after "
                       << absl::FormatDuration(
                              absl::Trunc(absl::Now() - started, absl::Milliseconds(1)));
    } else {
      GNOMON_LOG(WARNING) << "scheduler: " << missing.size()
                          << " executors did not come back in time ("
                          << absl::StrJoin(missing, ", ") << "); scheduling anyway";
    }
  }
  // Registered (through any replica) is not enough: runs reach an executor
  // over its stream to this replica.
  missing = executors_.AwaitConnected(*rows, deadline);
  if (!missing.empty()) {
    GNOMON_LOG(WARNING) << "scheduler: " << missing.size()
                        << " executors known before this start are not connected here yet ("
                        << absl::StrJoin(missing, ", ") << "); scheduling anyway";
  }
  // Their results reach the log service once their result streams have
  // reconnected too: a run a predecessor left in doubt that the executors
  // cannot be asked about is resent only after the usual grace from now.
  redispatcher_.HoldUntil(clock_->NowMillis() +
                          absl::ToInt64Milliseconds(options_.redispatch.grace));
}

void SchedulerRole::Stop() {
  if (threads_.empty()) return;
  // Drain, then release: stop firing, send what was recorded ahead, let the
  // executors answer, and only then give the partitions up (the others take
  // them at once). Closing the links earlier failed the runs still awaiting
  // an answer ("link closed") although their executors were there.
  loop_.Stop();
  loop_thread_.join();
  deliveries_.Flush();  // Sends what was recorded ahead rather than dropping it.
  deadlines_.Stop();
  followups_.Stop();
  workflow_scheduler_.Stop();
  redispatcher_.Stop();
  pool_granter_.Stop();
  pools_.Stop();  // Runs every queued dispatch: each run is now on its executor's link.
  if (!executors_.AwaitAnswered(absl::Seconds(5))) {
    GNOMON_LOG(WARNING) << "scheduler: stopping with dispatches unanswered after 5 s; they fail";
  }
  lease_.Stop();
  prober_.Stop();
  reaper_.Stop();
  membership_.Stop();
  executors_.CloseAll();
  deliveries_.Stop();  // Has handled every answer: the outcomes are with the recorder.
  dispatch_recorder_.Stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  alarms_.Stop();
}

}  // namespace gnomon::scheduler
