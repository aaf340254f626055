// StoreTest cases for alarm channels: a channel round-trips as given (url
// and secret included) and its name is unique; an update replaces it as
// given and always moves its update time on; a channel a job's
// alarm.channels names cannot be deleted; and the channels' version moves
// with every change.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using Version = store::TableVersion;

v1::AlarmChannel DingTalk(const std::string& name) {
  v1::AlarmChannel c;
  c.set_name(name);
  c.set_kind(v1::DINGTALK);
  c.set_url("https://oapi.dingtalk.com/robot/send?access_token=abc123");
  c.set_secret("SECdeadbeef");
  c.set_template_("{{job_name}} failed: {{reason}}");
  c.set_has_secret(true);
  return c;
}

int64_t Ms(const google::protobuf::Timestamp& t) {
  return t.seconds() * 1000 + t.nanos() / 1000000;
}

class StoreAlarmChannelTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    absl::StatusOr<v1::Group> g = store().CreateGroup(MakeGroup("alarms"), 1);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
  }

  // A job of group_ whose alarms go to `channels`.
  v1::Job JobAlarming(const std::vector<std::string>& channels) {
    v1::Job j = MakeJob(group_.id(), "report");
    j.clear_child_job_ids();
    j.mutable_alarm()->add_emails("ops@example.com");
    for (const std::string& c : channels) j.mutable_alarm()->add_channels(c);
    return j;
  }
  Version CurrentVersion() {
    absl::StatusOr<Version> v = store().GetAlarmChannelsVersion();
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : Version{-1, -1, -1};
  }
};

TEST_P(StoreAlarmChannelTest, AChannelRoundTripsAsGivenAndItsNameIsUnique) {
  ASSERT_OK_AND_ASSIGN(created, store().CreateAlarmChannel(DingTalk("ops-ding"), 1500));
  EXPECT_GT(created.id(), 0);
  EXPECT_EQ(created.name(), "ops-ding");
  EXPECT_EQ(created.kind(), v1::DINGTALK);
  EXPECT_EQ(Ms(created.create_time()), 1500);
  EXPECT_EQ(Ms(created.update_time()), 1500);
  // The credentials are kept whole: only the API layer hides them.
  EXPECT_EQ(created.url(), "https://oapi.dingtalk.com/robot/send?access_token=abc123");
  EXPECT_EQ(created.secret(), "SECdeadbeef");
  EXPECT_EQ(created.template_(), "{{job_name}} failed: {{reason}}");
  EXPECT_TRUE(created.has_secret());
  ASSERT_OK_AND_ASSIGN(read, store().GetAlarmChannel("ops-ding"));
  EXPECT_EQ(read.SerializeAsString(), created.SerializeAsString());

  // Ids and times are the store's, whatever the caller sent.
  v1::AlarmChannel again = DingTalk("ops-ding");
  again.set_id(99);
  absl::StatusOr<v1::AlarmChannel> clash = store().CreateAlarmChannel(again, 1600);
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(clash.status().message(),
            "alarm_channel.name: an alarm channel named 'ops-ding' already exists");

  // has_secret is stored as given, too (the API layer sets it).
  v1::AlarmChannel telegram;
  telegram.set_name("a-telegram");
  telegram.set_kind(v1::TELEGRAM);
  telegram.set_secret("123456:ABC-token");
  telegram.set_chat_id("-1001234567890");
  telegram.set_id(99);
  telegram.mutable_create_time()->set_seconds(7);
  ASSERT_OK_AND_ASSIGN(tg, store().CreateAlarmChannel(telegram, 1700));
  EXPECT_NE(tg.id(), 99);
  EXPECT_NE(tg.id(), created.id());
  EXPECT_EQ(Ms(tg.create_time()), 1700);
  EXPECT_EQ(tg.url(), "");
  EXPECT_EQ(tg.secret(), "123456:ABC-token");
  EXPECT_EQ(tg.chat_id(), "-1001234567890");
  EXPECT_FALSE(tg.has_secret());
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("b-ding"), 1800).status());
  ASSERT_OK_AND_ASSIGN(listed, store().ListAlarmChannels());
  std::vector<std::string> names;
  for (const v1::AlarmChannel& c : listed) names.push_back(c.name());
  EXPECT_THAT(names, ElementsAre("a-telegram", "b-ding", "ops-ding"));
  EXPECT_EQ(listed[0].SerializeAsString(), tg.SerializeAsString());
  EXPECT_EQ(listed[2].SerializeAsString(), created.SerializeAsString());
}

TEST_P(StoreAlarmChannelTest, AMissingChannelIsNamed) {
  absl::StatusOr<v1::AlarmChannel> got = store().GetAlarmChannel("nope");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(got.status().message(), "alarm channel 'nope' does not exist");
  absl::StatusOr<v1::AlarmChannel> updated = store().UpdateAlarmChannel(DingTalk("nope"), 10);
  EXPECT_EQ(updated.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(updated.status().message(), "alarm channel 'nope' does not exist");
  const absl::Status deleted = store().DeleteAlarmChannel("nope");
  EXPECT_EQ(deleted.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(deleted.message(), "alarm channel 'nope' does not exist");
  ASSERT_OK_AND_ASSIGN(listed, store().ListAlarmChannels());
  EXPECT_TRUE(listed.empty());
}

TEST_P(StoreAlarmChannelTest, AnUpdateReplacesTheChannelAsGivenAndAlwaysMovesTheUpdateTimeOn) {
  ASSERT_OK_AND_ASSIGN(created, store().CreateAlarmChannel(DingTalk("ops"), 1000));
  v1::AlarmChannel edit;
  edit.set_name("ops");
  edit.set_kind(v1::FEISHU);
  edit.set_url("https://open.feishu.cn/open-apis/bot/v2/hook/xyz");
  edit.set_secret("feishu-secret");
  edit.set_has_secret(true);
  edit.set_id(99);  // Ignored, as are the times.
  edit.mutable_create_time()->set_seconds(5);
  ASSERT_OK_AND_ASSIGN(first, store().UpdateAlarmChannel(edit, 2000));
  EXPECT_EQ(first.id(), created.id());
  EXPECT_EQ(Ms(first.create_time()), 1000);
  EXPECT_EQ(Ms(first.update_time()), 2000);
  EXPECT_EQ(first.kind(), v1::FEISHU);
  EXPECT_EQ(first.url(), "https://open.feishu.cn/open-apis/bot/v2/hook/xyz");
  EXPECT_EQ(first.secret(), "feishu-secret");
  EXPECT_EQ(first.template_(), "");  // Replaced as given: nothing is merged.
  ASSERT_OK_AND_ASSIGN(read, store().GetAlarmChannel("ops"));
  EXPECT_EQ(read.SerializeAsString(), first.SerializeAsString());

  // An empty secret and url are stored as given (keeping the old ones is
  // the API layer's business).
  edit.clear_secret();
  edit.clear_url();
  edit.set_has_secret(false);
  // In the same millisecond, and with a clock that went back: still later.
  ASSERT_OK_AND_ASSIGN(second, store().UpdateAlarmChannel(edit, 2000));
  EXPECT_EQ(Ms(second.update_time()), 2001);
  EXPECT_EQ(second.secret(), "");
  EXPECT_EQ(second.url(), "");
  EXPECT_FALSE(second.has_secret());
  ASSERT_OK_AND_ASSIGN(third, store().UpdateAlarmChannel(edit, 1500));
  EXPECT_EQ(Ms(third.update_time()), 2002);
  EXPECT_EQ(third.id(), created.id());
  EXPECT_EQ(Ms(third.create_time()), 1000);

  // Later than any channel's, not only its own: another channel created or
  // updated in that millisecond comes after.
  ASSERT_OK_AND_ASSIGN(other, store().CreateAlarmChannel(DingTalk("other"), 2002));
  EXPECT_EQ(Ms(other.create_time()), 2002);
  EXPECT_EQ(Ms(other.update_time()), 2003);
  ASSERT_OK_AND_ASSIGN(fourth, store().UpdateAlarmChannel(edit, 2002));
  EXPECT_EQ(Ms(fourth.update_time()), 2004);
  // Later: the update time is now.
  ASSERT_OK_AND_ASSIGN(fifth, store().UpdateAlarmChannel(edit, 9000));
  EXPECT_EQ(Ms(fifth.update_time()), 9000);
}

TEST_P(StoreAlarmChannelTest, AChannelAJobNamesCannotBeDeleted) {
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("ops"), 100).status());
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("dev"), 100).status());
  ASSERT_OK_AND_ASSIGN(
      first, store().CreateJob(JobAlarming({"dev", "ops"}), v1::JOB_STATE_STOPPED, kNever, 10));
  ASSERT_OK_AND_ASSIGN(batch, store().CreateJobs({NewJob{JobAlarming({"ops"})}}, 10));
  ASSERT_EQ(batch.size(), 1u);
  const v1::Job second = batch[0];
  // A job naming neither, and one whose name only resembles it.
  ASSERT_OK(store().CreateJob(JobAlarming({}), v1::JOB_STATE_STOPPED, kNever, 10).status());
  ASSERT_OK(store().CreateJob(JobAlarming({"ops-2"}), v1::JOB_STATE_STOPPED, kNever, 10).status());

  // The job with the lowest id is named.
  absl::Status refused = store().DeleteAlarmChannel("ops");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("alarm channel 'ops' is named by job ", first.id()));
  v1::Job edit = first;
  edit.mutable_alarm()->clear_channels();
  edit.mutable_alarm()->add_channels("dev");
  ASSERT_OK(store().UpdateJob(edit, std::nullopt, 20).status());

  refused = store().DeleteAlarmChannel("ops");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("alarm channel 'ops' is named by job ", second.id()));
  edit = second;
  edit.clear_alarm();
  ASSERT_OK(store().UpdateJob(edit, int64_t{5000}, 20).status());
  ASSERT_OK(store().GetAlarmChannel("ops").status());  // Refusals left it in place.

  ASSERT_OK(store().DeleteAlarmChannel("ops"));
  EXPECT_EQ(store().GetAlarmChannel("ops").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store().DeleteAlarmChannel("ops").code(), absl::StatusCode::kNotFound);

  // A deleted job names nothing.
  refused = store().DeleteAlarmChannel("dev");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("alarm channel 'dev' is named by job ", first.id()));
  ASSERT_OK(store().DeleteJob(first.id(), false));
  ASSERT_OK(store().DeleteAlarmChannel("dev"));
  ASSERT_OK_AND_ASSIGN(listed, store().ListAlarmChannels());
  EXPECT_TRUE(listed.empty());
}

TEST_P(StoreAlarmChannelTest, TheVersionMovesWithEveryChange) {
  Version v = CurrentVersion();
  EXPECT_EQ(v, (Version{0, 0, 0}));
  auto changed = [&]() {
    const Version now = CurrentVersion();
    const bool moved = now != v;
    v = now;
    return moved;
  };
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("a"), 1000).status());
  EXPECT_TRUE(changed());
  EXPECT_EQ(v.count, 1);
  EXPECT_EQ(v.newest_update_ms, 1000);
  EXPECT_FALSE(changed());  // Reads change nothing.
  ASSERT_OK(store().UpdateAlarmChannel(DingTalk("a"), 1000).status());
  EXPECT_TRUE(changed());  // The same millisecond.
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("b"), 1000).status());
  EXPECT_TRUE(changed());
  EXPECT_EQ(v.count, 2);
  EXPECT_EQ(v.newest_update_ms, 1002);
  // Each channel edited once in one millisecond: the second still counts.
  ASSERT_OK(store().UpdateAlarmChannel(DingTalk("b"), 5000).status());
  EXPECT_TRUE(changed());
  ASSERT_OK(store().UpdateAlarmChannel(DingTalk("a"), 5000).status());
  EXPECT_TRUE(changed());
  EXPECT_EQ(v.count, 2);
  EXPECT_EQ(v.newest_update_ms, 5001);
  ASSERT_OK(store().DeleteAlarmChannel("a"));
  EXPECT_TRUE(changed());
  EXPECT_EQ(v.count, 1);
  EXPECT_EQ(v.newest_update_ms, 5000);
  // Deleted and made again at the same instant: a new id, so a new version.
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("c"), 6000).status());
  EXPECT_TRUE(changed());
  ASSERT_OK(store().DeleteAlarmChannel("c"));
  EXPECT_TRUE(changed());
  ASSERT_OK(store().CreateAlarmChannel(DingTalk("c"), 6000).status());
  EXPECT_TRUE(changed());
  // A refused delete changes nothing.
  ASSERT_OK(store().CreateJob(JobAlarming({"b"}), v1::JOB_STATE_STOPPED, kNever, 10).status());
  EXPECT_EQ(store().DeleteAlarmChannel("b").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(changed());
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreAlarmChannelTest, ::testing::Values("sqlite", "mysql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gnomon::store::testing
