#include "services/scheduler/admin_requests.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

using checks::CheckCount;
using checks::CheckRange;
using checks::FirstError;
using checks::Invalid;

constexpr int kMaxMaskPaths = 4;
constexpr int kMaxTriggerAddresses = 100;
constexpr uint32_t kMaxShardIndex = 9999;

}  // namespace

absl::Status ValidateUpdateGroupMask(const v1::UpdateGroupRequest& req) {
  const auto& paths = req.update_mask().paths();
  RETURN_IF_ERROR(CheckCount("update_mask.paths", paths.size(), kMaxMaskPaths));
  for (int i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    if (p != "title" && p != "membership" && p != "manual" && p != "auto_registration") {
      return Invalid(
          checks::Indexed("update_mask.paths", i),
          absl::StrCat("cannot update ", checks::Prefix(p), "; use title or membership"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateListJobsRequest(const v1::ListJobsRequest& req) {
  return FirstError({CheckRange("group_id", req.group_id(), 0, INT64_MAX),
                     CheckRange("page_size", req.page_size(), 0, 1000),
                     checks::ParsePageToken("page_token", req.page_token()).status(),
                     checks::CheckString("name", req.name(), 128, checks::Charset::kName),
                     checks::CheckText("handler", req.handler(), 128),
                     checks::CheckText("author", req.author(), 256),
                     checks::CheckText("description", req.description(), 1024),
                     v1::ScheduleType_IsValid(req.schedule_type())
                         ? absl::OkStatus()
                         : absl::InvalidArgumentError("schedule_type: unknown value"),
                     v1::JobState_IsValid(req.state())
                         ? absl::OkStatus()
                         : absl::InvalidArgumentError("state: unknown value")});
}

absl::Status ValidateTriggerRequest(const v1::TriggerJobRequest& req, const JobLimits& limits) {
  RETURN_IF_ERROR(FirstError(
      {CheckRange("job_id", req.job_id(), 1, INT64_MAX),
       CheckParams("params", req.params(), limits),
       CheckCount("executor_addresses", req.executor_addresses_size(), kMaxTriggerAddresses),
       req.has_shard_index() ? CheckRange("shard_index", req.shard_index(), 0, kMaxShardIndex)
                             : absl::OkStatus()}));
  for (int i = 0; i < req.executor_addresses_size(); ++i) {
    const std::string field = checks::Indexed("executor_addresses", i);
    RETURN_IF_ERROR(checks::CheckExecutorName(field, req.executor_addresses(i)));
  }
  if (req.trigger_type() != v1::TRIGGER_TYPE_UNSPECIFIED &&
      req.trigger_type() != v1::TRIGGER_TYPE_MANUAL && req.trigger_type() != v1::TRIGGER_TYPE_API) {
    return Invalid("trigger_type", "must be MANUAL or API");
  }
  return absl::OkStatus();
}

absl::Status ValidatePreviewRequest(const v1::PreviewScheduleRequest& req,
                                    const JobLimits& limits) {
  return FirstError({ValidateScheduleFields("schedule", req.schedule()),
                     CheckParams("params", req.params(), limits),
                     req.has_from_time() ? checks::CheckTimestamp("from_time", req.from_time())
                                         : absl::OkStatus(),
                     CheckRange("count", req.count(), 0, 100)});
}

absl::Status ValidateBackfillRequest(const v1::BackfillRequest& req) {
  if (!req.has_start_time()) return Invalid("start_time", "required");
  if (!req.has_end_time()) return Invalid("end_time", "required");
  return FirstError({CheckRange("job_id", req.job_id(), 1, INT64_MAX),
                     checks::CheckTimestamp("start_time", req.start_time()),
                     checks::CheckTimestamp("end_time", req.end_time())});
}

}  // namespace gnomon::scheduler
