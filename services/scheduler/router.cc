#include "services/scheduler/router.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace gnomon::scheduler {

uint64_t StableHash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // Final avalanche (splitmix64) so nearby keys spread over the ring.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

namespace {

class FirstRouter final : public Router {
 public:
  absl::StatusOr<std::string> Pick(int64_t, const std::vector<v1::ExecutorInfo>& e) override {
    return e.front().address();
  }
};

class LastRouter final : public Router {
 public:
  absl::StatusOr<std::string> Pick(int64_t, const std::vector<v1::ExecutorInfo>& e) override {
    return e.back().address();
  }
};

class RandomRouter final : public Router {
 public:
  absl::StatusOr<std::string> Pick(int64_t, const std::vector<v1::ExecutorInfo>& e) override {
    absl::MutexLock l(&mu_);
    return e[std::uniform_int_distribution<size_t>(0, e.size() - 1)(rng_)].address();
  }

 private:
  absl::Mutex mu_;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_){std::random_device{}()};
};

// Per-job counter starting at a random offset, so jobs created together do
// not all start on the first executor (XXL-JOB does the same).
class RoundRouter final : public Router {
 public:
  absl::StatusOr<std::string> Pick(int64_t job, const std::vector<v1::ExecutorInfo>& e) override {
    absl::MutexLock l(&mu_);
    auto [it, inserted] = counters_.try_emplace(job, 0);
    if (inserted) it->second = std::uniform_int_distribution<uint64_t>(0, 1u << 20)(rng_);
    return e[it->second++ % e.size()].address();
  }

 private:
  absl::Mutex mu_;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_){std::random_device{}()};
  absl::flat_hash_map<int64_t, uint64_t> counters_ ABSL_GUARDED_BY(mu_);
};

// A ring of 128 virtual nodes per executor; the job id's hash picks the
// first node clockwise, so a membership change moves about 1/N of the jobs.
// The ring is rebuilt only when the executor set changes.
class ConsistentHashRouter final : public Router {
 public:
  static constexpr int kVirtualNodes = 128;
  absl::StatusOr<std::string> Pick(int64_t job, const std::vector<v1::ExecutorInfo>& e) override {
    std::vector<std::string> addresses;
    addresses.reserve(e.size());
    for (const auto& x : e) addresses.push_back(x.address());
    const uint64_t h = StableHash(absl::StrCat("job-", job));
    absl::MutexLock l(&mu_);
    if (addresses != addresses_) {
      addresses_ = std::move(addresses);
      ring_.clear();
      for (size_t i = 0; i < addresses_.size(); ++i) {
        for (int v = 0; v < kVirtualNodes; ++v) {
          ring_.emplace_back(StableHash(absl::StrCat(addresses_[i], "#", v)), i);
        }
      }
      std::sort(ring_.begin(), ring_.end());
    }
    auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(h, size_t{0}));
    if (it == ring_.end()) it = ring_.begin();
    return addresses_[it->second];
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> addresses_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<uint64_t, size_t>> ring_ ABSL_GUARDED_BY(mu_);
};

// Least frequently / least recently used, per job (ties: address order).
class UsageRouter final : public Router {
 public:
  explicit UsageRouter(bool frequency) : frequency_(frequency) {}
  absl::StatusOr<std::string> Pick(int64_t job, const std::vector<v1::ExecutorInfo>& e) override {
    absl::MutexLock l(&mu_);
    auto& usage = usage_[job];
    // Forget executors that left so the map does not grow without bound.
    for (auto it = usage.begin(); it != usage.end();) {
      bool live =
          std::any_of(e.begin(), e.end(), [&](const auto& x) { return x.address() == it->first; });
      if (live) {
        ++it;
      } else {
        usage.erase(it++);
      }
    }
    const std::string* best = nullptr;
    uint64_t best_value = 0;
    for (const auto& x : e) {
      uint64_t v = usage.contains(x.address()) ? usage[x.address()] : 0;
      if (best == nullptr || v < best_value) {
        best = &x.address();
        best_value = v;
      }
    }
    ++tick_;
    usage[*best] = frequency_ ? best_value + 1 : tick_;
    return *best;
  }

 private:
  const bool frequency_;
  absl::Mutex mu_;
  uint64_t tick_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<int64_t, absl::flat_hash_map<std::string, uint64_t>> usage_
      ABSL_GUARDED_BY(mu_);
};

class FailoverRouter final : public Router {
 public:
  explicit FailoverRouter(ExecutorProbe* probe) : probe_(probe) {}
  absl::StatusOr<std::string> Pick(int64_t, const std::vector<v1::ExecutorInfo>& e) override {
    for (const auto& x : e) {
      if (probe_->Alive(x)) return x.address();
    }
    return absl::UnavailableError(
        absl::StrCat("failover: none of ", e.size(), " executors answered a beat"));
  }

 private:
  ExecutorProbe* const probe_;
};

// First executor idle for the job. Beats first (no network): an executor
// whose beat lists every busy job and not this one is idle. Then IdleBeat:
// first where the beat's list is partial and does not name the job (it may
// be busy there, unlisted), then where the beat says busy, in case it is stale.
class BusyoverRouter final : public Router {
 public:
  explicit BusyoverRouter(ExecutorProbe* probe) : probe_(probe) {}
  absl::StatusOr<std::string> Pick(int64_t job, const std::vector<v1::ExecutorInfo>& e) override {
    std::vector<const v1::ExecutorInfo*> unknown, busy;
    for (const auto& x : e) {
      switch (ByBeat(x, job)) {
        case Beat::kIdle:
          return x.address();
        case Beat::kUnknown:
          unknown.push_back(&x);
          break;
        case Beat::kBusy:
          busy.push_back(&x);
          break;
      }
    }
    for (const auto* candidates : {&unknown, &busy}) {
      for (const v1::ExecutorInfo* x : *candidates) {
        if (probe_->Idle(*x, job)) return x->address();
      }
    }
    return absl::UnavailableError(
        absl::StrCat("busyover: job ", job, " is busy on all ", e.size(), " executors"));
  }

 private:
  enum class Beat { kIdle, kBusy, kUnknown };
  static Beat ByBeat(const v1::ExecutorInfo& x, int64_t job) {
    for (const auto& b : x.busy_jobs()) {
      if (b.job_id() == job) return b.running() > 0 || b.queued() > 0 ? Beat::kBusy : Beat::kIdle;
    }
    return x.busy_jobs_partial() ? Beat::kUnknown : Beat::kIdle;
  }
  ExecutorProbe* const probe_;
};

}  // namespace

std::unique_ptr<Router> MakeRouter(v1::RouteStrategy strategy, ExecutorProbe* probe) {
  switch (strategy) {
    case v1::ROUTE_STRATEGY_LAST:
      return std::make_unique<LastRouter>();
    case v1::ROUTE_STRATEGY_ROUND:
      return std::make_unique<RoundRouter>();
    case v1::ROUTE_STRATEGY_RANDOM:
      return std::make_unique<RandomRouter>();
    case v1::ROUTE_STRATEGY_CONSISTENT_HASH:
      return std::make_unique<ConsistentHashRouter>();
    case v1::ROUTE_STRATEGY_LEAST_FREQUENTLY_USED:
      return std::make_unique<UsageRouter>(true);
    case v1::ROUTE_STRATEGY_LEAST_RECENTLY_USED:
      return std::make_unique<UsageRouter>(false);
    case v1::ROUTE_STRATEGY_FAILOVER:
      return std::make_unique<FailoverRouter>(probe);
    case v1::ROUTE_STRATEGY_BUSYOVER:
      return std::make_unique<BusyoverRouter>(probe);
    default:
      return std::make_unique<FirstRouter>();
  }
}

bool ClientProbe::Alive(const v1::ExecutorInfo& executor) {
  return executors_->Beat(executor.address(), executor.app_name(), absl::Seconds(1));
}

bool ClientProbe::Idle(const v1::ExecutorInfo& executor, int64_t job_id) {
  return executors_->Idle(executor.address(), executor.app_name(), job_id, absl::Seconds(1));
}

}  // namespace gnomon::scheduler
