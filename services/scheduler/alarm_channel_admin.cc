#include "services/scheduler/alarm_channel_admin.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/curl/curl_util.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

using checks::Charset;
using checks::CheckString;
using checks::Invalid;

absl::Status CheckName(std::string_view name) {
  return CheckString("name", name, 128, Charset::kName, 1);
}

// The request's channel within its limits (docs/operations.md, "Input
// limits") and complete for its kind once `stored` (the channel it
// replaces, if any) fills what it leaves empty.
absl::Status CheckFields(const v1::AlarmChannel& c) {
  RETURN_IF_ERROR(checks::FirstError({
      checks::CheckRange("channel.id", c.id(), 0, INT64_MAX),
      CheckString("channel.name", c.name(), 64, Charset::kName, 1),
      v1::AlarmChannelKind_IsValid(c.kind()) && c.kind() != v1::ALARM_CHANNEL_KIND_UNSPECIFIED
          ? absl::OkStatus()
          : Invalid("channel.kind", "must be DINGTALK, WECOM, FEISHU, SLACK or TELEGRAM"),
      CheckString("channel.url", c.url(), 2048, Charset::kToken),
      CheckString("channel.secret", c.secret(), 256, Charset::kToken),
      CheckString("channel.chat_id", c.chat_id(), 128, Charset::kToken),
      checks::CheckText("channel.template", c.template_(), 4096),
      checks::CheckTimestamp("channel.create_time", c.create_time()),
      checks::CheckTimestamp("channel.update_time", c.update_time()),
  }));
  if (!c.url().empty() && !absl::StartsWith(c.url(), "https://") &&
      !absl::StartsWith(c.url(), "http://")) {
    return Invalid("channel.url", absl::StrCat(checks::Prefix(curl::UrlOrigin(c.url())),
                                               " is not an http(s) URL"));
  }
  return alarm::ValidateAlarmTemplate(c.template_(), "channel.template");
}

// What the kind needs, once the stored url and secret are filled in.
absl::Status CheckComplete(const v1::AlarmChannel& c) {
  if (c.kind() == v1::TELEGRAM) {
    if (c.secret().empty())
      return Invalid("channel.secret", "a Telegram channel needs its bot token");
    if (c.chat_id().empty())
      return Invalid("channel.chat_id", "a Telegram channel needs a chat id");
    return absl::OkStatus();
  }
  if (c.url().empty()) return Invalid("channel.url", "required (the robot's webhook URL)");
  if (!c.chat_id().empty()) return Invalid("channel.chat_id", "only a Telegram channel has one");
  return absl::OkStatus();
}

// The channel as written: what the server sets cleared.
v1::AlarmChannel Written(const v1::AlarmChannel& in) {
  v1::AlarmChannel c = in;
  c.clear_id();
  c.clear_create_time();
  c.clear_update_time();
  c.clear_has_secret();
  return c;
}

absl::StatusOr<v1::AlarmChannel> ShownOr(absl::StatusOr<v1::AlarmChannel> c) {
  if (!c.ok()) return c.status();
  return Shown(*std::move(c));
}

}  // namespace

v1::AlarmChannel Shown(v1::AlarmChannel channel) {
  channel.set_has_secret(!channel.secret().empty());
  channel.clear_secret();
  if (!channel.url().empty()) channel.set_url(curl::UrlOrigin(channel.url()));
  return channel;
}

absl::StatusOr<v1::AlarmChannel> AlarmChannelBook::Find(const std::string& name) {
  absl::MutexLock l(&mu_);
  const int64_t now = clock_->NowMillis();
  auto it = channels_.find(name);
  // Asked at most once a second, and at once for a name not known (one
  // just created).
  if (now - checked_ms_ >= 1000 || it == channels_.end()) {
    checked_ms_ = now;
    absl::StatusOr<store::TableVersion> version = store_->GetAlarmChannelsVersion();
    if (version.ok() && *version != version_) {
      absl::StatusOr<std::vector<v1::AlarmChannel>> all = store_->ListAlarmChannels();
      if (all.ok()) {
        channels_.clear();
        for (v1::AlarmChannel& c : *all) channels_[c.name()] = std::move(c);
        version_ = *version;
      }
    } else if (!version.ok()) {
      GNOMON_LOG(WARNING) << "alarm: reading the alarm channels' version: " << version.status();
    }
    it = channels_.find(name);
  }
  if (it == channels_.end()) {
    return absl::NotFoundError(absl::StrCat("alarm channel '", name, "' does not exist"));
  }
  return it->second;
}

absl::StatusOr<v1::AlarmChannel> AlarmChannelAdmin::Create(const v1::AlarmChannel& channel) {
  RETURN_IF_ERROR(CheckFields(channel));
  const v1::AlarmChannel c = Written(channel);
  RETURN_IF_ERROR(CheckComplete(c));
  return ShownOr(store_->CreateAlarmChannel(c, clock_->NowMillis()));
}

absl::StatusOr<v1::AlarmChannel> AlarmChannelAdmin::Get(std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  return ShownOr(store_->GetAlarmChannel(name));
}

absl::StatusOr<v1::ListAlarmChannelsResponse> AlarmChannelAdmin::List() {
  ASSIGN_OR_RETURN(std::vector<v1::AlarmChannel> all, store_->ListAlarmChannels());
  v1::ListAlarmChannelsResponse resp;
  for (v1::AlarmChannel& c : all) *resp.add_channels() = Shown(std::move(c));
  return resp;
}

absl::StatusOr<v1::AlarmChannel> AlarmChannelAdmin::Update(const v1::AlarmChannel& channel) {
  RETURN_IF_ERROR(CheckFields(channel));
  v1::AlarmChannel c = Written(channel);
  ASSIGN_OR_RETURN(v1::AlarmChannel stored, store_->GetAlarmChannel(c.name()));
  if (c.url().empty()) c.set_url(stored.url());
  if (c.secret().empty()) c.set_secret(stored.secret());
  RETURN_IF_ERROR(CheckComplete(c));
  return ShownOr(store_->UpdateAlarmChannel(c, clock_->NowMillis()));
}

absl::Status AlarmChannelAdmin::Delete(std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  return store_->DeleteAlarmChannel(name);
}

absl::StatusOr<v1::TestAlarmChannelResponse> AlarmChannelAdmin::Test(std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  ASSIGN_OR_RETURN(v1::AlarmChannel channel, store_->GetAlarmChannel(name));
  alarm::Alarm a;
  a.job.set_name("gnomon-test");
  a.job.set_description("a test of alarm channel " + channel.name());
  a.run.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  *a.run.mutable_end_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(clock_->NowMillis());
  a.reason = "a test message (JobAdmin.TestAlarmChannel): this channel works";
  v1::TestAlarmChannelResponse resp;
  absl::Status sent = chat_->SendTo(channel, a);
  resp.set_delivered(sent.ok());
  if (!sent.ok()) resp.set_error(std::string(sent.message()));
  return resp;
}

absl::Status CheckAlarmChannelsExist(store::AlarmChannelStore* store,
                                     const v1::AlarmTargets& alarm) {
  if (alarm.channels_size() > 0 && store == nullptr) {
    return absl::UnimplementedError("alarm channels are not served here");
  }
  for (int i = 0; i < alarm.channels_size(); ++i) {
    absl::StatusOr<v1::AlarmChannel> c = store->GetAlarmChannel(alarm.channels(i));
    if (absl::IsNotFound(c.status())) {
      return absl::NotFoundError(absl::StrCat(checks::Indexed("job.alarm.channels", i),
                                              ": no alarm channel is named '", alarm.channels(i),
                                              "' (gnomonctl alarm-channel list)"));
    }
    RETURN_IF_ERROR(c.status());
  }
  return absl::OkStatus();
}

}  // namespace gnomon::scheduler
