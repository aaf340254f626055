// Partition assignment: which scheduler partitions a replica should hold,
// given the live replicas. Rendezvous (highest-random-weight) hashing: each
// partition goes to the replica with the highest hash of (partition,
// replica), so every replica computes the same answer without talking to
// the others, shares come out near even, and a replica joining or leaving
// moves only the partitions it gains or loses.
//
//   std::vector<int> mine = PartitionsFor("host-1:7070", {"host-1:7070", "host-2:7070"}, 64);
//
// The hash is fixed (not absl::Hash, which differs per process) so replicas
// of one version agree.
#ifndef GNOMON_SERVICES_SCHEDULER_PARTITION_ASSIGNMENT_H_
#define GNOMON_SERVICES_SCHEDULER_PARTITION_ASSIGNMENT_H_

#include <string>
#include <vector>

namespace gnomon::scheduler {

// The partitions (0 .. partition_count-1, ascending) that `replica` should
// hold among `replicas` (which should include it; order and duplicates do
// not matter).
std::vector<int> PartitionsFor(const std::string& replica, const std::vector<std::string>& replicas,
                               int partition_count);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_PARTITION_ASSIGNMENT_H_
