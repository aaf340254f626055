#include "services/common/server/run_queries.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"

namespace gnomon {

using google::protobuf::util::TimeUtil;

absl::StatusOr<v1::ListRunsResponse> ListRuns(store::Store* store,
                                              const v1::ListRunsRequest& request) {
  store::RunFilter filter;
  if (request.page_size() < 0 || request.page_size() > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: ", request.page_size(), " is outside 0..1000"));
  }
  if (request.job_id() < 0) return absl::InvalidArgumentError("job_id: negative");
  if (request.group_id() < 0) return absl::InvalidArgumentError("group_id: negative");
  filter.limit = request.page_size() == 0 ? 50 : request.page_size();
  filter.job_id = request.job_id();
  filter.group_id = request.group_id();
  for (int s : request.statuses()) {
    if (s == v1::RUN_STATUS_UNSPECIFIED || !v1::RunStatus_IsValid(s)) {
      return absl::InvalidArgumentError(absl::StrCat("statuses: ", s, " is not a run status"));
    }
    filter.statuses.push_back(static_cast<v1::RunStatus>(s));
  }
  if (request.has_start_time()) filter.trigger_from_ms = TimeUtil::TimestampToMilliseconds(request.start_time());
  if (request.has_end_time()) filter.trigger_to_ms = TimeUtil::TimestampToMilliseconds(request.end_time());
  if (filter.trigger_to_ms != 0 && filter.trigger_to_ms < filter.trigger_from_ms) {
    return absl::InvalidArgumentError("end_time: before start_time");
  }
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &filter.before_id) || filter.before_id <= 0)) {
    return absl::InvalidArgumentError("page_token: not a token from a previous response");
  }
  // One extra row tells whether another page exists.
  const int want = filter.limit;
  filter.limit = want + 1;
  absl::StatusOr<std::vector<v1::Run>> runs = store->ListRuns(filter);
  if (!runs.ok()) return runs.status();
  v1::ListRunsResponse response;
  for (int i = 0; i < static_cast<int>(runs->size()) && i < want; ++i) {
    *response.add_runs() = std::move((*runs)[i]);
  }
  if (static_cast<int>(runs->size()) > want) {
    response.set_next_page_token(absl::StrCat(response.runs(want - 1).id()));
  }
  return response;
}

absl::StatusOr<v1::Run> GetRun(store::Store* store, int64_t run_id) {
  if (run_id <= 0) return absl::InvalidArgumentError("run_id: must be positive");
  absl::StatusOr<v1::Run> run = store->GetRun(run_id);
  if (absl::IsNotFound(run.status())) {
    return absl::NotFoundError(absl::StrCat("run_id: run ", run_id, " does not exist"));
  }
  return run;
}

absl::StatusOr<v1::GetRunResponse> GetRunWithLog(store::Store* store,
                                                 const v1::GetRunRequest& request) {
  if (request.log_lines() < 0 || request.log_lines() > 100000) {
    return absl::InvalidArgumentError("log_lines: outside 0..100000");
  }
  absl::StatusOr<v1::Run> run = GetRun(store, request.run_id());
  if (!run.ok()) return run.status();
  absl::StatusOr<std::vector<v1::LogLine>> lines =
      store->ReadRunLog(request.run_id(), 1, request.log_lines() == 0 ? 1000 : request.log_lines());
  if (!lines.ok()) return lines.status();
  v1::GetRunResponse response;
  *response.mutable_run() = std::move(*run);
  for (auto& l : *lines) *response.add_log_lines() = std::move(l);
  return response;
}

}  // namespace gnomon
