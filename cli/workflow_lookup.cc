#include "cli/workflow_lookup.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/requests.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// `text` in double quotes, as the server quotes names in its messages.
std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

}  // namespace

std::string WorkflowArg::ToString() const {
  if (id != 0) return absl::StrCat(id);
  return group.empty() ? name : absl::StrCat(group, "/", name);
}

absl::StatusOr<WorkflowArg> ParseWorkflowArg(std::string_view text) {
  WorkflowArg which;
  if (AllDigits(text)) {
    ASSIGN_OR_RETURN(which.id, ParseId("WORKFLOW", text));
    return which;
  }
  std::string_view name = text;
  if (const size_t slash = text.find('/'); slash != std::string_view::npos) {
    which.group = std::string(text.substr(0, slash));
    name = text.substr(slash + 1);
    if (which.group.empty()) {
      return absl::InvalidArgumentError("WORKFLOW: give an id, NAME or APP/NAME");
    }
  }
  if (name.empty()) return absl::InvalidArgumentError("WORKFLOW: give an id, NAME or APP/NAME");
  which.name = std::string(name);
  return which;
}

absl::StatusOr<WorkflowArg> PositionalWorkflow(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {"WORKFLOW"}));
  ASSIGN_OR_RETURN(WorkflowArg which, ParseWorkflowArg(args.positionals()[0]));
  if (std::optional<std::string> group = args.Get("group")) {
    if (which.id != 0) {
      return absl::InvalidArgumentError("--group goes with a workflow NAME, not an id");
    }
    if (!which.group.empty()) {
      return absl::InvalidArgumentError("give APP/NAME or --group APP, not both");
    }
    if (group->empty()) return absl::InvalidArgumentError("--group needs an app name or id");
    which.group = *group;
  }
  return which;
}

FlagSpec WorkflowGroupFlag() {
  return {"group", "", true, "APP", "Look the workflow NAME up in this group (app name or id)."};
}

grpc::Status GroupsById(CommandContext& c, std::map<int64_t, v1::Group>* groups) {
  v1::ListGroupsResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListGroups(rpc.get(), v1::ListGroupsRequest(), &resp);
  if (!s.ok()) return s;
  for (v1::Group& g : *resp.mutable_groups()) (*groups)[g.id()] = std::move(g);
  return grpc::Status::OK;
}

grpc::Status ResolveGroup(CommandContext& c, std::string_view text, int64_t* group_id) {
  if (AllDigits(text)) {
    absl::StatusOr<int64_t> id = ParseId("--group", text);
    if (!id.ok()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(id.status().message()));
    }
    *group_id = *id;
    return grpc::Status::OK;
  }
  std::map<int64_t, v1::Group> groups;
  if (grpc::Status s = GroupsById(c, &groups); !s.ok()) return s;
  for (const auto& [id, g] : groups) {
    if (g.app_name() == text) {
      *group_id = id;
      return grpc::Status::OK;
    }
  }
  return grpc::Status(grpc::StatusCode::NOT_FOUND,
                      absl::StrCat("no group has app name ", Quoted(std::string(text))));
}

grpc::Status ListWorkflowsOf(CommandContext& c, int64_t group_id,
                             std::vector<v1::Workflow>* workflows) {
  v1::ListWorkflowsRequest req;
  req.set_group_id(group_id);
  v1::ListWorkflowsResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListWorkflows(rpc.get(), req, &resp);
  if (!s.ok()) return s;
  workflows->assign(std::make_move_iterator(resp.mutable_workflows()->begin()),
                    std::make_move_iterator(resp.mutable_workflows()->end()));
  return grpc::Status::OK;
}

grpc::Status FindWorkflow(CommandContext& c, const WorkflowArg& which, v1::Workflow* workflow) {
  if (which.id != 0) {
    v1::GetWorkflowRequest req;
    req.set_workflow_id(which.id);
    auto rpc = c.NewRpcContext();
    return c.admin().GetWorkflow(rpc.get(), req, workflow);
  }
  int64_t group_id = 0;
  if (!which.group.empty()) {
    if (grpc::Status s = ResolveGroup(c, which.group, &group_id); !s.ok()) return s;
  }
  std::vector<v1::Workflow> all;
  if (grpc::Status s = ListWorkflowsOf(c, group_id, &all); !s.ok()) return s;
  std::vector<v1::Workflow> named;
  for (v1::Workflow& w : all) {
    if (w.name() == which.name) named.push_back(std::move(w));
  }
  if (named.empty()) {
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        which.group.empty()
            ? absl::StrCat("no workflow is named ", Quoted(which.name))
            : absl::StrCat("group ", which.group, " has no workflow named ", Quoted(which.name)));
  }
  if (named.size() > 1) {
    // Name the groups as the user would type them.
    std::map<int64_t, v1::Group> groups;
    if (grpc::Status s = GroupsById(c, &groups); !s.ok()) return s;
    std::vector<std::string> apps;
    for (const v1::Workflow& w : named) {
      auto it = groups.find(w.group_id());
      apps.push_back(it == groups.end() ? absl::StrCat(w.group_id()) : it->second.app_name());
    }
    std::sort(apps.begin(), apps.end());
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("workflows named ", Quoted(which.name), " are in groups ",
                                     absl::StrJoin(apps, ", "), "; give APP/NAME or --group APP"));
  }
  *workflow = std::move(named.front());
  return grpc::Status::OK;
}

grpc::Status WorkflowId(CommandContext& c, const WorkflowArg& which, int64_t* id) {
  if (which.id != 0) {
    *id = which.id;
    return grpc::Status::OK;
  }
  v1::Workflow found;
  if (grpc::Status s = FindWorkflow(c, which, &found); !s.ok()) return s;
  *id = found.id();
  return grpc::Status::OK;
}

}  // namespace gnomon::cli
