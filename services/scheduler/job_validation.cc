#include "services/scheduler/job_validation.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/schedule/schedule.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

bool Printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return absl::ascii_isgraph(static_cast<unsigned char>(c)); });
}

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

absl::Status CheckDuration(const google::protobuf::Duration& d, absl::string_view field) {
  if (d.seconds() < 0 || d.nanos() < 0 || d.nanos() > 999'999'999 ||
      d.seconds() > TimeUtil::kDurationMaxSeconds) {
    return Invalid(field, "must be a non-negative duration");
  }
  return absl::OkStatus();
}

// Walks the child graph from `job`'s children; a path back to job.id() is a cycle.
absl::Status CheckChildren(const v1::Job& job, store::Store* store) {
  absl::flat_hash_set<int64_t> seen;
  std::vector<int64_t> stack;
  for (int64_t c : job.child_job_ids()) {
    if (c <= 0) return Invalid("job.child_job_ids", absl::StrCat(c, " is not a job id"));
    if (job.id() != 0 && c == job.id()) return Invalid("job.child_job_ids", "a job cannot be its own child");
    absl::StatusOr<v1::Job> child = store->GetJob(c);
    if (absl::IsNotFound(child.status())) {
      return absl::NotFoundError(absl::StrCat("job.child_job_ids: job ", c, " does not exist"));
    }
    if (!child.ok()) return child.status();
    stack.push_back(c);
  }
  if (job.id() == 0) return absl::OkStatus();  // A new job cannot be anyone's child yet.
  while (!stack.empty()) {
    int64_t id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    absl::StatusOr<v1::Job> j = store->GetJob(id);
    if (absl::IsNotFound(j.status())) continue;
    if (!j.ok()) return j.status();
    for (int64_t c : j->child_job_ids()) {
      if (c == job.id()) {
        return Invalid("job.child_job_ids",
                       absl::StrCat("job ", id, " already leads back to job ", job.id(), " (a cycle)"));
      }
      stack.push_back(c);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateGroup(const v1::Group& group) {
  const std::string& app = group.app_name();
  if (app.empty()) return Invalid("group.app_name", "empty");
  if (app.size() > 64 || !std::all_of(app.begin(), app.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      })) {
    return Invalid("group.app_name", absl::StrCat("\"", app.substr(0, 80),
                                                  "\" must be 1-64 letters, digits, '.', '_' or '-'"));
  }
  if (group.title().size() > 256) return Invalid("group.title", "longer than 256 bytes");
  if (group.has_manual()) {
    if (group.manual().addresses().empty()) return Invalid("group.manual.addresses", "empty");
    for (const std::string& a : group.manual().addresses()) {
      size_t colon = a.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == a.size() || !Printable(a)) {
        return Invalid("group.manual.addresses", absl::StrCat("\"", a, "\" is not host:port"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateJob(const v1::Job& job, const JobLimits& limits, store::Store* store) {
  if (job.group_id() <= 0) return Invalid("job.group_id", "must be set");
  switch (job.task_case()) {
    case v1::Job::kBean:
      if (job.bean().handler().empty()) return Invalid("job.bean.handler", "empty");
      if (job.bean().handler().size() > 128 || !Printable(job.bean().handler())) {
        return Invalid("job.bean.handler", "must be 1-128 printable characters without spaces");
      }
      break;
    case v1::Job::kScript:
      if (job.script().language() == v1::SCRIPT_LANGUAGE_UNSPECIFIED ||
          !v1::ScriptLanguage_IsValid(job.script().language())) {
        return Invalid("job.script.language", "must be SHELL or PYTHON");
      }
      if (job.script().source().empty()) return Invalid("job.script.source", "empty");
      if (job.script().source().size() > limits.max_script_bytes) {
        return Invalid("job.script.source", absl::StrCat(job.script().source().size(),
                                                         " bytes; the limit is ", limits.max_script_bytes));
      }
      break;
    default:
      return Invalid("job.task", "set bean (a handler name) or script");
  }
  if (absl::Status s = schedule::ValidateSchedule(job.schedule()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job.", s.message()));
  }
  if (job.params().size() > limits.max_params_bytes) {
    return Invalid("job.params", absl::StrCat(job.params().size(), " bytes; the limit is ",
                                              limits.max_params_bytes));
  }
  if (!v1::RouteStrategy_IsValid(job.route_strategy())) return Invalid("job.route_strategy", "unknown value");
  if (!v1::BlockStrategy_IsValid(job.block_strategy())) return Invalid("job.block_strategy", "unknown value");
  if (!v1::MisfirePolicy_IsValid(job.misfire().policy())) return Invalid("job.misfire.policy", "unknown value");
  if (!v1::ChildTriggerMode_IsValid(job.child_trigger_mode())) {
    return Invalid("job.child_trigger_mode", "unknown value");
  }
  if (absl::Status s = CheckDuration(job.misfire().threshold(), "job.misfire.threshold"); !s.ok()) return s;
  if (absl::Status s = CheckDuration(job.timeout(), "job.timeout"); !s.ok()) return s;
  if (absl::Status s = CheckDuration(job.retry().initial_delay(), "job.retry.initial_delay"); !s.ok()) return s;
  if (absl::Status s = CheckDuration(job.retry().max_delay(), "job.retry.max_delay"); !s.ok()) return s;
  if (job.retry().max_retries() > limits.max_retries) {
    return Invalid("job.retry.max_retries", absl::StrCat(job.retry().max_retries(), " exceeds ",
                                                         limits.max_retries));
  }
  if (job.retry().multiplier() < 0 || job.retry().multiplier() > 100) {
    return Invalid("job.retry.multiplier", "must be within 0..100");
  }
  if (job.description().size() > 1024) return Invalid("job.description", "longer than 1024 bytes");
  for (const std::string& e : job.alarm().emails()) {
    if (e.find('@') == std::string::npos || !Printable(e)) {
      return Invalid("job.alarm.emails", absl::StrCat("\"", e, "\" is not an email address"));
    }
  }
  for (const std::string& u : job.alarm().webhook_urls()) {
    if (!(absl::StartsWith(u, "http://") || absl::StartsWith(u, "https://")) || !Printable(u)) {
      return Invalid("job.alarm.webhook_urls", absl::StrCat("\"", u, "\" is not an http(s) URL"));
    }
  }
  absl::StatusOr<v1::Group> group = store->GetGroup(job.group_id());
  if (absl::IsNotFound(group.status())) {
    return absl::NotFoundError(absl::StrCat("job.group_id: group ", job.group_id(), " does not exist"));
  }
  if (!group.ok()) return group.status();
  return CheckChildren(job, store);
}

}  // namespace gnomon::scheduler
