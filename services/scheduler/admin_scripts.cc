// AdminCore: script versions (glue versions) of script jobs — list, get and
// roll back. Versions are stored by the store with each create and edit
// (Store::CreateJob, UpdateJob); a rollback is an edit whose script is a
// kept version's.
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_core.h"

namespace gnomon::scheduler {
namespace {

absl::Status CheckVersion(int64_t version) {
  return checks::CheckRange("version", version, 1, INT32_MAX);
}

}  // namespace

absl::StatusOr<v1::ListScriptVersionsResponse> AdminCore::ListScriptVersions(
    const v1::ListScriptVersionsRequest& req) {
  RETURN_IF_ERROR(checks::CheckRange("page_size", req.page_size(), 0, 1000));
  ASSIGN_OR_RETURN(int64_t before, checks::ParsePageToken("page_token", req.page_token()));
  RETURN_IF_ERROR(FindJob(req.job_id()));
  const int want = req.page_size() == 0 ? 100 : req.page_size();
  // One extra version tells whether another page exists.
  ASSIGN_OR_RETURN(std::vector<v1::ScriptVersion> versions,
                   stores_.jobs->ListScriptVersions(req.job_id(), before, want + 1));
  v1::ListScriptVersionsResponse resp;
  for (int i = 0; i < static_cast<int>(versions.size()) && i < want; ++i) {
    *resp.add_versions() = std::move(versions[i]);
  }
  if (static_cast<int>(versions.size()) > want) {
    resp.set_next_page_token(absl::StrCat(resp.versions(want - 1).version()));
  }
  return resp;
}

absl::StatusOr<v1::ScriptVersion> AdminCore::GetScriptVersion(
    const v1::GetScriptVersionRequest& req) {
  RETURN_IF_ERROR(CheckVersion(req.version()));
  RETURN_IF_ERROR(FindJob(req.job_id()));
  absl::StatusOr<v1::ScriptVersion> v = stores_.jobs->GetScriptVersion(req.job_id(), req.version());
  if (absl::IsNotFound(v.status()))
    return absl::NotFoundError(absl::StrCat("version: ", v.status().message()));
  return v;
}

absl::StatusOr<v1::Job> AdminCore::RollbackScript(const v1::RollbackScriptRequest& req,
                                                  std::string_view author) {
  RETURN_IF_ERROR(
      checks::FirstError({CheckVersion(req.version()),
                          checks::CheckText("remark", req.remark(), kMaxScriptRemarkBytes)}));
  ASSIGN_OR_RETURN(v1::Job job, FindJob(req.job_id()));
  if (!job.has_script()) {
    return absl::FailedPreconditionError(
        absl::StrCat("job_id: job ", req.job_id(), " is not a script job"));
  }
  v1::GetScriptVersionRequest get;
  get.set_job_id(req.job_id());
  get.set_version(req.version());
  ASSIGN_OR_RETURN(v1::ScriptVersion old, GetScriptVersion(get));
  v1::ScriptTask& script = *job.mutable_script();
  script.set_language(old.language());
  script.set_source(old.source());
  script.set_remark(req.remark().empty() ? absl::StrCat("rollback to v", req.version())
                                         : req.remark());
  // Only the script changes: state and schedule cursor stay.
  absl::StatusOr<v1::Job> updated =
      stores_.jobs->UpdateJob(job, std::nullopt, clock_->NowMillis(), author);
  loop_->Invalidate(req.job_id());
  return updated;
}

}  // namespace gnomon::scheduler
