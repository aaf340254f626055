// Readable output of pools and their queues (declared in printers.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

// One row of the queue table: `position` is "-" for a run holding a slot;
// TRIGGERED is "-" until the run got its slot (a queued run's trigger time
// is when it was queued, as QUEUED says).
std::vector<std::string> QueueRow(const std::string& position, const v1::Run& run,
                                  absl::TimeZone zone) {
  return {position,
          absl::StrCat(run.id()),
          absl::StrCat(run.job_id()),
          absl::StrCat(run.priority()),
          RunStatusName(run.status()),
          FormatTime(run.queued_time(), zone),
          run.status() == v1::RUN_STATUS_QUEUED ? "-" : FormatTime(run.trigger_time(), zone)};
}

}  // namespace

void PrintPoolTable(const Repeated<v1::Pool>& pools, std::ostream& out) {
  Table table({"NAME", "SLOTS", "RUNNING", "QUEUED", "DESCRIPTION"});
  for (const v1::Pool& p : pools) {
    table.AddRow({p.name(), absl::StrCat(p.slots()), absl::StrCat(p.running()),
                  absl::StrCat(p.queued()), p.description()});
  }
  table.Render(out);
}

void PrintPoolDetails(const v1::Pool& pool, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("name", pool.name());
  d.Add("description", pool.description());
  d.Add("slots", absl::StrCat(pool.slots()));
  d.Add("running", absl::StrCat(pool.running(), " (runs holding a slot)"));
  d.Add("queued", absl::StrCat(pool.queued(), " (runs waiting for one)"));
  d.Add("created", FormatTime(pool.create_time(), zone));
  d.Add("updated", FormatTime(pool.update_time(), zone));
  d.Render(out);
}

void PrintPoolQueue(const v1::ListPoolQueueResponse& queue, absl::TimeZone zone,
                    std::ostream& out) {
  if (queue.running().empty() && queue.queued().empty() && queue.queued_total() == 0) {
    out << "no run holds a slot or waits for one\n";
    return;
  }
  Table table({"#", "RUN", "JOB", "PRIORITY", "STATUS", "QUEUED", "TRIGGERED"});
  for (const v1::Run& run : queue.running()) table.AddRow(QueueRow("-", run, zone));
  for (int i = 0; i < queue.queued_size(); ++i) {
    table.AddRow(QueueRow(absl::StrCat(i + 1), queue.queued(i), zone));
  }
  table.Render(out);
  if (queue.queued_total() > queue.queued_size()) {
    out << queue.queued_total() << " queued in all (the first " << queue.queued_size()
        << " shown)\n";
  }
}

}  // namespace gnomon::cli
