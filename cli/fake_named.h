// What the fake JobAdmin (fake_servers.h; test only) keeps of the objects
// the server keeps by name (calendars, alarm channels, pools): stored in memory and
// answered as admin.proto describes the server's: ids and times assigned, an
// unknown name NOT_FOUND, a name taken ALREADY_EXISTS, and a delete refused
// (FAILED_PRECONDITION) while a name in `in_use` names it. FakeCalendars,
// FakeAlarmChannels and FakePools put the requests of their kind in front of
// it.
//
//   FakeNamed<v1::Calendar> calendars({"calendar", "a calendar", "calendar"});
//   v1::Calendar created;
//   calendars.Create(calendar, &created);   // created.id() == 1
//   calendars.Known("job.schedule.calendar", "workdays");  // OK, or NOT_FOUND
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_NAMED_H_
#define GNOMON_CLI_FAKE_NAMED_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

// How messages name the kind.
struct NamedKind {
  // "calendar": "no calendar is named 'x'", "gnomonctl calendar list".
  std::string what;
  // "a calendar": "a calendar is named 'x'".
  std::string a_what;
  // The request's field: "calendar.name: ...".
  std::string field;
  // The gnomonctl noun: "(gnomonctl calendar list)".
  std::string noun;
};

template <typename T>
class FakeNamed {
 public:
  explicit FakeNamed(NamedKind kind) : kind_(std::move(kind)) {}

  // Stored objects, by name.
  std::map<std::string, T> stored;
  // Names a job or workflow names, refused by Delete.
  std::set<std::string> in_use;
  int64_t next_id = 1;
  // Creation and update times of what it stores: 2024-05-01T12:00:00Z.
  int64_t now_seconds = 1714564800;

  grpc::Status Create(T item, T* resp) {
    if (item.name().empty()) {
      return Status(grpc::StatusCode::INVALID_ARGUMENT, kind_.field + ".name is required");
    }
    if (stored.count(item.name()) > 0) {
      return Status(
          grpc::StatusCode::ALREADY_EXISTS,
          absl::StrCat(kind_.field, ".name: ", kind_.a_what, " is named '", item.name(), "'"));
    }
    item.set_id(next_id++);
    item.mutable_create_time()->set_seconds(now_seconds);
    item.mutable_update_time()->set_seconds(now_seconds);
    *resp = stored[item.name()] = std::move(item);
    return grpc::Status::OK;
  }

  grpc::Status Get(const std::string& name, T* resp) const {
    auto it = stored.find(name);
    if (it == stored.end()) return NotFound("name", name);
    *resp = it->second;
    return grpc::Status::OK;
  }

  // Replaces the stored object of item.name(), keeping its id and creation time.
  grpc::Status Replace(T item, T* resp) {
    auto it = stored.find(item.name());
    if (it == stored.end()) return NotFound(kind_.field + ".name", item.name());
    item.set_id(it->second.id());
    *item.mutable_create_time() = it->second.create_time();
    item.mutable_update_time()->set_seconds(now_seconds + 60);
    *resp = it->second = std::move(item);
    return grpc::Status::OK;
  }

  grpc::Status Delete(const std::string& name) {
    if (stored.count(name) == 0) return NotFound("name", name);
    if (in_use.count(name) > 0) {
      return Status(grpc::StatusCode::FAILED_PRECONDITION,
                    absl::StrCat(kind_.what, " '", name, "' is named by job 7"));
    }
    stored.erase(name);
    return grpc::Status::OK;
  }

  // OK when `name` is stored; else NOT_FOUND naming `field`, as the server
  // answers a job naming one that does not exist.
  grpc::Status Known(const std::string& field, const std::string& name) const {
    if (stored.count(name) > 0) return grpc::Status::OK;
    return Status(grpc::StatusCode::NOT_FOUND,
                  absl::StrCat(field, ": no ", kind_.what, " is named '", name, "' (gnomonctl ",
                               kind_.noun, " list)"));
  }

 private:
  static grpc::Status Status(grpc::StatusCode code, const std::string& message) {
    return grpc::Status(code, message);
  }
  grpc::Status NotFound(const std::string& field, const std::string& name) const {
    return Status(grpc::StatusCode::NOT_FOUND,
                  absl::StrCat(field, ": no ", kind_.what, " is named '", name, "'"));
  }

  NamedKind kind_;
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_NAMED_H_
