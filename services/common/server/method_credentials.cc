#include "services/common/server/method_credentials.h"

#include "absl/container/flat_hash_map.h"

namespace gnomon {
namespace {

using Table = absl::flat_hash_map<std::string, Credential>;

struct Row {
  const char* service;
  const char* method;
  Credential credential;
};

constexpr Credential kAdmin = Credential::kAdmin, kGroup = Credential::kGroupOfApp;
constexpr char kJobAdmin[] = "gnomon.v1.JobAdmin", kLog[] = "gnomon.v1.LogService",
               kRegistry[] = "gnomon.v1.Registry";
constexpr Row kRows[] = {
    {kJobAdmin, "CreateGroup", kAdmin},    {kJobAdmin, "GetGroup", kAdmin},
    {kJobAdmin, "ListGroups", kAdmin},     {kJobAdmin, "UpdateGroup", kAdmin},
    {kJobAdmin, "DeleteGroup", kAdmin},    {kJobAdmin, "RotateGroupToken", kAdmin},
    {kJobAdmin, "CreateJob", kAdmin},      {kJobAdmin, "BatchCreateJobs", kAdmin},
    {kJobAdmin, "GetJob", kAdmin},         {kJobAdmin, "ListJobs", kAdmin},
    {kJobAdmin, "UpdateJob", kAdmin},      {kJobAdmin, "DeleteJob", kAdmin},
    {kJobAdmin, "StartJob", kAdmin},       {kJobAdmin, "StopJob", kAdmin},
    {kJobAdmin, "TriggerJob", kAdmin},     {kJobAdmin, "PreviewSchedule", kAdmin},
    {kJobAdmin, "Backfill", kAdmin},       {kJobAdmin, "ListRuns", kAdmin},
    {kJobAdmin, "GetRun", kAdmin},         {kJobAdmin, "KillRun", kAdmin},
    {kJobAdmin, "ListAudit", kAdmin},      {kJobAdmin, "CreateToken", kAdmin},
    {kJobAdmin, "ListTokens", kAdmin},     {kJobAdmin, "RevokeToken", kAdmin},
    {kLog, "ReportResults", kGroup},       {kLog, "StreamRunLog", kAdmin},
    {kLog, "GetRun", kAdmin},              {kLog, "ListRuns", kAdmin},
    {kLog, "GetReport", kAdmin},           {kRegistry, "Session", kGroup},
    {kRegistry, "WatchExecutors", Credential::kAdminOrCluster},
};

const Table& MethodTable() {
  static const Table* table = [] {
    auto* t = new Table;
    for (const Row& r : kRows) t->emplace(FullMethodName(r.service, r.method), r.credential);
    return t;
  }();
  return *table;
}

}  // namespace

std::string FullMethodName(std::string_view service, std::string_view method) {
  std::string name = "/";
  return name.append(service).append("/").append(method);
}

const Credential* RequiredCredential(std::string_view full_method) {
  const Table& t = MethodTable();
  auto it = t.find(std::string(full_method));
  return it == t.end() ? nullptr : &it->second;
}

}  // namespace gnomon
