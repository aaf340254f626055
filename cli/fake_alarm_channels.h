// The alarm channel calls of the fake JobAdmin (fake_servers.h; test only):
// channels kept by name as FakeNamed keeps them (fake_named.h), secrets and
// whole urls included, and answered as the server answers: the url's origin
// only, no secret (has_secret says whether one is stored), and an update's
// empty url or secret keeping the stored one. TestAlarmChannel answers
// `test_answer`.
//
//   FakeAlarmChannels a;
//   v1::AlarmChannel shown;
//   a.CreateAlarmChannel(request, &shown);  // shown.url() == "https://oapi.dingtalk.com/..."
//   a.stored["ops"].secret();               // what was sent
//   a.Names(job.alarm());                   // OK, or NOT_FOUND "job.alarm.channels[1]: ..."
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_ALARM_CHANNELS_H_
#define GNOMON_CLI_FAKE_ALARM_CHANNELS_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "cli/fake_named.h"
#include "gnomon/v1/admin.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct FakeAlarmChannels : FakeNamed<v1::AlarmChannel> {
  FakeAlarmChannels()
      : FakeNamed({"alarm channel", "an alarm channel", "channel", "alarm-channel"}) {
    test_answer.set_delivered(true);
  }

  // TestAlarmChannel's answer for a stored channel.
  v1::TestAlarmChannelResponse test_answer;

  grpc::Status CreateAlarmChannel(const v1::CreateAlarmChannelRequest& req,
                                  v1::AlarmChannel* resp) {
    if (req.channel().kind() == v1::ALARM_CHANNEL_KIND_UNSPECIFIED) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "channel.kind: must be DINGTALK, WECOM, FEISHU, SLACK or TELEGRAM");
    }
    return Answer(Create(req.channel(), resp), resp);
  }
  grpc::Status GetAlarmChannel(const v1::GetAlarmChannelRequest& req, v1::AlarmChannel* resp) {
    return Answer(Get(req.name(), resp), resp);
  }
  grpc::Status ListAlarmChannels(const v1::ListAlarmChannelsRequest&,
                                 v1::ListAlarmChannelsResponse* resp) {
    for (const auto& [name, c] : stored) *resp->add_channels() = Shown(c);
    return grpc::Status::OK;
  }
  grpc::Status UpdateAlarmChannel(const v1::UpdateAlarmChannelRequest& req,
                                  v1::AlarmChannel* resp) {
    v1::AlarmChannel c = req.channel();
    c.clear_has_secret();
    if (auto it = stored.find(c.name()); it != stored.end()) {
      if (c.url().empty()) c.set_url(it->second.url());
      if (c.secret().empty()) c.set_secret(it->second.secret());
    }
    return Answer(Replace(c, resp), resp);
  }
  grpc::Status DeleteAlarmChannel(const v1::DeleteAlarmChannelRequest& req,
                                  v1::DeleteAlarmChannelResponse*) {
    return Delete(req.name());
  }
  grpc::Status TestAlarmChannel(const v1::TestAlarmChannelRequest& req,
                                v1::TestAlarmChannelResponse* resp) {
    v1::AlarmChannel c;
    if (grpc::Status s = Get(req.name(), &c); !s.ok()) return s;
    *resp = test_answer;
    return grpc::Status::OK;
  }

  // OK when every channel `alarm` names is stored; else NOT_FOUND naming the
  // first that is not, as the server answers CreateJob and UpdateJob.
  grpc::Status Names(const v1::AlarmTargets& alarm) const {
    for (int i = 0; i < alarm.channels_size(); ++i) {
      if (grpc::Status s = Known(absl::StrCat("job.alarm.channels[", i, "]"), alarm.channels(i));
          !s.ok()) {
        return s;
      }
    }
    return grpc::Status::OK;
  }

  // `c` as the API shows it (curl::UrlOrigin): "https://host[:port]" of its
  // url, then "/..." if it has a path; no secret.
  static v1::AlarmChannel Shown(v1::AlarmChannel c) {
    c.set_has_secret(!c.secret().empty());
    c.clear_secret();
    std::string url = c.url().substr(0, c.url().find_first_of("?#"));
    const size_t scheme = url.find("://");
    const size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (path != std::string::npos) url = url.substr(0, path) + "/...";
    c.set_url(url);
    return c;
  }

 private:
  static grpc::Status Answer(const grpc::Status& s, v1::AlarmChannel* resp) {
    if (s.ok()) *resp = Shown(*resp);
    return s;
  }
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_ALARM_CHANNELS_H_
