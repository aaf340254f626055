#include "services/executor-sdk/src/run_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/common/status/status_macros.h"

namespace gnomon::executor::internal {
namespace {

absl::Status Errno(std::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(absl::string_view(what.data(), what.size()), " ", path,
                                          ": ", std::strerror(errno)));
}

absl::Status MakeDirs(const std::string& dir) {
  std::string partial;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || (dir[i] == '/' && i > 0)) {
      partial = dir.substr(0, i);
      if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
        return Errno("cannot create", partial);
      }
    }
  }
  return absl::OkStatus();
}

// Record header: payload length, checksum of id + payload, id.
constexpr size_t kHeaderBytes = 4 + 4 + 8;

uint32_t Checksum(uint64_t id, const std::string& payload) {
  uint32_t h = 2166136261u;  // FNV-1a; detects torn and garbled records.
  auto mix = [&h](unsigned char c) { h = (h ^ c) * 16777619u; };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(id >> (8 * i)));
  for (char c : payload) mix(static_cast<unsigned char>(c));
  return h;
}

void PutLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetLe(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::string SegmentPath(const std::string& dir, uint64_t first_id) {
  return absl::StrFormat("%s/%020u.seg", dir, first_id);
}

// Calls `fn(id, payload)` for each whole, intact record of a segment's bytes
// and returns where the intact records end.
template <typename Fn>
size_t ParseRecords(const std::string& data, Fn fn) {
  size_t off = 0;
  while (off + kHeaderBytes <= data.size()) {
    const uint64_t len = GetLe(data.data() + off, 4);
    const uint32_t sum = static_cast<uint32_t>(GetLe(data.data() + off + 4, 4));
    const uint64_t id = GetLe(data.data() + off + 8, 8);
    if (off + kHeaderBytes + len > data.size()) break;  // Torn tail.
    std::string payload = data.substr(off + kHeaderBytes, len);
    if (Checksum(id, payload) != sum || !fn(id, payload)) break;
    off += kHeaderBytes + len;
  }
  return off;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Errno("cannot read", path);
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  std::fclose(f);
  return data;
}

// The first ids of the segments in `dir`, ascending.
absl::StatusOr<std::vector<uint64_t>> ListSegments(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Errno("cannot open", dir);
  std::vector<uint64_t> firsts;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    uint64_t first = 0;
    if (absl::EndsWith(name, ".seg") && absl::SimpleAtoi(name.substr(0, name.size() - 4), &first)) {
      firsts.push_back(first);
    }
  }
  ::closedir(d);
  std::sort(firsts.begin(), firsts.end());
  return firsts;
}

absl::Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path);
    }
    off += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void SyncDir(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<RunSpool>> RunSpool::Open(const std::string& dir) {
  std::unique_ptr<RunSpool> spool(new RunSpool(dir));
  if (dir.empty()) return spool;
  RETURN_IF_ERROR(MakeDirs(dir));
  std::string lock_path = dir + "/LOCK";
  spool->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (spool->lock_fd_ < 0) return Errno("cannot open", lock_path);
  if (::flock(spool->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("spool directory ", dir, " is in use by another executor process"));
  }
  RETURN_IF_ERROR(spool->Load());
  return spool;
}

RunSpool::~RunSpool() {
  absl::MutexLock l(&mu_);
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

std::string RunSpool::PathOf(uint64_t first_id) const { return SegmentPath(dir_, first_id); }

absl::Status RunSpool::Load() {
  ASSIGN_OR_RETURN(std::vector<uint64_t> firsts, ListSegments(dir_));
  absl::MutexLock l(&mu_);
  for (uint64_t first : firsts) {
    RETURN_IF_ERROR(LoadSegment(first));
  }
  recovered_ = items_.size();
  for (const auto& [id, item] : items_) {
    if (item.has_result()) recovered_result_runs_.push_back(item.result().run_id());
  }
  written_id_ = synced_id_ = next_id_ - 1;
  for (uint64_t first : firsts) MaybeDelete(first);
  return absl::OkStatus();
}

absl::Status RunSpool::LoadSegment(uint64_t first_id) {
  const std::string path = PathOf(first_id);
  ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  std::vector<std::pair<uint64_t, v1::ReportItem>> parsed;
  const size_t end = ParseRecords(data, [&parsed](uint64_t id, const std::string& payload) {
    v1::ReportItem item;
    if (!item.ParseFromString(payload)) return false;
    parsed.emplace_back(id, std::move(item));
    return true;
  });
  size_t& live = segments_[first_id];
  for (auto& [id, item] : parsed) {
    if (items_.emplace(id, std::move(item)).second) ++live;
    next_id_ = std::max(next_id_, id + 1);
  }
  // Cut a torn tail so that nothing is ever appended after garbage.
  if (end < data.size() && ::truncate(path.c_str(), static_cast<off_t>(end)) != 0) {
    return Errno("cannot truncate", path);
  }
  return absl::OkStatus();
}

size_t RunSpool::CountRecords(const std::string& dir) {
  absl::StatusOr<std::vector<uint64_t>> firsts = ListSegments(dir);
  if (!firsts.ok()) return 0;
  size_t n = 0;
  for (uint64_t first : *firsts) {
    absl::StatusOr<std::string> data = ReadFile(SegmentPath(dir, first));
    if (data.ok()) ParseRecords(*data, [&n](uint64_t, const std::string&) { return ++n, true; });
  }
  return n;
}

absl::Status RunSpool::StartSegment(uint64_t first_id) {
  if (fd_ >= 0) {
    // What it holds was appended but maybe not yet synced.
    if (::fdatasync(fd_) == 0) synced_id_ = written_id_;
    ::close(fd_);
    fd_ = -1;
    const uint64_t old = current_;
    current_ = 0;
    MaybeDelete(old);
  }
  const std::string path = PathOf(first_id);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) return Errno("cannot create", path);
  SyncDir(dir_);  // The new file's name must survive a crash too.
  current_ = first_id;
  current_bytes_ = 0;
  segments_[first_id];
  return absl::OkStatus();
}

void RunSpool::MaybeDelete(uint64_t first_id) {
  auto it = segments_.find(first_id);
  if (it == segments_.end() || it->second > 0 || (fd_ >= 0 && first_id == current_)) return;
  ::unlink(PathOf(first_id).c_str());
  segments_.erase(it);
}

uint64_t RunSpool::Append(const v1::ReportItem& item, absl::Status* disk_status) {
  absl::MutexLock l(&mu_);
  const uint64_t id = next_id_++;
  v1::ReportItem& stored = items_[id];
  stored = item;
  stored.clear_sequence();
  if (dir_.empty()) return id;
  absl::Status s;
  // Rotate a full segment, unless a sync is using its descriptor right now.
  if (fd_ < 0 || (current_bytes_ >= kSegmentBytes && !syncing_)) s = StartSegment(id);
  if (s.ok()) {
    const std::string payload = stored.SerializeAsString();
    std::string record;
    record.reserve(kHeaderBytes + payload.size());
    PutLe(record, payload.size(), 4);
    PutLe(record, Checksum(id, payload), 4);
    PutLe(record, id, 8);
    record += payload;
    s = WriteAll(fd_, record, PathOf(current_));
    if (s.ok()) {
      current_bytes_ += record.size();
      ++segments_[current_];
      written_id_ = id;
    }
  }
  if (disk_status != nullptr) *disk_status = s;
  return id;
}

absl::Status RunSpool::SyncThrough(uint64_t id) {
  absl::MutexLock l(&mu_);
  if (dir_.empty()) return absl::OkStatus();
  while (synced_id_ < id) {
    if (syncing_) {
      // Another caller is syncing; its sync may cover `id`.
      auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !syncing_; };
      mu_.Await(absl::Condition(&done));
      continue;
    }
    if (fd_ < 0 || written_id_ < id)
      return absl::DataLossError("item was not written to the spool");
    syncing_ = true;
    const uint64_t target = written_id_;
    const int fd = fd_;
    mu_.Unlock();
    const int rc = ::fdatasync(fd);
    mu_.Lock();
    syncing_ = false;
    if (rc != 0) return Errno("cannot sync", PathOf(current_));
    synced_id_ = std::max(synced_id_, target);
  }
  return absl::OkStatus();
}

void RunSpool::Remove(uint64_t id) {
  absl::MutexLock l(&mu_);
  if (items_.erase(id) == 0) return;
  auto seg = segments_.upper_bound(id);
  if (seg == segments_.begin()) return;
  --seg;
  if (seg->second > 0) --seg->second;
  MaybeDelete(seg->first);
}

const std::pair<const uint64_t, v1::ReportItem>* RunSpool::Next(uint64_t after) const {
  absl::MutexLock l(&mu_);
  auto it = items_.upper_bound(after);
  return it == items_.end() ? nullptr : &*it;
}

size_t RunSpool::size() const {
  absl::MutexLock l(&mu_);
  return items_.size();
}

std::optional<absl::Time> RunSpool::OldestResultEnd() const {
  absl::MutexLock l(&mu_);
  // From the oldest item to the first result (at scrape time only).
  for (const auto& [id, item] : items_) {
    if (!item.has_result()) continue;
    const google::protobuf::Timestamp& end = item.result().end_time();
    return absl::FromUnixSeconds(end.seconds()) + absl::Nanoseconds(end.nanos());
  }
  return std::nullopt;
}

}  // namespace gnomon::executor::internal
