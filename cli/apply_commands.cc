// gnomonctl apply -f FILE|DIR and gnomonctl get
// group|job|jobs|workflow|workflows|calendar|calendars|alarm-channel|alarm-channels|pool|pools:
// calendars, alarm channels, pools, groups, jobs and workflows declared in
// files (v1.Manifest documents, YAML or JSON), applied idempotently; `get`
// prints the same documents, so its output applies back.
//
// apply works in passes so documents may name each other in any order:
// calendars first (created or replaced: the schedules of the jobs and
// workflows below may name them, calendar_manifest.h), then alarm channels
// (the jobs' alarms name them, alarm_channel_manifest.h), then pools (the
// jobs name them, pool_manifest.h), then groups (created or changed), then
// every declared job that does not exist is created (stopped, without
// children), then each job is compared with its document and updated,
// started or stopped where they differ (a job the server paused after
// failures stays paused), then the workflows, whose nodes name those jobs
// (workflow_manifest.h).
// --prune then deletes the jobs of the groups of the Group and Job documents
// that no document names (never workflows, calendars, alarm channels or
// pools).
// --dry-run reads everything and prints what would change.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/alarm_channel_manifest.h"
#include "cli/calendar_manifest.h"
#include "cli/command.h"
#include "cli/manifests.h"
#include "cli/pool_manifest.h"
#include "cli/workflow_manifest.h"
#include "cli/yaml_json.h"
#include "gnomon/v1/manifest.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

// A document and where it came from ("jobs.yaml document 2").
struct Doc {
  std::string where;
  v1::Manifest manifest;
};

std::string JobKey(const std::string& app, const std::string& name) {
  return absl::StrCat(app, "/", name);
}

// The files -f names: a file as is, a directory's *.yaml, *.yml and *.json
// (not recursive), by name.
absl::StatusOr<std::vector<std::string>> InputFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(p, ec)) {
      const std::string name = e.path().string();
      if (absl::EndsWith(name, ".yaml") || absl::EndsWith(name, ".yml") ||
          absl::EndsWith(name, ".json")) {
        found.push_back(name);
      }
    }
    if (ec) return absl::InvalidArgumentError(absl::StrCat("-f ", p, ": ", ec.message()));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty())
    return absl::InvalidArgumentError("apply needs -f FILE|DIR (files of YAML or JSON documents)");
  return files;
}

absl::Status Invalid(const std::string& where, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": ", absl::string_view(what.data(), what.size())));
}

// Every document of every file, checked for what the server cannot check:
// kinds, keys, and the same group or job declared twice.
absl::StatusOr<std::vector<Doc>> ReadDocs(CommandContext& c) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, InputFiles(c.args().GetAll("filename")));
  std::vector<Doc> docs;
  std::set<std::string> seen;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(std::string text, c.env().read_file(file));
    absl::StatusOr<std::vector<YamlDocument>> parsed = ParseYamlDocuments(text);
    if (!parsed.ok())
      return absl::InvalidArgumentError(absl::StrCat(file, ": ", parsed.status().message()));
    for (const YamlDocument& y : *parsed) {
      Doc d{absl::StrCat(file, " document ", y.index, " (line ", y.line, ")"), {}};
      if (absl::Status s = YamlDocumentToMessage(y, &d.manifest); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(file, ": ", s.message()));
      }
      const v1::Manifest& m = d.manifest;
      std::string key;
      if (m.kind() == "Group") {
        if (m.group().app_name().empty()) return Invalid(d.where, "group.app_name is required");
        key = "group " + m.group().app_name();
      } else if (m.kind() == "Job") {
        if (m.app().empty()) return Invalid(d.where, "app (the job's group) is required");
        if (m.job().name().empty()) return Invalid(d.where, "job.name is required");
        key = "job " + JobKey(m.app(), m.job().name());
      } else if (m.kind() == "Workflow") {
        if (absl::Status s = CheckWorkflowManifest(m); !s.ok())
          return Invalid(d.where, std::string(s.message()));
        key = "workflow " + JobKey(m.app(), m.workflow().name());
      } else if (m.kind() == "Calendar") {
        if (absl::Status s = CheckCalendarManifest(m); !s.ok())
          return Invalid(d.where, std::string(s.message()));
        key = "calendar " + m.calendar().name();
      } else if (m.kind() == "AlarmChannel") {
        if (absl::Status s = CheckAlarmChannelManifest(m); !s.ok())
          return Invalid(d.where, std::string(s.message()));
        key = "alarm channel " + m.alarm_channel().name();
      } else if (m.kind() == "Pool") {
        if (absl::Status s = CheckPoolManifest(m); !s.ok())
          return Invalid(d.where, std::string(s.message()));
        key = "pool " + m.pool().name();
      } else {
        return Invalid(d.where,
                       "kind must be Group, Job, Workflow, Calendar, AlarmChannel or Pool");
      }
      if (!seen.insert(key).second)
        return Invalid(d.where, absl::StrCat(key, " is declared twice"));
      docs.push_back(std::move(d));
    }
  }
  return docs;
}

// A group as declared: what apply compares and sets.
v1::Group Declared(const v1::Group& g) {
  v1::Group out;
  out.set_app_name(g.app_name());
  out.set_title(g.title());
  if (g.has_manual()) {
    *out.mutable_manual() = g.manual();
  } else {
    out.mutable_auto_registration();
  }
  return out;
}

// A job's configuration only: what apply compares.
v1::Job Configuration(v1::Job j) {
  j.clear_id();
  j.clear_state();
  j.clear_next_fire_time();
  j.clear_create_time();
  j.clear_update_time();
  j.clear_last_fire_time();
  j.clear_last_run();
  j.clear_pause_reason();
  j.clear_consecutive_failures();
  j.clear_fires_left();
  if (j.has_script()) j.mutable_script()->clear_version();
  return j;
}

class Applier {
 public:
  Applier(CommandContext& c, bool dry_run) : c_(c), dry_(dry_run) {}

  int Run(const std::vector<Doc>& docs, bool prune) {
    // First: the schedules, alarms and pools of the jobs and workflows may
    // name these.
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Calendar" && !ApplyCalendarDoc(d)) return failed_;
    }
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "AlarmChannel" && !ApplyAlarmChannelDoc(d)) return failed_;
    }
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Pool" && !ApplyPoolDoc(d)) return failed_;
    }
    if (!LoadGroups()) return failed_;
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Group" && !ApplyGroup(d)) return failed_;
    }
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Job" && !CreateJob(d)) return failed_;
    }
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Job" && !ConfigureJob(d)) return failed_;
    }
    // Last: a workflow's nodes name jobs that the passes above made.
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Workflow" && !ApplyWorkflowDoc(d)) return failed_;
    }
    if (prune && !Prune(docs)) return failed_;
    return kExitOk;
  }

 private:
  void Say(const std::string& object, const std::string& what) {
    c_.out() << object << " " << what << (dry_ ? " (dry run)" : "") << "\n";
  }
  bool Fail(const grpc::Status& s, const std::string& where) {
    c_.err() << where << ": ";
    failed_ = c_.RpcError(s);
    return false;
  }
  bool Fail(const absl::Status& s) {
    failed_ = c_.UsageError(s);
    return false;
  }

  bool LoadGroups() {
    v1::ListGroupsResponse resp;
    auto rpc = c_.NewRpcContext();
    if (grpc::Status s = c_.admin().ListGroups(rpc.get(), v1::ListGroupsRequest(), &resp);
        !s.ok()) {
      return Fail(s, "listing groups");
    }
    for (const v1::Group& g : resp.groups()) groups_[g.app_name()] = g;
    return true;
  }

  bool ApplyGroup(const Doc& d) {
    const v1::Group want = Declared(d.manifest.group());
    const std::string object = "group/" + want.app_name();
    auto it = groups_.find(want.app_name());
    if (it == groups_.end()) {
      v1::Group created = want;
      if (!dry_) {
        v1::CreateGroupRequest req;
        *req.mutable_group() = want;
        auto rpc = c_.NewRpcContext();
        if (grpc::Status s = c_.admin().CreateGroup(rpc.get(), req, &created); !s.ok())
          return Fail(s, d.where);
        // Shown once, as `group create` does: executors of the group need it.
        c_.err() << object << " access token (shown once): " << created.access_token() << "\n";
      }
      groups_[want.app_name()] = created;
      Say(object, "created");
      return true;
    }
    if (google::protobuf::util::MessageDifferencer::Equivalent(Declared(it->second), want)) {
      Say(object, "unchanged");
      return true;
    }
    if (!dry_) {
      v1::UpdateGroupRequest req;
      *req.mutable_group() = want;
      req.mutable_group()->set_id(it->second.id());
      auto rpc = c_.NewRpcContext();
      if (grpc::Status s = c_.admin().UpdateGroup(rpc.get(), req, &it->second); !s.ok())
        return Fail(s, d.where);
    }
    Say(object, "configured");
    return true;
  }

  // The declared group's id (0 for one a dry run would create).
  int64_t GroupId(const std::string& app) const {
    auto it = groups_.find(app);
    return it == groups_.end() ? -1 : it->second.id();
  }

  // Reads the job into jobs_ (absent if it does not exist).
  bool Lookup(const std::string& app, const std::string& name, const std::string& where) {
    const std::string key = JobKey(app, name);
    if (jobs_.count(key) > 0 || GroupId(app) == 0)
      return true;  // Known, or in a group not created yet.
    v1::GetJobRequest req;
    req.mutable_job_name()->set_group(app);
    req.mutable_job_name()->set_name(name);
    v1::Job job;
    auto rpc = c_.NewRpcContext();
    grpc::Status s = c_.admin().GetJob(rpc.get(), req, &job);
    if (s.error_code() == grpc::StatusCode::NOT_FOUND) return true;
    if (!s.ok()) return Fail(s, where);
    jobs_[key] = job;
    return true;
  }

  bool CreateJob(const Doc& d) {
    const v1::Manifest& m = d.manifest;
    if (GroupId(m.app()) < 0)
      return Fail(Invalid(d.where, absl::StrCat("app: no group ", m.app(), " (declare it)")));
    if (!Lookup(m.app(), m.job().name(), d.where)) return false;
    const std::string key = JobKey(m.app(), m.job().name());
    if (jobs_.count(key) > 0) return true;
    v1::Job job = Configuration(m.job());
    job.set_group_id(GroupId(m.app()));
    job.clear_child_job_ids();  // Set in the next pass, once every declared job exists.
    if (!dry_) {
      v1::CreateJobRequest req;
      *req.mutable_job() = job;
      auto rpc = c_.NewRpcContext();
      if (grpc::Status s = c_.admin().CreateJob(rpc.get(), req, &job); !s.ok())
        return Fail(s, d.where);
    }
    jobs_[key] = job;
    created_.insert(key);
    return true;
  }

  bool ConfigureJob(const Doc& d) {
    const v1::Manifest& m = d.manifest;
    const std::string key = JobKey(m.app(), m.job().name());
    const std::string object = "job/" + key;
    v1::Job& current = jobs_[key];
    v1::Job want = Configuration(m.job());
    want.set_group_id(current.group_id());
    want.clear_child_job_ids();
    for (const std::string& child : m.children()) {
      const std::string child_key = absl::StrContains(child, "/") ? child : JobKey(m.app(), child);
      const size_t slash = child_key.find('/');
      if (!Lookup(child_key.substr(0, slash), child_key.substr(slash + 1), d.where)) return false;
      auto it = jobs_.find(child_key);
      if (it == jobs_.end())
        return Fail(Invalid(d.where, absl::StrCat("children: no job ", child_key)));
      want.add_child_job_ids(it->second.id());
    }
    const bool created = created_.count(key) > 0;
    const bool changed =
        !google::protobuf::util::MessageDifferencer::Equivalent(Configuration(current), want);
    if (changed && !dry_ && current.id() != 0) {
      v1::UpdateJobRequest req;
      *req.mutable_job() = want;
      req.mutable_job()->set_id(current.id());
      auto rpc = c_.NewRpcContext();
      if (grpc::Status s = c_.admin().UpdateJob(rpc.get(), req, &current); !s.ok())
        return Fail(s, d.where);
    }
    std::string what = created ? "created" : changed ? "configured" : "unchanged";
    // The server pauses a job, and `job start` resumes it: apply does
    // neither. PAUSED declared leaves the state as it is; RUNNING declared
    // leaves a paused job paused, and says so.
    const v1::JobState state = m.job().state();
    if (state == v1::JOB_STATE_RUNNING && current.state() == v1::JOB_STATE_PAUSED) {
      absl::StrAppend(&what, ", left paused");
    } else if (state != v1::JOB_STATE_UNSPECIFIED && state != v1::JOB_STATE_PAUSED &&
               state != current.state()) {
      if (!dry_ && !SetState(current, state, d.where)) return false;
      absl::StrAppend(&what, state == v1::JOB_STATE_RUNNING ? ", started" : ", stopped");
    }
    Say(object, what);
    return true;
  }

  bool ApplyCalendarDoc(const Doc& d) {
    std::string what;
    if (grpc::Status s = ApplyCalendar(c_, d.manifest, dry_, &what); !s.ok())
      return Fail(s, d.where);
    Say("calendar/" + d.manifest.calendar().name(), what);
    return true;
  }

  bool ApplyAlarmChannelDoc(const Doc& d) {
    std::string what;
    if (grpc::Status s = ApplyAlarmChannel(c_, d.manifest, dry_, &what); !s.ok())
      return Fail(s, d.where);
    Say("alarm-channel/" + d.manifest.alarm_channel().name(), what);
    return true;
  }

  bool ApplyPoolDoc(const Doc& d) {
    std::string what;
    if (grpc::Status s = ApplyPool(c_, d.manifest, dry_, &what); !s.ok()) return Fail(s, d.where);
    Say("pool/" + d.manifest.pool().name(), what);
    return true;
  }

  bool ApplyWorkflowDoc(const Doc& d) {
    const v1::Manifest& m = d.manifest;
    if (GroupId(m.app()) < 0)
      return Fail(Invalid(d.where, absl::StrCat("app: no group ", m.app(), " (declare it)")));
    std::string what;
    if (grpc::Status s = ApplyWorkflow(c_, m, GroupId(m.app()), dry_, &what); !s.ok())
      return Fail(s, d.where);
    Say("workflow/" + JobKey(m.app(), m.workflow().name()), what);
    return true;
  }

  bool SetState(v1::Job& job, v1::JobState state, const std::string& where) {
    auto rpc = c_.NewRpcContext();
    grpc::Status s;
    if (state == v1::JOB_STATE_RUNNING) {
      v1::StartJobRequest req;
      req.set_job_id(job.id());
      s = c_.admin().StartJob(rpc.get(), req, &job);
    } else {
      v1::StopJobRequest req;
      req.set_job_id(job.id());
      s = c_.admin().StopJob(rpc.get(), req, &job);
    }
    return s.ok() || Fail(s, where);
  }

  // Deletes the jobs of every app of a Group or Job document that no
  // document declares. A Workflow document alone does not make its group's
  // jobs prunable.
  bool Prune(const std::vector<Doc>& docs) {
    std::set<std::string> apps;
    for (const Doc& d : docs) {
      if (d.manifest.kind() == "Group") apps.insert(d.manifest.group().app_name());
      if (d.manifest.kind() == "Job") apps.insert(d.manifest.app());
    }
    for (const std::string& app : apps) {
      if (GroupId(app) <= 0) continue;
      v1::ListJobsRequest req;
      req.set_group_id(GroupId(app));
      for (;;) {
        v1::ListJobsResponse resp;
        auto rpc = c_.NewRpcContext();
        if (grpc::Status s = c_.admin().ListJobs(rpc.get(), req, &resp); !s.ok())
          return Fail(s, "pruning " + app);
        for (const v1::Job& j : resp.jobs()) {
          if (jobs_.count(JobKey(app, j.name())) > 0) continue;
          if (!dry_) {
            v1::DeleteJobRequest del;
            del.set_job_id(j.id());
            v1::DeleteJobResponse out;
            auto drpc = c_.NewRpcContext();
            if (grpc::Status s = c_.admin().DeleteJob(drpc.get(), del, &out); !s.ok()) {
              return Fail(s, "pruning " + JobKey(app, j.name()));
            }
          }
          Say("job/" + JobKey(app, j.name()), "pruned");
        }
        if (resp.next_page_token().empty()) break;
        req.set_page_token(resp.next_page_token());
      }
    }
    return true;
  }

  CommandContext& c_;
  const bool dry_;
  int failed_ = kExitError;
  std::map<std::string, v1::Group> groups_;  // By app name.
  std::map<std::string, v1::Job> jobs_;      // Declared (and children), by "app/name".
  std::set<std::string> created_;
};

int Apply(CommandContext& c) {
  if (!c.args().positionals().empty()) {
    return c.UsageError(absl::InvalidArgumentError("apply takes files with -f, not arguments"));
  }
  absl::StatusOr<std::vector<Doc>> docs = ReadDocs(c);
  if (!docs.ok()) return c.UsageError(docs.status());
  return Applier(c, c.args().Has("dry-run")).Run(*docs, c.args().Has("prune"));
}

// ---- get ---------------------------------------------------------------------

// The group's app name by id, from one ListGroups.
absl::StatusOr<std::map<int64_t, std::string>> AppNames(CommandContext& c) {
  v1::ListGroupsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListGroups(rpc.get(), v1::ListGroupsRequest(), &resp); !s.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  }
  std::map<int64_t, std::string> apps;
  for (const v1::Group& g : resp.groups()) apps[g.id()] = g.app_name();
  return apps;
}

// The manifest of a job as stored: children by "APP/NAME".
absl::StatusOr<v1::Manifest> JobManifest(CommandContext& c, const v1::Job& job,
                                         const std::map<int64_t, std::string>& apps) {
  v1::Manifest m;
  m.set_kind("Job");
  m.set_app(apps.count(job.group_id()) > 0 ? apps.at(job.group_id())
                                           : absl::StrCat(job.group_id()));
  *m.mutable_job() = Configuration(job);
  m.mutable_job()->clear_group_id();
  m.mutable_job()->clear_child_job_ids();
  m.mutable_job()->set_state(job.state());
  for (int64_t id : job.child_job_ids()) {
    v1::GetJobRequest req;
    req.set_job_id(id);
    v1::Job child;
    auto rpc = c.NewRpcContext();
    if (grpc::Status s = c.admin().GetJob(rpc.get(), req, &child); !s.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
    }
    const std::string app = apps.count(child.group_id()) > 0 ? apps.at(child.group_id()) : "";
    m.add_children(app == m.app() ? child.name() : JobKey(app, child.name()));
  }
  return m;
}

int Fail(CommandContext& c, const absl::Status& s) {
  return c.RpcError(
      grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message())));
}

int GetJob(CommandContext& c) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::GetJobRequest req;
  which->SetOn(&req);
  v1::Job job;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().GetJob(rpc.get(), req, &job); !s.ok()) return c.RpcError(s);
  absl::StatusOr<std::map<int64_t, std::string>> apps = AppNames(c);
  if (!apps.ok()) return Fail(c, apps.status());
  absl::StatusOr<v1::Manifest> m = JobManifest(c, job, *apps);
  if (!m.ok()) return Fail(c, m.status());
  return PrintManifests(c, {*m});
}

int GetJobs(CommandContext& c) {
  absl::StatusOr<v1::ListJobsRequest> req = BuildListJobsRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  absl::StatusOr<std::map<int64_t, std::string>> apps = AppNames(c);
  if (!apps.ok()) return Fail(c, apps.status());
  std::vector<v1::Manifest> docs;
  for (;;) {
    v1::ListJobsResponse resp;
    auto rpc = c.NewRpcContext();
    if (grpc::Status s = c.admin().ListJobs(rpc.get(), *req, &resp); !s.ok()) return c.RpcError(s);
    for (const v1::Job& j : resp.jobs()) {
      absl::StatusOr<v1::Manifest> m = JobManifest(c, j, *apps);
      if (!m.ok()) return Fail(c, m.status());
      docs.push_back(*std::move(m));
    }
    if (resp.next_page_token().empty() || resp.next_page_token() == req->page_token()) break;
    req->set_page_token(resp.next_page_token());
  }
  return PrintManifests(c, docs);
}

int GetGroup(CommandContext& c) {
  if (c.args().positionals().size() != 1) {
    return c.UsageError(absl::InvalidArgumentError("get group takes one APP name"));
  }
  v1::ListGroupsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListGroups(rpc.get(), v1::ListGroupsRequest(), &resp); !s.ok()) {
    return c.RpcError(s);
  }
  for (const v1::Group& g : resp.groups()) {
    if (g.app_name() != c.args().positionals()[0]) continue;
    v1::Manifest m;
    m.set_kind("Group");
    *m.mutable_group() = Declared(g);
    return PrintManifests(c, {m});
  }
  return c.RpcError(
      grpc::Status(grpc::StatusCode::NOT_FOUND,
                   absl::StrCat("no group has app name ", c.args().positionals()[0])));
}

}  // namespace

std::vector<Command> ApplyCommands() {
  std::vector<Command> commands = {
      {"apply",
       "",
       "-f FILE|DIR [-f ...] [--dry-run] [--prune]",
       "Create or update the calendars, alarm channels, pools, groups, jobs and workflows "
       "declared in files (YAML or JSON); prints what changed.",
       {{"filename", "f", true, "FILE|DIR",
         "A file of documents, or a directory of *.yaml, *.yml, *.json."},
        {"dry-run", "", false, "", "Print what would change; change nothing."},
        {"prune", "", false, "",
         "Also delete the jobs of the declared groups that no document declares (not "
         "workflows)."}},
       "gnomonctl apply -f jobs/\ngnomonctl apply -f billing.yaml --prune --dry-run",
       Apply},
      {"get",
       "job",
       "JOB",
       "Print a job as an apply document (YAML).",
       {},
       "gnomonctl get job billing/nightly-invoice > nightly.yaml",
       GetJob},
      {"get", "jobs", "[job list flags]", "Print jobs as apply documents (YAML).",
       JobListFlagSpecs(), "gnomonctl get jobs --group 3 > billing.yaml", GetJobs},
      {"get",
       "group",
       "APP",
       "Print a group as an apply document (YAML).",
       {},
       "gnomonctl get group billing",
       GetGroup},
  };
  // The get noun's verbs stay together (completion lists them by noun).
  for (Command& c : WorkflowGetCommands()) commands.push_back(std::move(c));
  for (Command& c : CalendarGetCommands()) commands.push_back(std::move(c));
  for (Command& c : AlarmChannelGetCommands()) commands.push_back(std::move(c));
  for (Command& c : PoolGetCommands()) commands.push_back(std::move(c));
  return commands;
}

}  // namespace gnomon::cli
