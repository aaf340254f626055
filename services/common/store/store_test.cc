// StoreTest (groups, jobs, registry, tokens, leases, migrations), run against
// every backend; runs and reports are in store_runs_test.cc.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_P(StoreTest, GroupLifecycle) {
  ASSERT_OK_AND_ASSIGN(created, store().CreateGroup(MakeGroup("billing"), 1000));
  EXPECT_GT(created.id(), 0);
  EXPECT_EQ(created.create_time().seconds(), 1);
  EXPECT_EQ(created.access_token(), "token-billing");

  ASSERT_OK_AND_ASSIGN(got, store().GetGroup(created.id()));
  EXPECT_TRUE(MessageDifferencer::Equals(got, created)) << got.DebugString();
  ASSERT_OK_AND_ASSIGN(by_app, store().GetGroupByApp("billing"));
  EXPECT_EQ(by_app.id(), created.id());
  EXPECT_THAT(by_app.manual().addresses(), ElementsAre("10.0.0.1:9999", "10.0.0.2:9999"));

  EXPECT_THAT(store().CreateGroup(MakeGroup("billing"), 2000),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(store().GetGroup(created.id() + 100), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(store().GetGroupByApp("Billing"), StatusIs(absl::StatusCode::kNotFound));

  v1::Group update = created;
  update.set_title("New title");
  update.mutable_auto_registration();
  update.set_access_token("rotated");
  update.set_previous_access_token("token-billing");
  update.mutable_previous_token_expire_time()->set_seconds(3600);
  ASSERT_OK_AND_ASSIGN(updated, store().UpdateGroup(update, 5000));
  EXPECT_EQ(updated.title(), "New title");
  EXPECT_TRUE(updated.has_auto_registration());
  EXPECT_EQ(updated.access_token(), "rotated");
  ASSERT_OK_AND_ASSIGN(reread, store().GetGroupByApp("billing"));
  EXPECT_EQ(reread.previous_access_token(), "token-billing");
  EXPECT_EQ(reread.previous_token_expire_time().seconds(), 3600);
  EXPECT_EQ(updated.create_time().seconds(), 1);
  EXPECT_EQ(updated.update_time().seconds(), 5);
  update.set_id(created.id() + 100);
  EXPECT_THAT(store().UpdateGroup(update, 6000), StatusIs(absl::StatusCode::kNotFound));

  ASSERT_OK_AND_ASSIGN(second, store().CreateGroup(MakeGroup("search"), 2000));
  ASSERT_OK_AND_ASSIGN(all, store().ListGroups());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].app_name(), "billing");
  EXPECT_EQ(all[1].id(), second.id());

  ASSERT_OK(store().DeleteGroup(second.id()));
  EXPECT_THAT(store().DeleteGroup(second.id()), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(left, store().ListGroups());
  EXPECT_EQ(left.size(), 1u);
}

TEST_P(StoreTest, DeleteGroupRefusedWhileJobsUseIt) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1000));
  ASSERT_OK_AND_ASSIGN(j1,
                       store().CreateJob(MakeJob(g.id(), "a"), v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(j2,
                       store().CreateJob(MakeJob(g.id(), "b"), v1::JOB_STATE_STOPPED, kNever, 1));
  absl::Status s = store().DeleteGroup(g.id());
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kFailedPrecondition,
                          absl::StrCat("group ", g.id(), " is used by 2 jobs")));
  ASSERT_OK(store().DeleteJob(j1.id(), false));
  ASSERT_OK(store().DeleteJob(j2.id(), false));
  ASSERT_OK(store().DeleteGroup(g.id()));
}

TEST_P(StoreTest, JobLifecycle) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1000));
  v1::Job spec = MakeJob(g.id(), "report");
  spec.set_id(999);  // Ignored.
  ASSERT_OK_AND_ASSIGN(job, store().CreateJob(spec, v1::JOB_STATE_RUNNING, 60000, 2000));
  EXPECT_NE(job.id(), 999);
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(job.next_fire_time().seconds(), 60);
  EXPECT_EQ(job.create_time().seconds(), 2);
  EXPECT_EQ(job.bean().handler(), "report");
  EXPECT_EQ(job.schedule().cron().time_zone(), "Europe/Berlin");
  EXPECT_THAT(job.child_job_ids(), ElementsAre(42));

  ASSERT_OK_AND_ASSIGN(got, store().GetJob(job.id()));
  EXPECT_TRUE(MessageDifferencer::Equals(got, job)) << got.DebugString();

  absl::Status missing_group =
      store().CreateJob(MakeJob(9999, "x"), v1::JOB_STATE_STOPPED, kNever, 1).status();
  EXPECT_THAT(missing_group,
              StatusIs(absl::StatusCode::kNotFound, "job.group_id: group 9999 does not exist"));

  // Update keeps state and cursor unless a cursor is given.
  v1::Job edit = got;
  edit.set_description("edited");
  edit.set_state(v1::JOB_STATE_STOPPED);  // Output only: ignored.
  ASSERT_OK_AND_ASSIGN(edited, store().UpdateJob(edit, std::nullopt, 3000));
  EXPECT_EQ(edited.description(), "edited");
  EXPECT_EQ(edited.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(edited.next_fire_time().seconds(), 60);
  EXPECT_EQ(edited.update_time().seconds(), 3);
  ASSERT_OK_AND_ASSIGN(recursored, store().UpdateJob(edit, 120000, 4000));
  EXPECT_EQ(recursored.next_fire_time().seconds(), 120);
  edit.set_group_id(9999);
  EXPECT_THAT(store().UpdateJob(edit, std::nullopt, 5000), StatusIs(absl::StatusCode::kNotFound));
  edit.set_group_id(g.id());
  edit.set_id(job.id() + 100);
  EXPECT_THAT(store().UpdateJob(edit, std::nullopt, 5000), StatusIs(absl::StatusCode::kNotFound));

  ASSERT_OK_AND_ASSIGN(stopped, store().SetJobState(job.id(), v1::JOB_STATE_STOPPED, kNever, 6000));
  EXPECT_EQ(stopped.state(), v1::JOB_STATE_STOPPED);
  EXPECT_FALSE(stopped.has_next_fire_time());
  EXPECT_THAT(store().SetJobState(job.id() + 100, v1::JOB_STATE_RUNNING, 1, 1),
              StatusIs(absl::StatusCode::kNotFound));

  ASSERT_OK(store().DeleteJob(job.id(), false));
  EXPECT_THAT(store().GetJob(job.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(store().DeleteJob(job.id(), false), StatusIs(absl::StatusCode::kNotFound));
}

// A deleted job leaves its parents' child lists, so the parents stay valid
// (an update of a parent is not refused for a child that no longer exists).
TEST_P(StoreTest, DeletingAJobTakesItOutOfItsParentsChildLists) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1));
  ASSERT_OK_AND_ASSIGN(child,
                       store().CreateJob(MakeJob(g.id(), "c"), v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(other,
                       store().CreateJob(MakeJob(g.id(), "o"), v1::JOB_STATE_STOPPED, kNever, 1));
  v1::Job p = MakeJob(g.id(), "p");
  p.clear_child_job_ids();
  p.add_child_job_ids(child.id());
  p.add_child_job_ids(other.id());
  ASSERT_OK_AND_ASSIGN(parent, store().CreateJob(p, v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK(store().DeleteJob(child.id(), false));
  ASSERT_OK_AND_ASSIGN(after, store().GetJob(parent.id()));
  EXPECT_THAT(after.child_job_ids(), ElementsAre(other.id()));
  EXPECT_EQ(after.bean().handler(), "p");
}

TEST_P(StoreTest, ListJobsPagesByIdAndFiltersByGroup) {
  ASSERT_OK_AND_ASSIGN(a, store().CreateGroup(MakeGroup("a"), 1));
  ASSERT_OK_AND_ASSIGN(b, store().CreateGroup(MakeGroup("b"), 1));
  std::vector<int64_t> in_a;
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(j, store().CreateJob(MakeJob(i % 2 ? b.id() : a.id(), "h"),
                                              v1::JOB_STATE_STOPPED, kNever, 1));
    if (i % 2 == 0) in_a.push_back(j.id());
  }
  ASSERT_OK_AND_ASSIGN(page1, store().ListJobs({}, 0, 3));
  ASSERT_EQ(page1.size(), 3u);
  EXPECT_LT(page1[0].id(), page1[1].id());
  ASSERT_OK_AND_ASSIGN(page2, store().ListJobs({}, page1.back().id(), 3));
  EXPECT_EQ(page2.size(), 2u);
  ASSERT_OK_AND_ASSIGN(only_a, store().ListJobs({a.id()}, 0, 100));
  std::vector<int64_t> ids;
  for (const v1::Job& j : only_a) ids.push_back(j.id());
  EXPECT_EQ(ids, in_a);
  // Any of several groups (a scoped caller's grants); a group with no jobs adds none.
  ASSERT_OK_AND_ASSIGN(both, store().ListJobs({a.id(), b.id(), 999}, 0, 100));
  EXPECT_EQ(both.size(), 5u);
}

TEST_P(StoreTest, CountJobsByGroupAndState) {
  ASSERT_OK_AND_ASSIGN(a, store().CreateGroup(MakeGroup("a"), 1));
  ASSERT_OK_AND_ASSIGN(b, store().CreateGroup(MakeGroup("b"), 1));
  ASSERT_TRUE(store().CreateGroup(MakeGroup("empty"), 1).ok());  // No jobs: no row.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store().CreateJob(MakeJob(a.id(), "h"), v1::JOB_STATE_RUNNING, 5000, 1).ok());
  }
  ASSERT_TRUE(store().CreateJob(MakeJob(a.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1).ok());
  ASSERT_TRUE(store().CreateJob(MakeJob(b.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1).ok());
  ASSERT_OK_AND_ASSIGN(counts, store().CountJobs());
  std::map<std::pair<std::string, v1::JobState>, int64_t> got;
  for (const JobCount& c : counts) got[{c.app_name, c.state}] = c.jobs;
  const std::map<std::pair<std::string, v1::JobState>, int64_t> want = {
      {{"a", v1::JOB_STATE_RUNNING}, 3},
      {{"a", v1::JOB_STATE_STOPPED}, 1},
      {{"b", v1::JOB_STATE_STOPPED}, 1}};
  EXPECT_EQ(got, want);
}

TEST_P(StoreTest, CreateJobsStoresAllInOrderOrNone) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("batch"), 1));
  std::vector<NewJob> jobs(3);
  for (int i = 0; i < 3; ++i) jobs[i].job = MakeJob(g.id(), "h" + std::to_string(i));
  jobs[1].state = v1::JOB_STATE_RUNNING;
  jobs[1].next_fire_ms = 5000;
  std::vector<NewJob> with_missing_group = jobs;
  with_missing_group[2].job.set_group_id(g.id() + 100);
  EXPECT_TRUE(absl::IsNotFound(store().CreateJobs(with_missing_group, 2).status()));
  ASSERT_OK_AND_ASSIGN(none, store().ListJobs({}, 0, 100));
  EXPECT_TRUE(none.empty());
  ASSERT_OK_AND_ASSIGN(created, store().CreateJobs(jobs, 2));
  ASSERT_EQ(created.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(created[i].bean().handler(), "h" + std::to_string(i));
  EXPECT_LT(created[0].id(), created[1].id());
  EXPECT_EQ(created[1].state(), v1::JOB_STATE_RUNNING);
  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(5000, 0, {}));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].job.id(), created[1].id());
}

TEST_P(StoreTest, GetJobsReadsManyInOneCallAndLeavesOutMissingOnes) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("many"), 1));
  std::vector<int64_t> ids;
  for (int i = 0; i < 700; ++i) {  // more than one statement's worth
    ASSERT_OK_AND_ASSIGN(j, store().CreateJob(MakeJob(g.id(), "h" + std::to_string(i)),
                                              v1::JOB_STATE_STOPPED, kNever, 1));
    ids.push_back(j.id());
  }
  std::vector<int64_t> asked = ids;
  asked.push_back(ids.back() + 1000);  // missing
  asked.push_back(ids.front());        // asked twice
  const uint64_t before = store().executed_statements();
  ASSERT_OK_AND_ASSIGN(jobs, store().GetJobs(asked));
  EXPECT_LE(store().executed_statements() - before, 3u);
  ASSERT_EQ(jobs.size(), ids.size());
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < ids.size(); ++i) index[ids[i]] = i;
  std::vector<int64_t> got;
  for (const v1::Job& j : jobs) {
    got.push_back(j.id());
    EXPECT_EQ(j.bean().handler(), "h" + std::to_string(index[j.id()]));
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, ids);
  ASSERT_OK_AND_ASSIGN(none, store().GetJobs({}));
  EXPECT_TRUE(none.empty());
}

TEST_P(StoreTest, DueJobsAndCompareAndSetAdvance) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1));
  ASSERT_OK_AND_ASSIGN(late,
                       store().CreateJob(MakeJob(g.id(), "l"), v1::JOB_STATE_RUNNING, 5000, 1));
  ASSERT_OK_AND_ASSIGN(early,
                       store().CreateJob(MakeJob(g.id(), "e"), v1::JOB_STATE_RUNNING, 1000, 1));
  ASSERT_OK_AND_ASSIGN(future,
                       store().CreateJob(MakeJob(g.id(), "f"), v1::JOB_STATE_RUNNING, 90000, 1));
  ASSERT_OK_AND_ASSIGN(stopped,
                       store().CreateJob(MakeJob(g.id(), "s"), v1::JOB_STATE_STOPPED, 1000, 1));
  ASSERT_OK_AND_ASSIGN(never,
                       store().CreateJob(MakeJob(g.id(), "n"), v1::JOB_STATE_RUNNING, kNever, 1));

  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(10000, 10, {}));
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].job.id(), early.id());
  EXPECT_EQ(due[0].next_fire_ms, 1000);
  EXPECT_EQ(due[0].last_fire_ms, 0);
  EXPECT_EQ(due[0].job.bean().handler(), "e");
  EXPECT_EQ(due[1].job.id(), late.id());
  ASSERT_OK_AND_ASSIGN(one, store().ListDueJobs(10000, 1, {}));
  EXPECT_EQ(one.size(), 1u);
  // Only the partitions asked for (a replica reads the jobs it schedules).
  ASSERT_OK_AND_ASSIGN(mine, store().ListDueJobs(10000, 10, {PartitionOf(late.id())}));
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].job.id(), late.id());
  ASSERT_OK_AND_ASSIGN(
      both, store().ListDueJobs(10000, 10, {PartitionOf(early.id()), PartitionOf(late.id())}));
  EXPECT_EQ(both.size(), 2u);

  ASSERT_OK_AND_ASSIGN(applied, store().AdvanceJobs({
                                    {early.id(), 1000, 2000, 1000},      // applies
                                    {late.id(), 4000, 6000, 4000},       // stale expectation
                                    {stopped.id(), 1000, 2000, 1000},    // not running
                                    {future.id(), 90000, 90000, 90000},  // same values: applies
                                }));
  EXPECT_THAT(applied, ElementsAre(true, false, false, true));
  // A second replica applying the same advance loses the race.
  ASSERT_OK_AND_ASSIGN(again, store().AdvanceJobs({{early.id(), 1000, 2000, 1000}}));
  EXPECT_THAT(again, ElementsAre(false));

  ASSERT_OK_AND_ASSIGN(due2, store().ListDueJobs(10000, 10, {}));
  ASSERT_EQ(due2.size(), 2u);
  EXPECT_EQ(due2[0].job.id(), early.id());
  EXPECT_EQ(due2[0].next_fire_ms, 2000);
  EXPECT_EQ(due2[0].last_fire_ms, 1000);
  EXPECT_EQ(due2[0].job.next_fire_time().seconds(), 2);
  (void)never;
}

TEST_P(StoreTest, ExecutorRegistry) {
  v1::ExecutorInfo info;
  info.set_app_name("app");
  info.set_address("10.0.0.1:9999");
  info.add_handlers("report");
  info.set_capacity(8);
  (*info.mutable_labels())["zone"] = "a";
  ASSERT_OK(store().UpsertExecutor(info, 1000, 11));
  info.set_running_runs(3);
  ASSERT_OK(store().UpsertExecutor(info, 2000, 11));  // A beat: keeps the register time.
  v1::ExecutorInfo other = info;
  other.set_address("10.0.0.2:9999");
  ASSERT_OK(store().UpsertExecutor(other, 500, 12));

  ASSERT_OK_AND_ASSIGN(all, store().ListExecutors());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].address(), "10.0.0.1:9999");
  EXPECT_EQ(all[0].running_runs(), 3u);
  EXPECT_EQ(all[0].register_time().seconds(), 1);
  EXPECT_EQ(all[0].last_beat_time().seconds(), 2);
  EXPECT_EQ(all[0].labels().at("zone"), "a");

  ASSERT_OK_AND_ASSIGN(pruned, store().PruneExecutors(1000));
  EXPECT_EQ(pruned, 1);
  // A stale session's removal leaves a newer registration alone.
  EXPECT_THAT(store().RemoveExecutor("app", "10.0.0.1:9999", 999, 11),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(store().RemoveExecutor("app", "10.0.0.1:9999", 1000, 11));
  EXPECT_THAT(store().RemoveExecutor("app", "10.0.0.1:9999", 1000, 11),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(none, store().ListExecutors());
  EXPECT_TRUE(none.empty());
}

// Two registry replicas register the same executor in the same millisecond:
// the row is the second one's, and the first one's removal leaves it (the
// registration id tells them apart where the register time cannot).
TEST_P(StoreTest, ExecutorRowIsRemovedOnlyByTheRegistrationThatWroteIt) {
  v1::ExecutorInfo info;
  info.set_app_name("app");
  info.set_address("10.0.0.1:9999");
  info.mutable_register_time()->set_seconds(1);  // 1000 ms.
  info.set_registry_replica("a");
  ASSERT_OK(store().UpsertExecutor(info, 1000, /*registration_id=*/21));
  info.set_registry_replica("b");
  ASSERT_OK(store().UpsertExecutor(info, 1000, /*registration_id=*/22));

  EXPECT_THAT(store().RemoveExecutor("app", "10.0.0.1:9999", 1000, 21),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(rows, store().ListExecutors());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].registry_replica(), "b");

  // A beat without a register time keeps the registration: only b removes it.
  info.clear_register_time();
  ASSERT_OK(store().UpsertExecutor(info, 1500, /*registration_id=*/21));
  EXPECT_THAT(store().RemoveExecutor("app", "10.0.0.1:9999", 1000, 21),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(store().RemoveExecutor("app", "10.0.0.1:9999", 1000, 22));
  ASSERT_OK_AND_ASSIGN(none, store().ListExecutors());
  EXPECT_TRUE(none.empty());
}

TEST_P(StoreTest, AdminTokens) {
  ASSERT_OK_AND_ASSIGN(any_before, store().HasAdminTokens());
  EXPECT_FALSE(any_before);
  const std::string digest(64, 'a');
  ASSERT_OK(store().CreateAdminToken("ci", digest, 1000));
  ASSERT_OK_AND_ASSIGN(any_after, store().HasAdminTokens());
  EXPECT_TRUE(any_after);
  EXPECT_THAT(store().CreateAdminToken("ci", std::string(64, 'b'), 1000),
              StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(found, store().FindAdminToken(digest));
  EXPECT_EQ(found.name(), "ci");
  EXPECT_EQ(found.fingerprint(), digest.substr(0, 16));
  EXPECT_FALSE(found.has_expire_time() || found.has_revoke_time());
  EXPECT_THAT(store().FindAdminToken(std::string(64, 'c')), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(store().CreateAdminToken("temp", std::string(64, 'd'), 2000, /*expire_ms=*/9000));
  ASSERT_OK_AND_ASSIGN(revoked, store().RevokeAdminToken("ci", 5000));
  EXPECT_EQ(revoked.revoke_time().seconds(), 5);
  ASSERT_OK_AND_ASSIGN(again, store().RevokeAdminToken("ci", 7000));  // Stays revoked when it was.
  EXPECT_EQ(again.revoke_time().seconds(), 5);
  EXPECT_THAT(store().RevokeAdminToken("nobody", 7000), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(all, store().ListAdminTokens());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name(), "ci");
  EXPECT_EQ(all[1].name(), "temp");
  EXPECT_EQ(all[1].expire_time().seconds(), 9);
}

std::vector<std::string> HeldNames(const Leases& l) {
  std::vector<std::string> names;
  for (const Lease& x : l.leases) names.push_back(x.name);
  return names;
}

TEST_P(StoreTest, LeasesAreTakenRenewedAndExcludeOtherHolders) {
  ASSERT_OK_AND_ASSIGN(a1, store().AcquireLeases({"p/1", "p/2"}, "A#1", 60000));
  EXPECT_THAT(HeldNames(a1), ElementsAre("p/1", "p/2"));
  EXPECT_EQ(a1.leases[0].epoch, 1);
  EXPECT_EQ(a1.leases[0].holder, "A#1");
  EXPECT_GE(a1.leases[0].expires_ms, a1.now_ms + 60000);
  EXPECT_GT(a1.now_ms, 1700000000000);  // The store's clock, unix ms.

  // B gets only what A does not hold.
  ASSERT_OK_AND_ASSIGN(b1, store().AcquireLeases({"p/2", "p/3"}, "B#1", 60000));
  EXPECT_THAT(HeldNames(b1), ElementsAre("p/3"));

  // Renewal keeps the epoch.
  ASSERT_OK_AND_ASSIGN(a2, store().AcquireLeases({"p/1", "p/2"}, "A#1", 60000));
  EXPECT_EQ(a2.leases[0].epoch, 1);
  EXPECT_GE(a2.leases[0].expires_ms, a1.leases[0].expires_ms);

  // Released leases are free for B, with a new epoch; someone else's release is a no-op.
  ASSERT_OK(store().ReleaseLeases({"p/3"}, "A#1"));
  ASSERT_OK(store().ReleaseLeases({"p/2"}, "A#1"));
  ASSERT_OK_AND_ASSIGN(b2, store().AcquireLeases({"p/2", "p/3"}, "B#1", 60000));
  EXPECT_THAT(HeldNames(b2), ElementsAre("p/2", "p/3"));
  EXPECT_EQ(b2.leases[0].epoch, 2);

  ASSERT_OK_AND_ASSIGN(all, store().ListLeases("p/"));
  ASSERT_EQ(all.leases.size(), 3u);
  EXPECT_EQ(all.leases[0].holder, "A#1");
  EXPECT_EQ(all.leases[1].holder, "B#1");
  EXPECT_EQ(all.leases[2].holder, "B#1");
  ASSERT_OK_AND_ASSIGN(none, store().ListLeases("q/"));
  EXPECT_TRUE(none.leases.empty());
  EXPECT_THAT(store().ListLeases("p%"), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Pruning presence rows (PartitionLease deletes those of replicas long
// gone): a lease's age as expired counts from its release or expiry.
TEST_P(StoreTest, OnlyLeasesExpiredBeforeTheGivenInstantAreDeleted) {
  ASSERT_OK_AND_ASSIGN(held, store().AcquireLeases({"r/live", "r/gone"}, "A#1", 60000));
  ASSERT_OK(store().ReleaseLeases({"r/gone"}, "A#1"));
  ASSERT_OK_AND_ASSIGN(released, store().ListLeases("r/gone"));
  ASSERT_EQ(released.leases.size(), 1u);
  const Lease& gone = released.leases[0];
  EXPECT_EQ(gone.holder, "");
  EXPECT_EQ(gone.epoch, 1);  // Kept.
  // Expired from its release on, by the store's clock.
  EXPECT_GE(gone.expires_ms, held.now_ms);
  EXPECT_LE(gone.expires_ms, released.now_ms);
  // Not expired since before the instant yet: kept.
  ASSERT_OK(store().DeleteExpiredLeases({"r/live", "r/gone"}, gone.expires_ms));
  ASSERT_OK_AND_ASSIGN(both, store().ListLeases("r/"));
  EXPECT_EQ(both.leases.size(), 2u);
  ASSERT_OK(store().DeleteExpiredLeases({"r/live", "r/gone"}, gone.expires_ms + 1));
  ASSERT_OK_AND_ASSIGN(left, store().ListLeases("r/"));
  ASSERT_EQ(left.leases.size(), 1u);
  EXPECT_EQ(left.leases[0].name, "r/live");  // Live: kept whatever the instant.
  EXPECT_EQ(left.leases[0].holder, "A#1");
}

TEST_P(StoreTest, ALeaseTakenAgainBeforeItIsDeletedStays) {
  ASSERT_OK(store().AcquireLeases({"r/pod"}, "pod#1", 60000).status());
  ASSERT_OK(store().ReleaseLeases({"r/pod"}, "pod#1"));
  ASSERT_OK_AND_ASSIGN(listed, store().ListLeases("r/"));                // What a pruner read...
  ASSERT_OK(store().AcquireLeases({"r/pod"}, "pod#2", 60000).status());  // ...then.
  ASSERT_OK(store().DeleteExpiredLeases({"r/pod"}, listed.now_ms + 1));
  ASSERT_OK_AND_ASSIGN(left, store().ListLeases("r/"));
  ASSERT_EQ(left.leases.size(), 1u);
  EXPECT_EQ(left.leases[0].holder, "pod#2");
  EXPECT_EQ(left.leases[0].epoch, 2);
}

TEST_P(StoreTest, ARestartedHolderTakesOverItsPredecessorsLeasesAtOnce) {
  ASSERT_OK_AND_ASSIGN(old, store().AcquireLeases({"p/7"}, "host-1:7070#aaa", 60000));
  ASSERT_OK_AND_ASSIGN(other, store().AcquireLeases({"p/7"}, "host-2:7070#bbb", 60000));
  EXPECT_TRUE(other.leases.empty());
  ASSERT_OK_AND_ASSIGN(restarted, store().AcquireLeases({"p/7"}, "host-1:7070#ccc", 60000));
  ASSERT_EQ(restarted.leases.size(), 1u);
  EXPECT_EQ(restarted.leases[0].holder, "host-1:7070#ccc");
  EXPECT_EQ(restarted.leases[0].epoch, old.leases[0].epoch + 1);  // Fences the predecessor.
}

TEST_P(StoreTest, AnExpiredLeaseGoesToTheNextHolderWithAHigherEpoch) {
  ASSERT_OK_AND_ASSIGN(a, store().AcquireLeases({"p/9"}, "A#1", 100));
  ASSERT_EQ(a.leases.size(), 1u);
  // Waits for the store's clock to pass the expiry (a lease's whole point).
  Leases b;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (b.leases.empty() && absl::Now() < deadline) {
    ASSERT_OK_AND_ASSIGN(got, store().AcquireLeases({"p/9"}, "B#1", 60000));
    b = got;
    if (b.leases.empty()) absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(b.leases.size(), 1u);
  EXPECT_GE(b.now_ms, a.leases[0].expires_ms);
  EXPECT_EQ(b.leases[0].epoch, a.leases[0].epoch + 1);
}

TEST_P(StoreTest, AuditEntriesAreListedNewestFirstByObjectAndExpireByAge) {
  auto entry = [](int64_t ms, const std::string& object, const std::string& method) {
    v1::AuditEntry e;
    e.mutable_time()->set_seconds(ms / 1000);
    e.set_actor("admin:0123456789abcdef");
    e.set_method(method);
    e.set_object(object);
    e.set_before_json("{}");
    e.set_after_json(R"({"id":"12"})");
    return e;
  };
  ASSERT_OK(store().AppendAudit(entry(1000, "job/12", "CreateJob")));
  ASSERT_OK(store().AppendAudit(entry(2000, "group/3", "UpdateGroup")));
  ASSERT_OK(store().AppendAudit(entry(3000, "job/12", "StopJob")));
  ASSERT_OK_AND_ASSIGN(all, store().ListAudit("", 0, 10));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].method(), "StopJob");
  EXPECT_EQ(all[2].method(), "CreateJob");
  EXPECT_EQ(all[2].actor(), "admin:0123456789abcdef");
  EXPECT_EQ(all[2].after_json(), R"({"id":"12"})");
  EXPECT_GT(all[0].id(), all[1].id());
  ASSERT_OK_AND_ASSIGN(job, store().ListAudit("job/12", 0, 10));
  ASSERT_EQ(job.size(), 2u);
  ASSERT_OK_AND_ASSIGN(older, store().ListAudit("job/12", job[0].id(), 10));  // The next page.
  ASSERT_EQ(older.size(), 1u);
  EXPECT_EQ(older[0].method(), "CreateJob");
  ASSERT_OK_AND_ASSIGN(deleted, store().DeleteAuditBefore(2500, 1));
  EXPECT_EQ(deleted, 1);
  ASSERT_OK_AND_ASSIGN(deleted_more, store().DeleteAuditBefore(2500, 10));
  EXPECT_EQ(deleted_more, 1);
  ASSERT_OK_AND_ASSIGN(left, store().ListAudit("", 0, 10));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].method(), "StopJob");
}

TEST_P(StoreTest, MigrationsAreRecordedOnceAndReopenIsANoop) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("kept"), 1));
  const std::vector<int64_t> first = AppliedMigrations();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.front(), 1);
  Reopen();
  Reopen();
  EXPECT_EQ(AppliedMigrations(), first);
  ASSERT_OK_AND_ASSIGN(kept, store().GetGroupByApp("kept"));
  EXPECT_EQ(kept.id(), g.id());
}

TEST_P(StoreTest, ConcurrentOpenersApplyMigrationsOnce) {
  store_.reset();
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(4);
  std::vector<std::unique_ptr<Store>> stores(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url(), options_);
      results[i] = s.status();
      if (s.ok()) stores[i] = *std::move(s);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  // Each version recorded exactly once (schema_migrations.version is a key,
  // so a double apply would have failed one opener).
  std::vector<int64_t> applied = AppliedMigrations();
  ASSERT_FALSE(applied.empty());
  for (size_t i = 1; i < applied.size(); ++i) EXPECT_LT(applied[i - 1], applied[i]);
  Reopen();
}

// A port that is bound (so nobody else takes it) but not listening.
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ADD_FAILURE() << "bind: " << std::strerror(errno);
    }
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~ClosedPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(StoreOpenTest, MysqlServerNotListeningIsUnavailable) {
  ClosedPort port;
  ASSERT_GT(port.port(), 0);
  StoreOptions options;
  options.timeout_seconds = 2;
  absl::StatusOr<std::unique_ptr<Store>> s =
      OpenStore(absl::StrCat("mysql://root:pw@127.0.0.1:", port.port(), "/gnomon"), options);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable));
}

TEST(StoreOpenTest, BadUrlIsInvalidArgument) {
  absl::StatusOr<std::unique_ptr<Store>> s = OpenStore("foo://x", StoreOptions{});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown scheme 'foo'")));
}

TEST(StoreOpenTest, SqliteInDirectoryThatDoesNotExistFails) {
  absl::StatusOr<std::unique_ptr<Store>> s =
      OpenStore("sqlite:/nonexistent-gnomon-dir/x/gnomon.db", StoreOptions{});
  EXPECT_FALSE(s.ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "mysql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace gnomon::store::testing
