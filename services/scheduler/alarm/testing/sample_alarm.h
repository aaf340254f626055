// SampleAlarm: the alarm the channel tests and docs/alarms.md's doc test
// send — run 7 (a retry, attempt 2, first run 5) of job nightly-report (id
// 42) on 10.0.0.3:9999, handle code 500 "boom", scheduled
// 2026-01-02T03:04:05Z, ended 03:04:06.250Z, "retries exhausted".
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_SAMPLE_ALARM_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_SAMPLE_ALARM_H_

#include "services/scheduler/alarm/alarm.h"

namespace gnomon::scheduler::alarm::testing {

inline Alarm SampleAlarm() {
  Alarm a;
  a.job.set_id(42);
  a.job.set_name("nightly-report");
  a.job.set_description("nightly \"report\"");
  a.run.set_id(7);
  a.run.set_first_run_id(5);
  a.run.set_attempt(2);
  a.run.set_trigger_type(v1::TRIGGER_TYPE_RETRY);
  a.run.set_executor_address("10.0.0.3:9999");
  a.run.set_handle_code(500);
  a.run.set_handle_message("boom");
  a.run.mutable_scheduled_time()->set_seconds(1767323045);  // 2026-01-02T03:04:05Z
  a.run.mutable_end_time()->set_seconds(1767323046);
  a.run.mutable_end_time()->set_nanos(250'000'000);
  a.reason = "retries exhausted";
  return a;
}

}  // namespace gnomon::scheduler::alarm::testing

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_SAMPLE_ALARM_H_
