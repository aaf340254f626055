// InFlightRuns: which PENDING runs of its own epoch this replica is still
// sending. A run is in flight from the moment its recording starts until
// the store holds its dispatch outcome; the Redispatcher resends a run of
// the replica's own epoch only if it is not. That is how a run recorded by
// a store call that committed but reported failure (the connection dropped
// at COMMIT) is still sent: the loop fires its slot again, finds the slot
// taken and sends nothing, and the run would otherwise stay PENDING until
// the reaper failed it.
//
//   recording:  in.BeginRecording(now); InsertRuns; in.Sending(id)...; in.EndRecording(now);
//   outcome:    RecordDispatches(batch) ok -> in.Committed(ids);
//   fenced:     in.Dropped(id);
//   scan:       in.BeginScan(); ListRuns(PENDING); in.Holds(run)?; in.EndScan();
//
// A scan reads the store after BeginScan, so an outcome committed before
// then is not PENDING in what it read; one committed during the scan is
// remembered until EndScan. Scans may overlap (the redispatcher's and the
// run reaper's): commits are remembered until the last one ends. Memory:
// the runs being sent plus the commits during scans.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_IN_FLIGHT_RUNS_H_
#define GNOMON_SERVICES_SCHEDULER_IN_FLIGHT_RUNS_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::scheduler {

class InFlightRuns {
 public:
  // A recording whose runs carry `trigger_ms` as their trigger time.
  void BeginRecording(int64_t trigger_ms) ABSL_LOCKS_EXCLUDED(mu_);
  void EndRecording(int64_t trigger_ms) ABSL_LOCKS_EXCLUDED(mu_);
  void Sending(int64_t run_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Their outcomes are in the store.
  void Committed(const std::vector<int64_t>& run_ids) ABSL_LOCKS_EXCLUDED(mu_);
  // No outcome will be written (fenced off: it stays PENDING for the
  // partition's newer holder).
  void Dropped(int64_t run_id) ABSL_LOCKS_EXCLUDED(mu_);

  void BeginScan() ABSL_LOCKS_EXCLUDED(mu_);
  void EndScan() ABSL_LOCKS_EXCLUDED(mu_);
  // Whether `run` (read PENDING since BeginScan) is being recorded or sent
  // here, or its outcome was committed since BeginScan.
  bool Holds(const v1::Run& run) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<int64_t, int> recording_ ABSL_GUARDED_BY(mu_);  // trigger ms -> count
  absl::flat_hash_set<int64_t> sending_ ABSL_GUARDED_BY(mu_);
  // Scans under way (the redispatcher's and the run reaper's may overlap):
  // commits are remembered until the last of them ends.
  int scans_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<int64_t> committed_in_scan_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_IN_FLIGHT_RUNS_H_
