// ConcurrencyCap: how many long calls (log follows) may be open at once, per
// key (a credential) and in all, so one caller cannot hold every server
// thread or connection slot, and all callers together cannot exhaust them.
//
//   ConcurrencyCap follows(/*per_key=*/8, /*total=*/256);
//   std::optional<ConcurrencyCap::Permit> p = follows.TryAcquire(caller.credential);
//   if (!p) return ResourceExhausted(...);  // The permit is released when p goes.
//
// A limit <= 0 is no limit. Keys are credential identities, never secrets;
// a key with no open call holds no memory.
//
// Thread safety: thread-safe; a Permit must not outlive its cap.
#ifndef GNOMON_SERVICES_COMMON_SERVER_CONCURRENCY_CAP_H_
#define GNOMON_SERVICES_COMMON_SERVER_CONCURRENCY_CAP_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace gnomon {

class ConcurrencyCap {
 public:
  ConcurrencyCap(int per_key, int total) : per_key_(per_key), total_(total) {}

  // One open call of `key`'s; released when it is destroyed.
  class Permit {
   public:
    Permit(Permit&& other) noexcept : cap_(other.cap_), key_(std::move(other.key_)) {
      other.cap_ = nullptr;
    }
    Permit& operator=(Permit&&) = delete;
    ~Permit() {
      if (cap_ != nullptr) cap_->Release(key_);
    }

   private:
    friend class ConcurrencyCap;
    Permit(ConcurrencyCap* cap, std::string key) : cap_(cap), key_(std::move(key)) {}
    ConcurrencyCap* cap_;
    std::string key_;
  };

  // A permit, or std::nullopt when `key` or everyone is at the limit.
  std::optional<Permit> TryAcquire(std::string_view key) ABSL_LOCKS_EXCLUDED(mu_);
  int per_key() const { return per_key_; }
  int total() const { return total_; }

 private:
  void Release(const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);

  const int per_key_;
  const int total_;
  absl::Mutex mu_;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int> per_key_open_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_CONCURRENCY_CAP_H_
