// JobFilter: the filters of a ListJobsRequest, applied to one job.
//
//   JobFilter f(request);
//   if (f.Matches(job)) page.push_back(job);
//
// Text filters match a case-insensitive substring (as XXL-JOB's job list
// does with LIKE '%x%'); a script job's handler is "script".
//
// Thread safety: immutable after construction.
#ifndef GNOMON_SERVICES_SCHEDULER_JOB_FILTER_H_
#define GNOMON_SERVICES_SCHEDULER_JOB_FILTER_H_

#include <string>

#include "gnomon/v1/admin.pb.h"

namespace gnomon::scheduler {

class JobFilter {
 public:
  explicit JobFilter(const v1::ListJobsRequest& req);
  // No filter is set: every job matches.
  bool empty() const;
  bool Matches(const v1::Job& job) const;

 private:
  std::string name_, handler_, author_, description_;  // Lower-case.
  v1::ScheduleType schedule_type_;
  v1::JobState state_;
};

v1::ScheduleType ScheduleTypeOf(const v1::Schedule& schedule);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_JOB_FILTER_H_
