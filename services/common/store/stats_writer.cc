#include "services/common/store/stats_writer.h"

#include <utility>

#include "services/common/client/log.h"

namespace gnomon::store::internal {

StatsWriter::StatsWriter(SqlDb* db, const Statements& sql, absl::Duration interval)
    : db_(db), sql_(sql), interval_(interval) {
  if (interval_ > absl::ZeroDuration()) {
    // The first write is an interval after the start, not at once: a pass
    // run "at once" by a thread that starts late would write whatever was
    // counted meanwhile, earlier than the interval says.
    worker_.Start([this, first = true]() mutable {
      if (!first) {
        if (absl::Status s = Flush(); !s.ok()) {
          GNOMON_LOG(WARNING) << "store: writing daily statistics failed, will retry: " << s;
        }
      }
      first = false;
      return absl::Now() + interval_;
    });
  }
}

StatsWriter::~StatsWriter() {
  worker_.Stop();
  if (absl::Status s = Flush(); !s.ok()) {
    GNOMON_LOG(WARNING) << "store: daily statistics not written at close: " << s;
  }
}

void StatsWriter::Add(const StatsDeltas& deltas) {
  if (deltas.empty()) return;
  {
    absl::MutexLock l(&mu_);
    pending_.Add(deltas);
  }
  if (interval_ <= absl::ZeroDuration()) Flush().IgnoreError();  // Stays queued on failure.
}

absl::Status StatsWriter::Flush() {
  absl::MutexLock flushing(&flush_mu_);
  StatsDeltas batch;
  {
    absl::MutexLock l(&mu_);
    std::swap(batch, pending_);
  }
  if (batch.empty()) return absl::OkStatus();
  absl::Status s = db_->Transact([&](SqlConn& c) { return batch.Apply(c, sql_); });
  if (!s.ok()) {
    absl::MutexLock l(&mu_);
    pending_.Add(batch);  // Counts are deltas: added to what came meanwhile.
  }
  return s;
}

}  // namespace gnomon::store::internal
