#include "services/common/server/run_queries.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon {

using google::protobuf::util::TimeUtil;

absl::StatusOr<v1::ListRunsResponse> ListRuns(store::JobStore* jobs, store::RunStore* runs_store,
                                              const Access& access,
                                              const v1::ListRunsRequest& request) {
  constexpr int kMaxStatuses = 8;
  RETURN_IF_ERROR(checks::FirstError(
      {checks::CheckRange("job_id", request.job_id(), 0, INT64_MAX),
       checks::CheckRange("workflow_run_id", request.workflow_run_id(), 0, INT64_MAX),
       checks::CheckRange("group_id", request.group_id(), 0, INT64_MAX),
       checks::CheckCount("statuses", request.statuses_size(), kMaxStatuses),
       request.has_start_time() ? checks::CheckTimestamp("start_time", request.start_time())
                                : absl::OkStatus(),
       request.has_end_time() ? checks::CheckTimestamp("end_time", request.end_time())
                              : absl::OkStatus(),
       checks::CheckRange("page_size", request.page_size(), 0, 1000)}));
  ASSIGN_OR_RETURN(int64_t before, checks::ParsePageToken("page_token", request.page_token()));
  store::RunFilter filter;
  filter.before_id = before;
  filter.limit = request.page_size() == 0 ? 50 : request.page_size();
  filter.job_id = request.job_id();
  filter.workflow_run_id = request.workflow_run_id();
  ASSIGN_OR_RETURN(std::vector<int64_t> groups, access.ListScope(request.group_id()));
  filter.group_ids = std::move(groups);
  if (request.job_id() != 0) {
    RETURN_IF_ERROR(CheckJobAccess(jobs, access, request.job_id()));
  }
  for (int i = 0; i < request.statuses_size(); ++i) {
    const int s = request.statuses(i);
    if (s == v1::RUN_STATUS_UNSPECIFIED || !v1::RunStatus_IsValid(s)) {
      return checks::Invalid(checks::Indexed("statuses", i),
                             absl::StrCat(s, " is not a run status"));
    }
    filter.statuses.push_back(static_cast<v1::RunStatus>(s));
  }
  if (!v1::TriggerType_IsValid(request.trigger_type())) {
    return checks::Invalid("trigger_type",
                           absl::StrCat(request.trigger_type(), " is not a trigger type"));
  }
  filter.trigger_type = request.trigger_type();
  if (request.has_start_time())
    filter.trigger_from_ms = TimeUtil::TimestampToMilliseconds(request.start_time());
  if (request.has_end_time())
    filter.trigger_to_ms = TimeUtil::TimestampToMilliseconds(request.end_time());
  if (filter.trigger_to_ms != 0 && filter.trigger_to_ms < filter.trigger_from_ms) {
    return absl::InvalidArgumentError("end_time: before start_time");
  }
  // One extra row tells whether another page exists.
  const int want = filter.limit;
  filter.limit = want + 1;
  ASSIGN_OR_RETURN(std::vector<v1::Run> runs, runs_store->ListRuns(filter));
  v1::ListRunsResponse response;
  for (int i = 0; i < static_cast<int>(runs.size()) && i < want; ++i) {
    *response.add_runs() = std::move(runs[i]);
  }
  if (static_cast<int>(runs.size()) > want) {
    response.set_next_page_token(absl::StrCat(response.runs(want - 1).id()));
  }
  return response;
}

absl::StatusOr<v1::Run> GetRun(store::RunStore* runs, int64_t run_id) {
  RETURN_IF_ERROR(checks::CheckRange("run_id", run_id, 1, INT64_MAX));
  absl::StatusOr<v1::Run> run = runs->GetRun(run_id);
  if (absl::IsNotFound(run.status())) {
    return absl::NotFoundError(absl::StrCat("run_id: run ", run_id, " does not exist"));
  }
  return run;
}

absl::Status ValidateGetRunRequest(const v1::GetRunRequest& request) {
  return checks::FirstError({checks::CheckRange("run_id", request.run_id(), 1, INT64_MAX),
                             checks::CheckRange("log_lines", request.log_lines(), 0, 100000)});
}

absl::StatusOr<v1::GetRunResponse> GetRunWithLog(store::RunStore* runs,
                                                 const v1::GetRunRequest& request) {
  RETURN_IF_ERROR(ValidateGetRunRequest(request));
  ASSIGN_OR_RETURN(v1::Run run, GetRun(runs, request.run_id()));
  v1::GetRunResponse response;
  *response.mutable_run() = std::move(run);
  // Read a page at a time, so neither this answer nor the store's rows for
  // it outgrow kMaxGetRunLogBytes (and a default client's 4 MiB).
  constexpr int kPage = 500;
  const int wanted = request.log_lines() == 0 ? 1000 : request.log_lines();
  size_t bytes = 0;
  int64_t next = 1;
  while (response.log_lines_size() < wanted) {
    const int page = std::min(kPage, wanted - response.log_lines_size());
    ASSIGN_OR_RETURN(std::vector<v1::LogLine> lines,
                     runs->ReadRunLog(request.run_id(), next, page));
    for (v1::LogLine& l : lines) {
      bytes += l.text().size();
      if (bytes > kMaxGetRunLogBytes && response.log_lines_size() > 0) return response;
      next = l.line_number() + 1;
      *response.add_log_lines() = std::move(l);
    }
    if (static_cast<int>(lines.size()) < page) break;
  }
  return response;
}

}  // namespace gnomon
