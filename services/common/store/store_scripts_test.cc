// StoreTest cases for script versions: creating a script job stores version
// 1, each update that changes the script stores the next one with its author
// and remark in the same transaction, an unchanged script stores none, only
// the newest script_versions_kept stay, and a job's versions go with it.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::Job ScriptJob(int64_t group_id, const std::string& source, const std::string& remark) {
  v1::Job j;
  j.set_group_id(group_id);
  j.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
  j.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
  j.mutable_script()->set_source(source);
  j.mutable_script()->set_version(77);  // The store numbers versions itself.
  j.mutable_script()->set_remark(remark);
  return j;
}

std::vector<int64_t> Numbers(const std::vector<v1::ScriptVersion>& versions) {
  std::vector<int64_t> out;
  for (const v1::ScriptVersion& v : versions) out.push_back(v.version());
  return out;
}

TEST_P(StoreTest, ScriptEditsAreVersionedWithAuthorAndRemark) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("scripts"), 1));
  ASSERT_OK_AND_ASSIGN(job, store().CreateJob(ScriptJob(g.id(), "echo one", "first"),
                                              v1::JOB_STATE_STOPPED, kNever, 1000, "user:alice"));
  EXPECT_EQ(job.script().version(), 1);
  EXPECT_EQ(job.script().remark(), "");  // Never kept in the job.

  v1::Job edit = job;
  edit.mutable_script()->set_source("echo two");
  edit.mutable_script()->set_remark("second");
  ASSERT_OK_AND_ASSIGN(two, store().UpdateJob(edit, std::nullopt, 2000, "token:ci"));
  EXPECT_EQ(two.script().version(), 2);

  // Same script, other fields changed: no version, the number stays.
  v1::Job same = two;
  same.set_description("only the description");
  same.mutable_script()->set_version(0);
  same.mutable_script()->set_remark("ignored");
  ASSERT_OK_AND_ASSIGN(kept, store().UpdateJob(same, std::nullopt, 3000, "user:bob"));
  EXPECT_EQ(kept.script().version(), 2);

  v1::Job python = kept;
  python.mutable_script()->set_language(
      v1::SCRIPT_LANGUAGE_PYTHON);  // A language change is an edit.
  python.mutable_script()->clear_remark();
  ASSERT_OK_AND_ASSIGN(three, store().UpdateJob(python, std::nullopt, 4000, "user:bob"));
  EXPECT_EQ(three.script().version(), 3);

  ASSERT_OK_AND_ASSIGN(all, store().ListScriptVersions(job.id(), 0, 10));
  EXPECT_THAT(Numbers(all), ElementsAre(3, 2, 1));
  EXPECT_EQ(all[0].language(), v1::SCRIPT_LANGUAGE_PYTHON);
  EXPECT_EQ(all[0].author(), "user:bob");
  EXPECT_EQ(all[1].author(), "token:ci");
  EXPECT_EQ(all[1].remark(), "second");
  EXPECT_EQ(all[1].create_time().seconds(), 2);
  EXPECT_EQ(all[1].source(), "");       // Listed without the source...
  EXPECT_EQ(all[1].source_bytes(), 8);  // ...but with its size.
  ASSERT_OK_AND_ASSIGN(older, store().ListScriptVersions(job.id(), 3, 1));  // The next page.
  EXPECT_THAT(Numbers(older), ElementsAre(2));

  ASSERT_OK_AND_ASSIGN(first, store().GetScriptVersion(job.id(), 1));
  EXPECT_EQ(first.source(), "echo one");
  EXPECT_EQ(first.remark(), "first");
  EXPECT_EQ(first.author(), "user:alice");
  EXPECT_EQ(first.language(), v1::SCRIPT_LANGUAGE_SHELL);
  absl::StatusOr<v1::ScriptVersion> missing = store().GetScriptVersion(job.id(), 9);
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("version 9"));

  ASSERT_OK(store().DeleteJob(job.id(), /*purge_runs=*/false));  // Versions go even when runs stay.
  ASSERT_OK_AND_ASSIGN(gone, store().ListScriptVersions(job.id(), 0, 10));
  EXPECT_THAT(gone, IsEmpty());
}

TEST_P(StoreTest, OnlyTheNewestScriptVersionsAreKept) {
  options_.script_versions_kept = 3;
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("scripts"), 1));
  ASSERT_OK_AND_ASSIGN(
      job, store().CreateJob(ScriptJob(g.id(), "v1", ""), v1::JOB_STATE_STOPPED, kNever, 1));
  for (int v = 2; v <= 5; ++v) {
    v1::Job edit = job;
    edit.mutable_script()->set_source(absl::StrCat("v", v));
    ASSERT_OK_AND_ASSIGN(updated, store().UpdateJob(edit, std::nullopt, v));
    EXPECT_EQ(updated.script().version(), v);
  }
  ASSERT_OK_AND_ASSIGN(kept, store().ListScriptVersions(job.id(), 0, 10));
  EXPECT_THAT(Numbers(kept), ElementsAre(5, 4, 3));
  EXPECT_TRUE(absl::IsNotFound(store().GetScriptVersion(job.id(), 2).status()));
}

TEST_P(StoreTest, BatchCreatedScriptJobsGetVersionOneAndBeanJobsNone) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("scripts"), 1));
  std::vector<NewJob> jobs = {{ScriptJob(g.id(), "echo a", "batch")}, {MakeJob(g.id(), "bean")}};
  ASSERT_OK_AND_ASSIGN(created, store().CreateJobs(jobs, 5, "user:carol"));
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0].script().version(), 1);
  ASSERT_OK_AND_ASSIGN(v1, store().GetScriptVersion(created[0].id(), 1));
  EXPECT_EQ(v1.author(), "user:carol");
  EXPECT_EQ(v1.remark(), "batch");
  ASSERT_OK_AND_ASSIGN(none, store().ListScriptVersions(created[1].id(), 0, 10));
  EXPECT_THAT(none, IsEmpty());

  // A bean job made a script job: its first script is version 1.
  v1::Job to_script = created[1];
  *to_script.mutable_script() = ScriptJob(g.id(), "echo b", "").script();
  ASSERT_OK_AND_ASSIGN(converted, store().UpdateJob(to_script, std::nullopt, 6));
  EXPECT_EQ(converted.script().version(), 1);
}

}  // namespace
}  // namespace gnomon::store::testing
