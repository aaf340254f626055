#include "services/scheduler/job_filter.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace gnomon::scheduler {
namespace {

// Whether `lower_needle` (already lower-case) is in `text`, ignoring case.
bool Has(const std::string& text, const std::string& lower_needle) {
  return lower_needle.empty() || absl::StrContains(absl::AsciiStrToLower(text), lower_needle);
}

}  // namespace

v1::ScheduleType ScheduleTypeOf(const v1::Schedule& schedule) {
  switch (schedule.kind_case()) {
    case v1::Schedule::kCron:
      return v1::SCHEDULE_TYPE_CRON;
    case v1::Schedule::kFixRate:
      return v1::SCHEDULE_TYPE_FIX_RATE;
    case v1::Schedule::kFixDelay:
      return v1::SCHEDULE_TYPE_FIX_DELAY;
    default:
      return v1::SCHEDULE_TYPE_NONE;
  }
}

JobFilter::JobFilter(const v1::ListJobsRequest& req)
    : name_(absl::AsciiStrToLower(req.name())),
      handler_(absl::AsciiStrToLower(req.handler())),
      author_(absl::AsciiStrToLower(req.author())),
      description_(absl::AsciiStrToLower(req.description())),
      schedule_type_(req.schedule_type()),
      state_(req.state()) {}

bool JobFilter::empty() const {
  return name_.empty() && handler_.empty() && author_.empty() && description_.empty() &&
         schedule_type_ == v1::SCHEDULE_TYPE_UNSPECIFIED && state_ == v1::JOB_STATE_UNSPECIFIED;
}

bool JobFilter::Matches(const v1::Job& job) const {
  if (schedule_type_ != v1::SCHEDULE_TYPE_UNSPECIFIED &&
      ScheduleTypeOf(job.schedule()) != schedule_type_) {
    return false;
  }
  if (state_ != v1::JOB_STATE_UNSPECIFIED && job.state() != state_) return false;
  return Has(job.name(), name_) &&
         Has(job.has_script() ? "script" : job.bean().handler(), handler_) &&
         Has(job.author(), author_) && Has(job.description(), description_);
}

}  // namespace gnomon::scheduler
