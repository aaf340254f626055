#include "services/common/server/method_credentials.h"

#include "absl/container/flat_hash_map.h"

namespace gnomon {
namespace {

struct Rule {
  Credential credential;
  Permission permission;
};
using Table = absl::flat_hash_map<std::string, Rule>;

struct Row {
  const char* service;
  const char* method;
  Credential credential;
  Permission permission;
};

constexpr Credential kAdmin = Credential::kAdmin, kGroup = Credential::kGroupOfApp;
constexpr Permission kRead = Permission::kRead, kOperate = Permission::kOperate,
                     kAdminister = Permission::kAdminister;
constexpr char kJobAdmin[] = "gnomon.v1.JobAdmin", kLog[] = "gnomon.v1.LogService",
               kRegistry[] = "gnomon.v1.Registry", kDispatch[] = "gnomon.v1.Dispatch";
constexpr Row kRows[] = {
    {kJobAdmin, "CreateGroup", kAdmin, kAdminister},
    {kJobAdmin, "GetGroup", kAdmin, kRead},
    {kJobAdmin, "ListGroups", kAdmin, kRead},
    {kJobAdmin, "UpdateGroup", kAdmin, kAdminister},
    {kJobAdmin, "DeleteGroup", kAdmin, kAdminister},
    {kJobAdmin, "RotateGroupToken", kAdmin, kAdminister},
    {kJobAdmin, "CreateJob", kAdmin, kOperate},
    {kJobAdmin, "BatchCreateJobs", kAdmin, kOperate},
    {kJobAdmin, "GetJob", kAdmin, kRead},
    {kJobAdmin, "ListJobs", kAdmin, kRead},
    {kJobAdmin, "UpdateJob", kAdmin, kOperate},
    {kJobAdmin, "DeleteJob", kAdmin, kOperate},
    {kJobAdmin, "StartJob", kAdmin, kOperate},
    {kJobAdmin, "StopJob", kAdmin, kOperate},
    {kJobAdmin, "TriggerJob", kAdmin, kOperate},
    {kJobAdmin, "PreviewSchedule", kAdmin, kRead},
    {kJobAdmin, "Backfill", kAdmin, kOperate},
    {kJobAdmin, "ListScriptVersions", kAdmin, kRead},
    {kJobAdmin, "GetScriptVersion", kAdmin, kRead},
    {kJobAdmin, "RollbackScript", kAdmin, kOperate},
    {kJobAdmin, "ListRuns", kAdmin, kRead},
    {kJobAdmin, "GetRun", kAdmin, kRead},
    {kJobAdmin, "KillRun", kAdmin, kOperate},
    {kJobAdmin, "CreateWorkflow", kAdmin, kOperate},
    {kJobAdmin, "GetWorkflow", kAdmin, kRead},
    {kJobAdmin, "ListWorkflows", kAdmin, kRead},
    {kJobAdmin, "UpdateWorkflow", kAdmin, kOperate},
    {kJobAdmin, "DeleteWorkflow", kAdmin, kOperate},
    {kJobAdmin, "TriggerWorkflow", kAdmin, kOperate},
    {kJobAdmin, "GetWorkflowRun", kAdmin, kRead},
    {kJobAdmin, "ListWorkflowRuns", kAdmin, kRead},
    {kJobAdmin, "CancelWorkflowRun", kAdmin, kOperate},
    {kJobAdmin, "RerunWorkflowNode", kAdmin, kOperate},
    {kJobAdmin, "SkipWorkflowNode", kAdmin, kOperate},
    {kJobAdmin, "MarkWorkflowNodeSucceeded", kAdmin, kOperate},
    {kJobAdmin, "CreateCalendar", kAdmin, kAdminister},
    {kJobAdmin, "GetCalendar", kAdmin, kRead},
    {kJobAdmin, "ListCalendars", kAdmin, kRead},
    {kJobAdmin, "UpdateCalendar", kAdmin, kAdminister},
    {kJobAdmin, "DeleteCalendar", kAdmin, kAdminister},
    {kJobAdmin, "CreatePool", kAdmin, kAdminister},
    {kJobAdmin, "GetPool", kAdmin, kRead},
    {kJobAdmin, "ListPools", kAdmin, kRead},
    {kJobAdmin, "UpdatePool", kAdmin, kAdminister},
    {kJobAdmin, "DeletePool", kAdmin, kAdminister},
    {kJobAdmin, "ListPoolQueue", kAdmin, kRead},
    {kJobAdmin, "CreateAlarmChannel", kAdmin, kAdminister},
    {kJobAdmin, "GetAlarmChannel", kAdmin, kRead},
    {kJobAdmin, "ListAlarmChannels", kAdmin, kRead},
    {kJobAdmin, "UpdateAlarmChannel", kAdmin, kAdminister},
    {kJobAdmin, "DeleteAlarmChannel", kAdmin, kAdminister},
    {kJobAdmin, "TestAlarmChannel", kAdmin, kAdminister},
    {kJobAdmin, "ListAudit", kAdmin, kAdminister},
    {kJobAdmin, "CreateToken", kAdmin, kAdminister},
    {kJobAdmin, "ListTokens", kAdmin, kAdminister},
    {kJobAdmin, "RevokeToken", kAdmin, kAdminister},
    {kJobAdmin, "CreateUser", kAdmin, kAdminister},
    {kJobAdmin, "ListUsers", kAdmin, kAdminister},
    {kJobAdmin, "UpdateUser", kAdmin, kAdminister},
    {kJobAdmin, "DeleteUser", kAdmin, kAdminister},
    // Any role may log in; what its session may do is the user's role.
    {kJobAdmin, "Login", Credential::kPassword, kRead},
    {kJobAdmin, "Logout", kAdmin, kRead},
    {kJobAdmin, "WhoAmI", kAdmin, kRead},
    {kJobAdmin, "ListExecutors", kAdmin, kRead},
    {kLog, "ReportResults", kGroup, kRead},
    {kLog, "StreamRunLog", kAdmin, kRead},
    {kLog, "GetRun", kAdmin, kRead},
    {kLog, "ListRuns", kAdmin, kRead},
    {kLog, "GetStats", kAdmin, kRead},
    {kRegistry, "Session", kGroup, kRead},
    {kRegistry, "WatchExecutors", Credential::kAdminOrCluster, kRead},
    {kDispatch, "Connect", kGroup, kRead},
};

const Table& MethodTable() {
  static const Table* table = [] {
    auto* t = new Table;
    for (const Row& r : kRows)
      t->emplace(FullMethodName(r.service, r.method), Rule{r.credential, r.permission});
    return t;
  }();
  return *table;
}

const Rule* FindRule(std::string_view full_method) {
  const Table& t = MethodTable();
  auto it = t.find(std::string(full_method));
  return it == t.end() ? nullptr : &it->second;
}

}  // namespace

std::string FullMethodName(std::string_view service, std::string_view method) {
  std::string name = "/";
  return name.append(service).append("/").append(method);
}

const Credential* RequiredCredential(std::string_view full_method) {
  const Rule* r = FindRule(full_method);
  return r == nullptr ? nullptr : &r->credential;
}

const Permission* RequiredPermission(std::string_view full_method) {
  const Rule* r = FindRule(full_method);
  return r == nullptr ? nullptr : &r->permission;
}

}  // namespace gnomon
