#include "services/executor-sdk/src/run_log_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"

namespace gnomon::executor::internal {

using google::protobuf::util::TimeUtil;

RunLogFiles::RunLogFiles(std::string dir, int64_t max_bytes, int retention_days,
                         const Logger* logger)
    : dir_(std::move(dir)),
      max_bytes_(max_bytes),
      retention_days_(retention_days),
      logger_(logger) {}

RunLogFiles::~RunLogFiles() {
  absl::MutexLock lock(&mu_);
  for (auto& [run, f] : open_) {
    if (f.file != nullptr) std::fclose(f.file);
  }
  open_.clear();
}

absl::Status RunLogFiles::Init() {
  if (dir_.empty()) return absl::OkStatus();
  for (size_t i = 1; i <= dir_.size(); ++i) {
    if (i == dir_.size() || dir_[i] == '/') {
      std::string partial = dir_.substr(0, i);
      if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
        return absl::InternalError(
            absl::StrCat("cannot create log directory ", partial, ": ", std::strerror(errno)));
      }
    }
  }
  Prune(absl::Now());
  return absl::OkStatus();
}

std::string RunLogFiles::PathOf(int64_t run_id) const {
  return absl::StrCat(dir_, "/", run_id, ".log");
}

void RunLogFiles::Open(int64_t run_id) {
  if (dir_.empty()) return;
  bool prune = false;
  {
    absl::MutexLock lock(&mu_);
    // The file itself is created by the first line: most runs of short
    // handlers log nothing, and a create and close per run is costly.
    open_.try_emplace(run_id, OpenFile{nullptr, 0, false});
    absl::Time now = absl::Now();
    if (now - last_prune_ > absl::Hours(1)) {
      last_prune_ = now;
      prune = true;
    }
  }
  if (prune) Prune(absl::Now());
}

void RunLogFiles::Append(int64_t run_id, const v1::LogLine& line) {
  absl::MutexLock lock(&mu_);
  auto it = open_.find(run_id);
  if (it == open_.end() || it->second.truncated) return;
  OpenFile& f = it->second;
  if (f.file == nullptr) {
    f.file = std::fopen(PathOf(run_id).c_str(), "we");
    if (f.file == nullptr) {
      logger_->Warning(
          absl::StrCat("cannot create run log ", PathOf(run_id), ": ", std::strerror(errno)));
      f.truncated = true;  // No further attempts for this run.
      return;
    }
  }
  std::string record =
      absl::StrCat(line.line_number(), "\t", TimeUtil::TimestampToMilliseconds(line.time()), "\t",
                   line.text(), "\n");
  if (f.bytes + static_cast<int64_t>(record.size()) > max_bytes_) {
    record = absl::StrCat(line.line_number(), "\t", TimeUtil::TimestampToMilliseconds(line.time()),
                          "\t[local run log truncated at ", max_bytes_,
                          " bytes; the log service keeps the rest]\n");
    f.truncated = true;
  }
  std::fwrite(record.data(), 1, record.size(), f.file);
  std::fflush(f.file);
  f.bytes += static_cast<int64_t>(record.size());
}

void RunLogFiles::Close(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  auto it = open_.find(run_id);
  if (it == open_.end()) return;
  if (it->second.file != nullptr) std::fclose(it->second.file);
  open_.erase(it);
}

absl::Status RunLogFiles::Read(int64_t run_id, int64_t from_line,
                               const std::function<bool(const v1::LogLine&)>& fn) const {
  if (dir_.empty()) {
    return absl::NotFoundError("this executor keeps no local run logs (no log directory)");
  }
  std::FILE* f = std::fopen(PathOf(run_id).c_str(), "re");
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("no local log for run ", run_id,
                                            " (it logged nothing here, or it was pruned)"));
  }
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = ::getline(&buf, &cap, f)) > 0) {
    absl::string_view record(buf, static_cast<size_t>(n));
    if (absl::EndsWith(record, "\n")) record.remove_suffix(1);
    std::vector<absl::string_view> parts = absl::StrSplit(record, absl::MaxSplits('\t', 2));
    int64_t number = 0, millis = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &number) ||
        !absl::SimpleAtoi(parts[1], &millis)) {
      continue;  // a line torn by a crash
    }
    if (number < from_line) continue;
    v1::LogLine line;
    line.set_line_number(number);
    *line.mutable_time() = TimeUtil::MillisecondsToTimestamp(millis);
    line.set_text(std::string(parts[2]));
    if (!fn(line)) break;
  }
  std::free(buf);
  std::fclose(f);
  return absl::OkStatus();
}

int RunLogFiles::Prune(absl::Time now) {
  if (dir_.empty() || retention_days_ <= 0) return 0;
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  absl::Time cutoff = now - absl::Hours(24) * retention_days_;
  int removed = 0;
  for (const std::string& name : names) {
    if (!absl::EndsWith(name, ".log")) continue;
    std::string path = dir_ + "/" + name;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    if (absl::FromTimeT(st.st_mtime) < cutoff && ::unlink(path.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace gnomon::executor::internal
