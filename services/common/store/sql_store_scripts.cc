// SqlStore: script versions (the glue_version table). A version is stored in
// the transaction that writes its job (CreateJob, CreateJobs, UpdateJob);
// versions of one job are numbered 1, 2, ... and only the newest
// StoreOptions::script_versions_kept stay.
#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// Columns of select_script_version(s): version, language, note, author,
// create_ms, then the source or its length.
v1::ScriptVersion VersionFromRow(int64_t job_id, const SqlRow& row) {
  v1::ScriptVersion v;
  v.set_job_id(job_id);
  v.set_version(ColInt(row, 0));
  v.set_language(static_cast<v1::ScriptLanguage>(ColInt(row, 1)));
  v.set_remark(ColStr(row, 2));
  v.set_author(ColStr(row, 3));
  SetMs(ColInt(row, 4), v.mutable_create_time());
  return v;
}

bool SameScript(const v1::ScriptTask& a, const v1::ScriptTask& b) {
  return a.language() == b.language() && a.source() == b.source();
}

// Kept for scripts edited before versions were stored (schema version 10).
constexpr char kEarlierScript[] = "the script before versions were kept";

}  // namespace

v1::Job SqlStore::NewJobSpec(const v1::Job& job) {
  v1::Job spec = job;
  if (spec.has_script()) {
    spec.mutable_script()->set_version(1);
    spec.mutable_script()->clear_remark();
  }
  return spec;
}

absl::Status SqlStore::InsertScriptVersion(SqlConn& c, int64_t job_id, int64_t version,
                                           const v1::ScriptTask& script, std::string_view remark,
                                           std::string_view author, int64_t at_ms) {
  RETURN_IF_ERROR(c.Insert(
      sql_.insert_script_version,
      {SqlInt(job_id), SqlInt(version), SqlInt(script.language()), SqlText(script.source()),
       SqlText(std::string(remark)), SqlText(std::string(author)), SqlInt(at_ms)}));
  const int64_t oldest_kept = version - std::max<int64_t>(options_.script_versions_kept, 1) + 1;
  if (oldest_kept <= 1) return absl::OkStatus();
  return c.Exec(sql_.prune_script_versions, {SqlInt(job_id), SqlInt(oldest_kept)}).status();
}

absl::Status SqlStore::RecordFirstScript(SqlConn& c, int64_t job_id, const v1::Job& requested,
                                         std::string_view author, int64_t now_ms) {
  if (!requested.has_script()) return absl::OkStatus();
  return InsertScriptVersion(c, job_id, 1, requested.script(), requested.script().remark(), author,
                             now_ms);
}

absl::Status SqlStore::RecordScriptEdit(SqlConn& c, const v1::Job& current, v1::Job& spec,
                                        std::string_view author, int64_t now_ms) {
  if (!spec.has_script()) return absl::OkStatus();
  v1::ScriptTask& script = *spec.mutable_script();
  const std::string remark = script.remark();
  script.clear_remark();
  if (current.has_script() && SameScript(current.script(), script)) {
    script.set_version(current.script().version());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                   c.Query(sql_.max_script_version, {SqlInt(current.id())}));
  int64_t latest = rows.empty() ? 0 : ColInt(rows.front(), 0);
  if (latest == 0 && current.has_script()) {
    // A script job from before versions were stored: its script so far is
    // kept as the version it was, so the edit can be undone too.
    latest = std::max<int64_t>(current.script().version(), 1);
    RETURN_IF_ERROR(InsertScriptVersion(c, current.id(), latest, current.script(), kEarlierScript,
                                        "", ToMs(current.update_time())));
  }
  script.set_version(latest + 1);
  return InsertScriptVersion(c, current.id(), latest + 1, script, remark, author, now_ms);
}

absl::StatusOr<std::vector<v1::ScriptVersion>> SqlStore::ListScriptVersions(int64_t job_id,
                                                                            int64_t before_version,
                                                                            int limit) {
  std::vector<v1::ScriptVersion> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.select_script_versions,
                             {SqlInt(job_id), SqlInt(before_version), SqlInt(before_version),
                              SqlInt(std::clamp(limit, 1, 10000))}));
    out.clear();
    for (const SqlRow& row : rows) {
      v1::ScriptVersion& v = out.emplace_back(VersionFromRow(job_id, row));
      v.set_source_bytes(ColInt(row, 5));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::ScriptVersion> SqlStore::GetScriptVersion(int64_t job_id, int64_t version) {
  absl::StatusOr<v1::ScriptVersion> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.select_script_version, {SqlInt(job_id), SqlInt(version)}));
    if (rows.empty()) {
      out = absl::NotFoundError(
          absl::StrCat("version ", version, " of job ", job_id, "'s script is not kept"));
      return absl::OkStatus();
    }
    v1::ScriptVersion v = VersionFromRow(job_id, rows.front());
    v.set_source(ColStr(rows.front(), 5));
    v.set_source_bytes(static_cast<int64_t>(v.source().size()));
    out = std::move(v);
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal
