#include "cli/alarm_channel_manifest.h"

#include "absl/strings/str_cat.h"
#include "cli/manifests.h"
#include "google/protobuf/util/message_differencer.h"

namespace gnomon::cli {
namespace {

std::vector<v1::Manifest> Manifests(
    const google::protobuf::RepeatedPtrField<v1::AlarmChannel>& all) {
  std::vector<v1::Manifest> docs;
  for (const v1::AlarmChannel& channel : all) {
    v1::Manifest& m = docs.emplace_back();
    m.set_kind("AlarmChannel");
    *m.mutable_alarm_channel() = DeclaredAlarmChannel(channel);
    // Says whether the cluster has a secret for it; ignored when applied.
    m.mutable_alarm_channel()->set_has_secret(channel.has_secret());
  }
  return docs;
}

// Whether `url` is "scheme://host[:port]" with nothing, "/" or "/..." after
// it: what the API shows of a url ("https://oapi.dingtalk.com/..."), never a
// robot's webhook.
bool IsOriginOnly(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const size_t rest = url.find_first_of("/?#", scheme + 3);
  return rest == std::string::npos || url.substr(rest) == "/" || url.substr(rest) == "/...";
}

// The url to send: none (the server keeps the stored one) when the document
// gives none or the origin the API shows of the stored one.
std::string UrlToSend(const v1::AlarmChannel& want, const v1::AlarmChannel* shown) {
  if (shown != nullptr && want.url() == shown->url()) return "";
  return want.url();
}

// What apply can compare: neither url nor secret (the API shows neither).
v1::AlarmChannel Comparable(v1::AlarmChannel channel) {
  channel = DeclaredAlarmChannel(std::move(channel));
  channel.clear_url();
  channel.clear_secret();
  return channel;
}

int GetAlarmChannel(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::GetAlarmChannelRequest req;
  req.set_name(*name);
  v1::ListAlarmChannelsResponse one;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().GetAlarmChannel(rpc.get(), req, one.add_channels()); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(one.channels()));
}

int GetAlarmChannels(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListAlarmChannelsResponse all;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListAlarmChannels(rpc.get(), v1::ListAlarmChannelsRequest(), &all);
      !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(all.channels()));
}

}  // namespace

absl::Status CheckAlarmChannelManifest(const v1::Manifest& m) {
  return CheckUngroupedManifest(m, "alarm_channel", m.alarm_channel().name(), "alarm channels");
}

v1::AlarmChannel DeclaredAlarmChannel(v1::AlarmChannel channel) {
  channel.clear_id();
  channel.clear_has_secret();
  channel.clear_create_time();
  channel.clear_update_time();
  return channel;
}

grpc::Status ApplyAlarmChannel(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                               std::string* outcome) {
  if (absl::Status s = CheckAlarmChannelManifest(manifest); !s.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(s.message()));
  }
  const v1::AlarmChannel want = DeclaredAlarmChannel(manifest.alarm_channel());
  v1::AlarmChannel shown;
  bool exists = false;
  // `want` as sent: without the url when the server is to keep it.
  auto sent = [&] {
    v1::AlarmChannel channel = want;
    channel.set_url(UrlToSend(want, exists ? &shown : nullptr));
    return channel;
  };
  ByNameCalls calls;
  calls.get = [&] {
    v1::GetAlarmChannelRequest req;
    req.set_name(want.name());
    auto rpc = c.NewRpcContext();
    return c.admin().GetAlarmChannel(rpc.get(), req, &shown);
  };
  calls.check = [&](bool found) {
    exists = found;
    const std::string url = sent().url();
    if (want.kind() != v1::TELEGRAM && !url.empty() && IsOriginOnly(url)) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("alarm_channel.url: ", url,
                       " is an origin only (what `get alarm-channel` prints); give the robot's "
                       "whole webhook URL"));
    }
    return grpc::Status::OK;
  };
  calls.unchanged = [&] {
    return want.secret().empty() && sent().url().empty() &&
           google::protobuf::util::MessageDifferencer::Equivalent(Comparable(shown),
                                                                  Comparable(want));
  };
  calls.create = [&] {
    v1::CreateAlarmChannelRequest req;
    *req.mutable_channel() = want;
    v1::AlarmChannel created;
    auto rpc = c.NewRpcContext();
    return c.admin().CreateAlarmChannel(rpc.get(), req, &created);
  };
  calls.replace = [&] {
    v1::UpdateAlarmChannelRequest req;
    *req.mutable_channel() = sent();
    v1::AlarmChannel updated;
    auto rpc = c.NewRpcContext();
    return c.admin().UpdateAlarmChannel(rpc.get(), req, &updated);
  };
  return ApplyByName(calls, dry_run, outcome);
}

std::vector<Command> AlarmChannelGetCommands() {
  return {
      {"get",
       "alarm-channel",
       "NAME",
       "Print an alarm channel as an apply document (YAML): its url's origin, no secret.",
       {},
       "gnomonctl get alarm-channel ops-dingtalk > ops-dingtalk.yaml",
       GetAlarmChannel},
      {"get",
       "alarm-channels",
       "",
       "Print every alarm channel as apply documents (YAML).",
       {},
       "gnomonctl get alarm-channels > alarm-channels.yaml",
       GetAlarmChannels},
  };
}

}  // namespace gnomon::cli
