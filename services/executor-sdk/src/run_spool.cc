#include "services/executor-sdk/src/run_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gnomon::executor::internal {
namespace {

absl::Status Errno(std::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(absl::string_view(what.data(), what.size()), " ", path, ": ",
                   std::strerror(errno)));
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

absl::Status WriteFileAtomically(const std::string& path, const std::string& data, bool sync,
                                 const std::string& dir) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", tmp);
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = Errno("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    off += static_cast<size_t>(n);
  }
  if (sync && ::fsync(fd) != 0) {
    absl::Status s = Errno("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status s = Errno("cannot rename", tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  if (sync) {
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<RunSpool>> RunSpool::Open(const std::string& dir) {
  std::unique_ptr<RunSpool> spool(new RunSpool(dir));
  if (dir.empty()) return spool;
  if (absl::Status s = MakeDirs(dir); !s.ok()) return s;
  std::string lock_path = dir + "/LOCK";
  spool->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (spool->lock_fd_ < 0) return Errno("cannot open", lock_path);
  if (::flock(spool->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("spool directory ", dir, " is in use by another executor process"));
  }
  if (absl::Status s = spool->Load(); !s.ok()) return s;
  return spool;
}

RunSpool::~RunSpool() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

std::string RunSpool::PathOf(uint64_t id) const {
  return absl::StrFormat("%s/%020u.item", dir_, id);
}

absl::Status RunSpool::Load() {
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return Errno("cannot open", dir_);
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  for (const std::string& name : names) {
    std::string path = dir_ + "/" + name;
    if (absl::EndsWith(name, ".tmp")) {  // a write interrupted by a crash
      ::unlink(path.c_str());
      continue;
    }
    if (!absl::EndsWith(name, ".item")) continue;
    uint64_t id = 0;
    if (!absl::SimpleAtoi(name.substr(0, name.size() - 5), &id)) continue;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return Errno("cannot read", path);
    std::string data;
    char buf[8192];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
    std::fclose(f);
    v1::ReportResultsRequest item;
    if (!item.ParseFromString(data)) {
      ::unlink(path.c_str());  // torn or foreign file: unusable
      continue;
    }
    items_[id] = std::move(item);
    next_id_ = std::max(next_id_, id + 1);
  }
  recovered_ = items_.size();
  return absl::OkStatus();
}

uint64_t RunSpool::Append(const v1::ReportResultsRequest& item, bool sync,
                          absl::Status* disk_status) {
  uint64_t id = next_id_++;
  v1::ReportResultsRequest& stored = items_[id];
  stored = item;
  stored.clear_sequence();
  if (!dir_.empty()) {
    absl::Status s = WriteFileAtomically(PathOf(id), stored.SerializeAsString(), sync, dir_);
    if (disk_status != nullptr) *disk_status = s;
  }
  return id;
}

void RunSpool::Remove(uint64_t id) {
  if (items_.erase(id) == 0) return;
  if (!dir_.empty()) ::unlink(PathOf(id).c_str());
}

const std::pair<const uint64_t, v1::ReportResultsRequest>* RunSpool::Next(uint64_t after) const {
  auto it = items_.upper_bound(after);
  return it == items_.end() ? nullptr : &*it;
}

}  // namespace gnomon::executor::internal
