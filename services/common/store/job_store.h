// JobStore: executor groups and jobs (configuration, state, schedule cursor, script versions).
//
// What the admin API edits and the schedule loop reads and advances.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_JOB_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_JOB_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::store {

// Sentinel for "no further fire" in next_fire_ms.
inline constexpr int64_t kNever = -1;

// Scheduler partitions: job j is scheduled by the holder of partition
// PartitionOf(j, n) (the lease "partition/<p>", see LeaseStore), n being the
// installation's partition count, JobStore::partition_count(). It is chosen
// when a store is first initialised (StoreOptions::initial_partitions,
// gnomond --partitions) and never changes: another count would move most
// jobs to another partition at once, under another lease.
inline constexpr int kDefaultPartitions = 64;
inline constexpr int kMaxPartitions = 4096;
inline int PartitionOf(int64_t job_id, int partition_count) {
  return static_cast<int>(job_id % partition_count);
}

// A job to create (CreateJobs): its configuration, state and first cursor.
struct NewJob {
  v1::Job job;
  v1::JobState state = v1::JOB_STATE_STOPPED;
  int64_t next_fire_ms = kNever;
};

// A job due to fire, with its schedule cursor.
struct DueJob {
  v1::Job job;  // Full configuration; job.next_fire_time mirrors next_fire_ms.
  int64_t next_fire_ms = kNever;
  int64_t last_fire_ms = 0;  // 0 = never fired.
};

// Compare-and-set of a job's schedule cursor: applied only if the stored
// next_fire_ms still equals expected_next_fire_ms and the job is RUNNING.
struct JobAdvance {
  int64_t job_id = 0;
  int64_t expected_next_fire_ms = kNever;
  int64_t next_fire_ms = kNever;
  int64_t last_fire_ms = 0;
  // Slots this advance fired (0: a misfire skipped it): counted off a job
  // with max_fires (Job.fires_left).
  uint32_t fired = 0;
};

// How many jobs of one group are in one state (CountJobs).
struct JobCount {
  std::string app_name;  // The group's.
  v1::JobState state = v1::JOB_STATE_UNSPECIFIED;
  int64_t jobs = 0;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // How many scheduler partitions the jobs are hashed into (PartitionOf):
  // the count recorded when the store was initialised, fixed since. The
  // partitions of ListDueJobs, ListPendingFollowups and RunFilter are
  // numbers below it.
  virtual int partition_count() const = 0;

  // ---- Groups -------------------------------------------------------------
  // Inserts `group` (id ignored; access_token must be set by the caller).
  // AlreadyExists if the app name is taken. Returns it with id and times.
  virtual absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) = 0;
  // Groups are returned with their access_token; callers strip it for display.
  virtual absl::StatusOr<v1::Group> GetGroup(int64_t group_id) = 0;
  virtual absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) = 0;
  virtual absl::StatusOr<std::vector<v1::Group>> ListGroups() = 0;
  // Replaces title, membership and access_token of group.id. NotFound if missing.
  virtual absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) = 0;
  // FailedPrecondition (naming the count) if any job uses it; NotFound if missing.
  virtual absl::Status DeleteGroup(int64_t group_id) = 0;

  // ---- Jobs ---------------------------------------------------------------
  // Script versions (glue versions): creating a script job stores its
  // script as version 1, and an update that changes a script job's language
  // or source stores the new script as the next version, in the same
  // transaction as the job (an update that changes neither stores none and
  // keeps the version). The job's script.version is the store's, whatever
  // the caller set; script.remark is stored with the version, never in the
  // job; `author` (the caller, as the audit log names it) too. Only the
  // newest StoreOptions::script_versions_kept versions of a job are kept.
  //
  // Inserts `job` (id ignored) with the given state and cursor. NotFound if
  // job.group_id does not exist. Returns it with id, state, times.
  virtual absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state,
                                            int64_t next_fire_ms, int64_t now_ms,
                                            std::string_view author = {}) = 0;
  // Inserts every job of `jobs` with its state and cursor in one transaction:
  // all or none (NotFound naming the group if one is missing). Returns them
  // with ids, in order.
  virtual absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs,
                                                          int64_t now_ms,
                                                          std::string_view author = {}) = 0;
  virtual absl::StatusOr<v1::Job> GetJob(int64_t job_id) = 0;
  // The jobs called `name` in `group_ids` (empty: any group), by id: at most
  // one per group, since names are unique within a group.
  virtual absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(
      std::string_view name, const std::vector<int64_t>& group_ids) = 0;
  // The jobs among `job_ids` that exist (missing ids are left out), in one
  // statement per kMaxBatchRows ids: for passes that need many jobs at once.
  virtual absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) = 0;
  // Jobs with id > after_id (0 = from the start), ascending, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids,
                                                        int64_t after_id, int limit) = 0;
  // Replaces the configuration of job.id; keeps state and cursor unless
  // next_fire_ms is given (then it replaces the cursor too).
  virtual absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                            int64_t now_ms, std::string_view author = {}) = 0;
  // Deletes the job and its script versions and takes it out of its parents'
  // child lists, in one transaction; with purge_runs its runs, their logs
  // and its daily statistics rows go too (otherwise they stay until retention).
  virtual absl::Status DeleteJob(int64_t job_id, bool purge_runs) = 0;
  // Sets state and cursor (kNever when stopped); its consecutive failures
  // count from 0 again and a pause reason is cleared.
  virtual absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state,
                                              int64_t next_fire_ms, int64_t now_ms) = 0;
  // Run `run_id` of the job ended for good: a failure adds one to the job's
  // consecutive failures, a success sets them to 0. Counted in run id
  // order, once per run: a run older than the last one counted (or the same
  // one, its follow-up handled again) changes nothing. The count after it.
  virtual absl::StatusOr<uint32_t> RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) = 0;
  // Pauses the job if it is RUNNING (state PAUSED, cursor kNever, `reason`
  // kept); false if it was not running.
  virtual absl::StatusOr<bool> PauseJob(int64_t job_id, std::string_view reason,
                                        int64_t now_ms) = 0;
  // RUNNING jobs with 0 <= next_fire_ms <= until_ms, earliest first, at most
  // `limit` (0 or less: all of them), of the given partitions (empty: all).
  virtual absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                          const std::vector<int>& partitions) = 0;
  // Applies each advance in one transaction; returns, per advance, whether it applied.
  virtual absl::StatusOr<std::vector<bool>> AdvanceJobs(
      const std::vector<JobAdvance>& advances) = 0;
  // Jobs per (group, state), in one aggregate query (for metrics); groups
  // without jobs are left out.
  virtual absl::StatusOr<std::vector<JobCount>> CountJobs() = 0;
  // Jobs of one group, any state (its index: a group's quota is checked
  // against it on every create).
  virtual absl::StatusOr<int64_t> CountGroupJobs(int64_t group_id) = 0;
  // A job's kept script versions with version < before_version (0: from
  // the newest), newest first, at most `limit`, without their source (its
  // length is in source_bytes). Empty for a job without any.
  virtual absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id,
                                                                            int64_t before_version,
                                                                            int limit) = 0;
  // One kept version with its source; NotFound naming it if not kept.
  virtual absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_JOB_STORE_H_
