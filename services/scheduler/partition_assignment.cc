#include "services/scheduler/partition_assignment.h"

#include <cstdint>

namespace gnomon::scheduler {
namespace {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// splitmix64's finaliser: spreads (replica hash, partition) over 64 bits.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<int> PartitionsFor(const std::string& replica, const std::vector<std::string>& replicas,
                               int partition_count) {
  std::vector<int> mine;
  const uint64_t self = Fnv1a(replica);
  for (int p = 0; p < partition_count; ++p) {
    const uint64_t my_weight = Mix(self ^ Mix(static_cast<uint64_t>(p)));
    bool best = true;
    for (const std::string& other : replicas) {
      if (other == replica) continue;
      const uint64_t w = Mix(Fnv1a(other) ^ Mix(static_cast<uint64_t>(p)));
      // Ties (astronomically rare) go to the smaller name.
      if (w > my_weight || (w == my_weight && other < replica)) {
        best = false;
        break;
      }
    }
    if (best) mine.push_back(p);
  }
  return mine;
}

}  // namespace gnomon::scheduler
