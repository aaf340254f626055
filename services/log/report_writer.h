// ReportWriter: turns executor reports (run starts, log lines, results) into
// batched store transactions, acknowledging each item only once it is durable.
//
//   ReportWriter writer(store, &RealClock(), {});
//   std::thread t([&] { writer.Run(); });
//   writer.Submit({items, group_id, [](std::vector<v1::ReportAck> acks) { /* write acks */ }});
//   ...
//   writer.Stop(); t.join();
//
// A store that is down keeps items queued and retries with backoff; nothing is
// acknowledged that was not written. Observers learn which runs changed so
// live log tails and follow-up logic wake up.
//
// Thread safety: Submit/Stop from any thread; Run on one dedicated thread.
#ifndef GNOMON_SERVICES_LOG_REPORT_WRITER_H_
#define GNOMON_SERVICES_LOG_REPORT_WRITER_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/log.pb.h"
#include "services/common/client/clock.h"
#include "services/common/server/batched_writer.h"
#include "services/common/store/run_store.h"

namespace gnomon::logsvc {

struct ReportWriterOptions {
  // Items written per store transaction, roughly: whole reports are taken
  // until this many items are in hand.
  // Large: under load a transaction then holds several runs of each job, and
  // the index pages they share are written once per transaction, not per run.
  size_t max_batch = 4096;
  // Transactions at least this far apart (unless max_batch items wait): at
  // low rates one transaction covers several executors' messages.
  absl::Duration min_commit_interval = absl::Milliseconds(10);
  // Items received and not yet taken into a transaction, at most (roughly:
  // a stream stops reading while this many wait, so what is queued stays
  // under this plus one message per stream). The rest waits in the
  // executors' spools, flow-controlled by their streams. An item counts
  // once per kReportWeightBytes of its size, so log lines queue at most
  // max_queued x 4 KiB (64 MiB), whatever their messages' size.
  size_t max_queued = 16384;
};

// The items of one ReportResults message, acknowledged together (`done` gets
// one ack per item, in order, once all are durable).
struct PendingReport {
  std::vector<v1::ReportItem> items;
  int64_t group_id = 0;
  std::function<void(std::vector<v1::ReportAck>)> done;
  // Its weight in the writer's queue (set by Submit).
  size_t weight = 0;
};

// What one unit of a queue's weight stands for: an item, or this many bytes
// of one (its log lines' text).
inline constexpr size_t kReportWeightBytes = 4096;

class ReportWriter {
 public:
  // Called after each durable batch with the items and their acks.
  using Observer =
      std::function<void(const std::vector<v1::ReportItem>&, const std::vector<v1::ReportAck>&)>;

  ReportWriter(store::RunStore* runs, Clock* clock, ReportWriterOptions options);

  void AddObserver(Observer observer) ABSL_LOCKS_EXCLUDED(mu_);
  void Submit(PendingReport report);
  // Items submitted and not yet taken into a store transaction (weighted as
  // max_queued counts them).
  size_t queued_items() const { return writer_.queued(); }
  // Waits up to `timeout` until fewer than max_queued items are queued;
  // whether they are (a stream reads its next message only then).
  bool AwaitRoom(absl::Duration timeout) const { return writer_.AwaitBelow(max_queued_, timeout); }
  // AwaitRoom without waiting, for a caller that must not block (a callback
  // stream's reaction): true if fewer than max_queued items are queued (or
  // the writer is stopped), and `on_room` is dropped. Otherwise false, and
  // `on_room` is called once, later, when there is room: on the writer's
  // thread as it takes a batch from the queue (before storing it), or in
  // Stop. It must not block, nor call this writer back but for Submit and
  // HasRoomOrNotify (it may start the stream's next read, and no more).
  bool HasRoomOrNotify(std::function<void()> on_room) ABSL_LOCKS_EXCLUDED(room_mu_);
  // Writes until Stop(); items still queued at Stop are not acknowledged.
  void Run() { writer_.Run(); }
  void Stop() ABSL_LOCKS_EXCLUDED(room_mu_);

 private:
  // Stores a batch (one transaction per group), acknowledges what was
  // stored and hands back the reports of the groups that failed.
  std::vector<PendingReport> Apply(std::vector<PendingReport> batch) ABSL_LOCKS_EXCLUDED(mu_);
  // Calls the HasRoomOrNotify callbacks if there is room now.
  void NotifyRoom() ABSL_LOCKS_EXCLUDED(room_mu_);

  store::RunStore* const runs_;
  const size_t max_queued_;
  mutable absl::Mutex mu_;
  std::vector<Observer> observers_ ABSL_GUARDED_BY(mu_);
  // Taken before writer_'s own lock (queued() is read under it), so a
  // callback is never left behind: the queue shrinks only as the writer's
  // thread takes a batch, and NotifyRoom then looks under room_mu_.
  absl::Mutex room_mu_;
  std::vector<std::function<void()>> room_waiters_ ABSL_GUARDED_BY(room_mu_);
  bool stopped_ ABSL_GUARDED_BY(room_mu_) = false;
  BatchedWriter<PendingReport> writer_;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_REPORT_WRITER_H_
