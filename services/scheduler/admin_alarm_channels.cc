// AdminService: the alarm channel methods of gnomon.v1.JobAdmin over
// AlarmChannelAdmin. Channels belong to no group: any role reads them (url
// origins, never secrets), and writing or testing one is an
// administrator's. Every change is audited as "alarm_channel/NAME", without
// its secret.
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_answer.h"
#include "services/scheduler/admin_service.h"

namespace gnomon::scheduler {
namespace {

std::function<std::string()> ChannelObject(std::string name) {
  return [name = std::move(name)] { return absl::StrCat("alarm_channel/", name); };
}

}  // namespace

absl::Status AdminService::CheckAlarmChannels() const {
  if (alarm_channels_ == nullptr) {
    return absl::UnimplementedError("alarm channels are not served here");
  }
  return absl::OkStatus();
}

std::string AdminService::AlarmChannelJson(const std::string& name) {
  if (alarm_channels_ == nullptr) return "";
  absl::StatusOr<v1::AlarmChannel> c = alarm_channels_->Get(name);  // Shown: no secret.
  return c.ok() ? AuditLog::Json(*c) : "";
}

grpc::Status AdminService::CreateAlarmChannel(Ctx* c, const v1::CreateAlarmChannelRequest* r,
                                              v1::AlarmChannel* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::AlarmChannel> {
                  RETURN_IF_ERROR(CheckAlarmChannels());
                  return alarm_channels_->Create(r->channel());
                },
                {r, ChannelObject(r->channel().name()), {}});
}

grpc::Status AdminService::GetAlarmChannel(Ctx* c, const v1::GetAlarmChannelRequest* r,
                                           v1::AlarmChannel* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::AlarmChannel> {
    RETURN_IF_ERROR(CheckAlarmChannels());
    return alarm_channels_->Get(r->name());
  });
}

grpc::Status AdminService::ListAlarmChannels(Ctx* c, const v1::ListAlarmChannelsRequest*,
                                             v1::ListAlarmChannelsResponse* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::ListAlarmChannelsResponse> {
                  RETURN_IF_ERROR(CheckAlarmChannels());
                  return alarm_channels_->List();
                });
}

grpc::Status AdminService::UpdateAlarmChannel(Ctx* c, const v1::UpdateAlarmChannelRequest* r,
                                              v1::AlarmChannel* o) {
  const std::string name = r->channel().name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::AlarmChannel> {
                  RETURN_IF_ERROR(CheckAlarmChannels());
                  return alarm_channels_->Update(r->channel());
                },
                {r, ChannelObject(name), [this, name] { return AlarmChannelJson(name); }});
}

grpc::Status AdminService::DeleteAlarmChannel(Ctx* c, const v1::DeleteAlarmChannelRequest* r,
                                              v1::DeleteAlarmChannelResponse* o) {
  const std::string name = r->name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::DeleteAlarmChannelResponse> {
                  RETURN_IF_ERROR(CheckAlarmChannels());
                  RETURN_IF_ERROR(alarm_channels_->Delete(name));
                  return v1::DeleteAlarmChannelResponse();
                },
                {r, ChannelObject(name), [this, name] { return AlarmChannelJson(name); }});
}

grpc::Status AdminService::TestAlarmChannel(Ctx* c, const v1::TestAlarmChannelRequest* r,
                                            v1::TestAlarmChannelResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::TestAlarmChannelResponse> {
    RETURN_IF_ERROR(CheckAlarmChannels());
    return alarm_channels_->Test(r->name());
  });
}

}  // namespace gnomon::scheduler
