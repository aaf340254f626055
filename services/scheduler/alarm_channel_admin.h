// AlarmChannelAdmin: the alarm channel methods of gnomon.v1.JobAdmin, and
// AlarmChannelBook, the channels as the alarm sender finds them.
//
//   AlarmChannelBook book(store, clock);
//   alarm::ChatChannel chat([&](const std::string& n) { return book.Find(n); }, {});
//   AlarmChannelAdmin admin(store, clock, &chat);
//   absl::StatusOr<v1::AlarmChannel> c = admin.Create(proto);  // url origin only, no secret
//
// A channel's url and secret are credentials: every answer carries the
// url's origin only and never the secret (has_secret says whether one is
// stored); an update with an empty url or secret keeps the stored one.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_CHANNEL_ADMIN_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_CHANNEL_ADMIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/v1/admin.pb.h"
#include "services/common/client/clock.h"
#include "services/common/store/alarm_channel_store.h"
#include "services/scheduler/alarm/chat_channel.h"

namespace gnomon::scheduler {

// The channels a job's alarms name, as stored (secrets included), re-read
// when their version moves (asked at most once a second).
class AlarmChannelBook {
 public:
  AlarmChannelBook(store::AlarmChannelStore* store, Clock* clock) : store_(store), clock_(clock) {}
  // The channel named `name`; NotFound if there is none.
  absl::StatusOr<v1::AlarmChannel> Find(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  store::AlarmChannelStore* const store_;
  Clock* const clock_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, v1::AlarmChannel> channels_ ABSL_GUARDED_BY(mu_);
  std::optional<store::TableVersion> version_ ABSL_GUARDED_BY(mu_);
  int64_t checked_ms_ ABSL_GUARDED_BY(mu_) = -1'000'000;
};

class AlarmChannelAdmin {
 public:
  // `chat` sends TestAlarmChannel's message.
  AlarmChannelAdmin(store::AlarmChannelStore* store, Clock* clock, const alarm::ChatChannel* chat)
      : store_(store), clock_(clock), chat_(chat) {}

  absl::StatusOr<v1::AlarmChannel> Create(const v1::AlarmChannel& channel);
  absl::StatusOr<v1::AlarmChannel> Get(std::string_view name);
  absl::StatusOr<v1::ListAlarmChannelsResponse> List();
  absl::StatusOr<v1::AlarmChannel> Update(const v1::AlarmChannel& channel);
  absl::Status Delete(std::string_view name);
  absl::StatusOr<v1::TestAlarmChannelResponse> Test(std::string_view name);

 private:
  store::AlarmChannelStore* const store_;
  Clock* const clock_;
  const alarm::ChatChannel* const chat_;
};

// NotFound naming "job.alarm.channels[i]" for a name no channel has (OK
// with a null `store` only when `alarm` names none).
absl::Status CheckAlarmChannelsExist(store::AlarmChannelStore* store,
                                     const v1::AlarmTargets& alarm);

// `channel` as the API shows it: its url's origin only, no secret.
v1::AlarmChannel Shown(v1::AlarmChannel channel);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_CHANNEL_ADMIN_H_
