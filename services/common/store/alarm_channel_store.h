// AlarmChannelStore: alarm channels (gnomon.v1.AlarmChannel, keyed by
// name), secrets included: only the scheduler's alarm sender reads those;
// the API layer strips them.
//
//   absl::StatusOr<v1::AlarmChannel> c = store.CreateAlarmChannel(channel, now_ms);
//   absl::StatusOr<std::vector<v1::AlarmChannel>> all = store.ListAlarmChannels();
//
// One of the role-sized interfaces that together make up the Store
// (store.h); conventions (times, errors, thread safety) are store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_ALARM_CHANNEL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_ALARM_CHANNEL_STORE_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/store/table_version.h"

namespace gnomon::store {

class AlarmChannelStore {
 public:
  virtual ~AlarmChannelStore() = default;

  // Stores a new channel as given (its id, create and update times are the
  // store's; its update time later than any channel's before).
  // AlreadyExists naming channel.name if one has that name.
  virtual absl::StatusOr<v1::AlarmChannel> CreateAlarmChannel(const v1::AlarmChannel& channel,
                                                              int64_t now_ms) = 0;
  // NotFound naming the channel.
  virtual absl::StatusOr<v1::AlarmChannel> GetAlarmChannel(std::string_view name) = 0;
  // Every channel, by name.
  virtual absl::StatusOr<std::vector<v1::AlarmChannel>> ListAlarmChannels() = 0;
  // Replaces the channel named channel.name as given (its id and create
  // time stay; its update time is now, and later than any channel's
  // before). NotFound naming the channel.
  virtual absl::StatusOr<v1::AlarmChannel> UpdateAlarmChannel(const v1::AlarmChannel& channel,
                                                              int64_t now_ms) = 0;
  // NotFound naming the channel; FailedPrecondition naming a job ("job 12")
  // whose alarm.channels names it (found by reading every job's spec in
  // the transaction: an administrator's rare call).
  virtual absl::Status DeleteAlarmChannel(std::string_view name) = 0;
  // Moves whenever a channel is created, replaced or deleted (the alarm
  // sender re-reads them when it does).
  virtual absl::StatusOr<TableVersion> GetAlarmChannelsVersion() = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_ALARM_CHANNEL_STORE_H_
