// AdminCore: script versions (glue versions) of script jobs — list, get and
// roll back. Versions are stored by the store with each create and edit
// (Store::CreateJob, UpdateJob); a rollback is an edit whose script is a
// kept version's.
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/scheduler/admin_core.h"

namespace gnomon::scheduler {
namespace {

absl::Status CheckVersion(int64_t version) {
  return checks::CheckRange("version", version, 1, INT32_MAX);
}

}  // namespace

absl::StatusOr<v1::ListScriptVersionsResponse> AdminCore::ListScriptVersions(
    const v1::ListScriptVersionsRequest& req) {
  if (absl::Status s = checks::CheckRange("page_size", req.page_size(), 0, 1000); !s.ok()) return s;
  absl::StatusOr<int64_t> before = checks::ParsePageToken("page_token", req.page_token());
  if (!before.ok()) return before.status();
  if (absl::StatusOr<v1::Job> job = FindJob(req.job_id()); !job.ok()) return job.status();
  const int want = req.page_size() == 0 ? 100 : req.page_size();
  // One extra version tells whether another page exists.
  absl::StatusOr<std::vector<v1::ScriptVersion>> versions =
      stores_.jobs->ListScriptVersions(req.job_id(), *before, want + 1);
  if (!versions.ok()) return versions.status();
  v1::ListScriptVersionsResponse resp;
  for (int i = 0; i < static_cast<int>(versions->size()) && i < want; ++i) {
    *resp.add_versions() = std::move((*versions)[i]);
  }
  if (static_cast<int>(versions->size()) > want) {
    resp.set_next_page_token(absl::StrCat(resp.versions(want - 1).version()));
  }
  return resp;
}

absl::StatusOr<v1::ScriptVersion> AdminCore::GetScriptVersion(const v1::GetScriptVersionRequest& req) {
  if (absl::Status s = CheckVersion(req.version()); !s.ok()) return s;
  if (absl::StatusOr<v1::Job> job = FindJob(req.job_id()); !job.ok()) return job.status();
  absl::StatusOr<v1::ScriptVersion> v = stores_.jobs->GetScriptVersion(req.job_id(), req.version());
  if (absl::IsNotFound(v.status())) return absl::NotFoundError(absl::StrCat("version: ", v.status().message()));
  return v;
}

absl::StatusOr<v1::Job> AdminCore::RollbackScript(const v1::RollbackScriptRequest& req, std::string_view author) {
  if (absl::Status s = checks::FirstError({CheckVersion(req.version()),
                                           checks::CheckText("remark", req.remark(), kMaxScriptRemarkBytes)});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<v1::Job> job = FindJob(req.job_id());
  if (!job.ok()) return job.status();
  if (!job->has_script()) {
    return absl::FailedPreconditionError(absl::StrCat("job_id: job ", req.job_id(), " is not a script job"));
  }
  v1::GetScriptVersionRequest get;
  get.set_job_id(req.job_id());
  get.set_version(req.version());
  absl::StatusOr<v1::ScriptVersion> old = GetScriptVersion(get);
  if (!old.ok()) return old.status();
  v1::ScriptTask& script = *job->mutable_script();
  script.set_language(old->language());
  script.set_source(old->source());
  script.set_remark(req.remark().empty() ? absl::StrCat("rollback to v", req.version()) : req.remark());
  // Only the script changes: state and schedule cursor stay.
  absl::StatusOr<v1::Job> updated = stores_.jobs->UpdateJob(*job, std::nullopt, clock_->NowMillis(), author);
  loop_->Invalidate(req.job_id());
  return updated;
}

}  // namespace gnomon::scheduler
