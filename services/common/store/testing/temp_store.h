// TempStore: a fresh SQLite store in a temp directory of its own, removed
// with it — a real store for unit tests, without a server.
//
//   TempStore store;
//   ASSERT_TRUE(store.status().ok()) << store.status();
//   absl::StatusOr<v1::Group> g = store.AddGroup("billing", "token", now_ms);
//   absl::StatusOr<v1::Job> j = store->CreateJob(job, state, next_fire_ms, now_ms);
//
// Thread safety: as the store; construct and destroy on one thread.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_TEMP_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_TEMP_STORE_H_

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "services/common/store/store.h"

namespace gnomon::store::testing {

class TempStore {
 public:
  TempStore() {
    std::string dir = (std::filesystem::temp_directory_path() / "gnomon-store-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) {
      status_ = absl::InternalError("mkdtemp failed");
      return;
    }
    dir_ = dir;
    absl::StatusOr<std::unique_ptr<store::Store>> s =
        store::OpenStore("sqlite:" + dir + "/gnomon.db", {});
    if (s.ok()) {
      store_ = *std::move(s);
    } else {
      status_ = s.status();
    }
  }
  ~TempStore() {
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;

  const absl::Status& status() const { return status_; }
  // Creates a group of `app` whose executors present `token`.
  absl::StatusOr<v1::Group> AddGroup(const std::string& app, const std::string& token,
                                     int64_t now_ms) {
    v1::Group g;
    g.set_app_name(app);
    g.set_access_token(token);
    return store_->CreateGroup(g, now_ms);
  }
  store::Store* get() const { return store_.get(); }
  store::Store* operator->() const { return store_.get(); }

 private:
  std::string dir_;
  absl::Status status_;
  std::unique_ptr<store::Store> store_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_TEMP_STORE_H_
