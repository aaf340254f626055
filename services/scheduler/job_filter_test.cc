#include "services/scheduler/job_filter.h"

#include "gtest/gtest.h"

namespace gnomon::scheduler {
namespace {

v1::Job Bean(const std::string& name, const std::string& handler) {
  v1::Job j;
  j.set_name(name);
  j.mutable_bean()->set_handler(handler);
  j.set_author("Ada Lovelace");
  j.set_description("Nightly invoices for EU customers");
  j.set_state(v1::JOB_STATE_RUNNING);
  j.mutable_schedule()->mutable_cron()->set_expression("0 0 2 * * ?");
  return j;
}

TEST(JobFilterTest, NoFilterMatchesEveryJob) {
  JobFilter f{v1::ListJobsRequest()};
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(f.Matches(v1::Job()));
}

TEST(JobFilterTest, TextFiltersMatchASubstringIgnoringCase) {
  v1::ListJobsRequest req;
  req.set_name("INVOICE");
  req.set_handler("bill");
  req.set_author("lovelace");
  req.set_description("eu cust");
  JobFilter f(req);
  EXPECT_FALSE(f.empty());
  EXPECT_TRUE(f.Matches(Bean("nightly-invoice", "billing.run")));
  EXPECT_FALSE(f.Matches(Bean("nightly-report", "billing.run")));
  EXPECT_FALSE(f.Matches(Bean("nightly-invoice", "mail")));
}

TEST(JobFilterTest, AScriptJobsHandlerIsScript) {
  v1::ListJobsRequest req;
  req.set_handler("script");
  v1::Job script = Bean("clean", "");
  script.mutable_script()->set_source("echo hi");
  EXPECT_TRUE(JobFilter(req).Matches(script));
  EXPECT_FALSE(JobFilter(req).Matches(Bean("clean", "cleaner")));
}

TEST(JobFilterTest, ScheduleTypeAndStateMatchExactly) {
  v1::ListJobsRequest req;
  req.set_schedule_type(v1::SCHEDULE_TYPE_CRON);
  req.set_state(v1::JOB_STATE_RUNNING);
  v1::Job cron = Bean("a", "h");
  EXPECT_TRUE(JobFilter(req).Matches(cron));
  v1::Job stopped = cron;
  stopped.set_state(v1::JOB_STATE_STOPPED);
  EXPECT_FALSE(JobFilter(req).Matches(stopped));
  v1::Job manual = cron;
  manual.clear_schedule();
  EXPECT_FALSE(JobFilter(req).Matches(manual));
  req.set_schedule_type(v1::SCHEDULE_TYPE_NONE);
  req.clear_state();
  EXPECT_TRUE(JobFilter(req).Matches(manual));
  EXPECT_EQ(ScheduleTypeOf(manual.schedule()), v1::SCHEDULE_TYPE_NONE);
}

}  // namespace
}  // namespace gnomon::scheduler
