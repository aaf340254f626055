// SqlStore: alarm channels (the alarm_channel table: a row per channel, the
// rest of it, url and secret included, in `spec`). The jobs naming a channel
// (AlarmTargets.channels) have no column of their own: a delete reads every
// job's spec.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// The channel as stored: as given, without what has columns of its own
// (its kind stays in the spec too; the column is for SQL readers).
std::string AlarmChannelSpec(const v1::AlarmChannel& channel) {
  v1::AlarmChannel spec = channel;
  spec.clear_id();
  spec.clear_name();
  spec.clear_create_time();
  spec.clear_update_time();
  return spec.SerializeAsString();
}

// A row of kAlarmChannelColumns.
absl::StatusOr<v1::AlarmChannel> AlarmChannelFromRow(const SqlRow& row) {
  v1::AlarmChannel channel;
  if (!channel.ParseFromString(ColStr(row, 3))) {
    return absl::InternalError(absl::StrCat("alarm channel '", ColStr(row, 1), "': corrupt spec"));
  }
  channel.set_id(ColInt(row, 0));
  channel.set_name(ColStr(row, 1));
  SetMs(ColInt(row, 4), channel.mutable_create_time());
  SetMs(ColInt(row, 5), channel.mutable_update_time());
  return channel;
}

absl::Status Missing(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("alarm channel '", name, "' does not exist"));
}

absl::StatusOr<v1::AlarmChannel> ReadAlarmChannel(SqlConn& c, const Statements& sql,
                                                  const std::string& name) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_alarm_channel, {SqlText(name)}));
  if (rows.empty()) return Missing(name);
  return AlarmChannelFromRow(rows.front());
}

// An update time for a channel written at now_ms: later than every
// channel's, not only this one's, so the channels' version moves even when
// another was written in the same millisecond (or by a replica whose clock
// is behind). The lock keeps two writes from both taking the same time.
absl::StatusOr<int64_t> NextUpdateMs(SqlConn& c, const Statements& sql, int64_t now_ms) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.lock_alarm_channels_newest_update, {}));
  const int64_t newest = rows.empty() ? 0 : ColInt(rows.front(), 0);
  return std::max(now_ms, newest + 1);
}

}  // namespace

absl::StatusOr<v1::AlarmChannel> SqlStore::CreateAlarmChannel(const v1::AlarmChannel& channel,
                                                              int64_t now_ms) {
  absl::StatusOr<v1::AlarmChannel> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(const int64_t update_ms, NextUpdateMs(c, sql_, now_ms));
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_alarm_channel,
                 {SqlText(channel.name()), SqlInt(channel.kind()),
                  SqlBytes(AlarmChannelSpec(channel)), SqlInt(now_ms), SqlInt(update_ms)});
    if (absl::IsAlreadyExists(id.status())) {
      return absl::AlreadyExistsError(absl::StrCat("alarm_channel.name: an alarm channel named '",
                                                   channel.name(), "' already exists"));
    }
    RETURN_IF_ERROR(id.status());
    out = ReadAlarmChannel(c, sql_, channel.name());
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::AlarmChannel> SqlStore::GetAlarmChannel(std::string_view name) {
  const std::string n(name);
  absl::StatusOr<v1::AlarmChannel> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadAlarmChannel(c, sql_, n);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::AlarmChannel>> SqlStore::ListAlarmChannels() {
  std::vector<v1::AlarmChannel> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_alarm_channels, {}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::AlarmChannel channel, AlarmChannelFromRow(row));
      out.push_back(std::move(channel));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::AlarmChannel> SqlStore::UpdateAlarmChannel(const v1::AlarmChannel& channel,
                                                              int64_t now_ms) {
  const std::string& name = channel.name();
  absl::StatusOr<v1::AlarmChannel> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(const int64_t update_ms, NextUpdateMs(c, sql_, now_ms));
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.update_alarm_channel,
                            {SqlInt(channel.kind()), SqlBytes(AlarmChannelSpec(channel)),
                             SqlInt(update_ms), SqlText(name)}));
    if (r.affected_rows == 0) return Missing(name);
    out = ReadAlarmChannel(c, sql_, name);
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeleteAlarmChannel(std::string_view name) {
  const std::string n(name);
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(ReadAlarmChannel(c, sql_, n).status());
    ASSIGN_OR_RETURN(int64_t user, FirstJobWhere(c, sql_, [&](const v1::Job& job) {
                       const auto& channels = job.alarm().channels();
                       return std::find(channels.begin(), channels.end(), n) != channels.end();
                     }));
    if (user != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("alarm channel '", n, "' is named by job ", user));
    }
    return c.Exec(sql_.delete_alarm_channel, {SqlText(n)}).status();
  });
}

absl::StatusOr<TableVersion> SqlStore::GetAlarmChannelsVersion() {
  TableVersion out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_alarm_channels_version, {}));
    if (rows.empty()) return absl::InternalError("alarm channels version: no row");
    out = {ColInt(rows.front(), 0), ColInt(rows.front(), 1), ColInt(rows.front(), 2)};
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal
