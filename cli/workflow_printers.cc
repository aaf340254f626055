// Readable output of workflows and their runs (declared in printers.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

// Outputs longer than this are cut in tables (not under -o wide).
constexpr size_t kOutputWidth = 40;

std::string Id(int64_t id) { return id == 0 ? "-" : absl::StrCat(id); }

// What the node runs: "job merge (13)" or "if output eq 'done'".
std::string NodeTask(const v1::WorkflowNode& node) {
  if (node.has_condition()) {
    const v1::WorkflowCondition& c = node.condition();
    const v1::WorkflowConditionSubject subject =
        c.subject() == v1::WORKFLOW_CONDITION_SUBJECT_UNSPECIFIED
            ? v1::WORKFLOW_CONDITION_SUBJECT_OUTPUT
            : c.subject();
    const v1::WorkflowConditionOp op = c.op() == v1::WORKFLOW_CONDITION_OP_UNSPECIFIED
                                           ? v1::WORKFLOW_CONDITION_OP_NON_EMPTY
                                           : c.op();
    std::string text = absl::StrCat("if ", WorkflowConditionSubjectName(subject), " ",
                                    WorkflowConditionOpName(op));
    if (op != v1::WORKFLOW_CONDITION_OP_NON_EMPTY) absl::StrAppend(&text, " '", c.value(), "'");
    return text;
  }
  if (node.job_id() == 0) return absl::StrCat("job ", node.job_name());
  if (node.job_name().empty()) return absl::StrCat("job ", node.job_id());
  return absl::StrCat("job ", node.job_name(), " (", node.job_id(), ")");
}

// The parents of `node`: "extract-eu, check (true)"; "" for a first node.
std::string Parents(const v1::Workflow& workflow, const std::string& node) {
  std::vector<std::string> parents;
  for (const v1::WorkflowEdge& e : workflow.edges()) {
    if (e.to() != node) continue;
    const bool plain = e.when() == v1::WORKFLOW_EDGE_WHEN_UNSPECIFIED ||
                       e.when() == v1::WORKFLOW_EDGE_WHEN_SUCCESS;
    parents.push_back(plain ? e.from()
                            : absl::StrCat(e.from(), " (", WorkflowEdgeWhenName(e.when()), ")"));
  }
  return absl::StrJoin(parents, ", ");
}

// Unlike a job's, a workflow's unspecified policy is DO_NOTHING.
std::string MisfireText(v1::MisfirePolicy policy) {
  return policy == v1::MISFIRE_POLICY_UNSPECIFIED ? "do-nothing" : MisfireName(policy);
}

// One line: newlines (between shards' outputs) as "\n"; cut unless `full`.
std::string OutputCell(const std::string& output, bool full) {
  std::string text = absl::StrReplaceAll(output, {{"\r", ""}, {"\n", "\\n"}});
  if (full || text.size() <= kOutputWidth) return text;
  size_t cut = kOutputWidth - 3;
  // Not inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(text.substr(0, cut), "...");
}

bool Ended(v1::WorkflowNodeState state) {
  switch (state) {
    case v1::WORKFLOW_NODE_STATE_SUCCEEDED:
    case v1::WORKFLOW_NODE_STATE_FAILED:
    case v1::WORKFLOW_NODE_STATE_SKIPPED:
    case v1::WORKFLOW_NODE_STATE_BYPASSED:
    case v1::WORKFLOW_NODE_STATE_CANCELLED:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string WorkflowNodesDone(const v1::WorkflowRun& run) {
  int done = 0;
  for (const v1::WorkflowNodeRun& n : run.nodes()) done += Ended(n.state()) ? 1 : 0;
  return absl::StrCat(done, "/", run.nodes_size());
}

void PrintWorkflowTable(const Repeated<v1::Workflow>& workflows, std::ostream& out) {
  Table table({"ID", "NAME", "GROUP", "STATE", "SCHEDULE", "NODES", "DESCRIPTION"});
  for (const v1::Workflow& w : workflows) {
    table.AddRow({Id(w.id()), w.name(), Id(w.group_id()), WorkflowStateName(w.state()),
                  DescribeSchedule(w.schedule()), absl::StrCat(w.nodes_size()), w.description()});
  }
  table.Render(out);
}

void PrintWorkflowDetails(const v1::Workflow& workflow, std::ostream& out) {
  const absl::TimeZone zone = ScheduleZone(workflow.schedule());
  Details d;
  d.Add("id", Id(workflow.id()));
  d.Add("name", workflow.name());
  d.Add("group", Id(workflow.group_id()));
  d.Add("description", workflow.description());
  d.Add("state", WorkflowStateName(workflow.state()));
  d.Add("schedule", DescribeSchedule(workflow.schedule()));
  d.Add("misfire", MisfireText(workflow.misfire_policy()));
  d.Add("params", workflow.params());
  d.Add("created", FormatScheduleTime(workflow.create_time(), zone));
  d.Add("updated", FormatScheduleTime(workflow.update_time(), zone));
  d.Render(out);
  out << "\n";
  Table nodes({"NODE", "RUNS", "AFTER"});
  for (const v1::WorkflowNode& n : workflow.nodes()) {
    nodes.AddRow({n.name(), NodeTask(n), Parents(workflow, n.name())});
  }
  nodes.Render(out);
}

void PrintWorkflowRunTable(const Repeated<v1::WorkflowRun>& runs, absl::TimeZone zone,
                           std::ostream& out) {
  Table table({"ID", "STATUS", "TRIGGER", "STARTED", "ENDED", "NODES DONE"});
  for (const v1::WorkflowRun& r : runs) {
    table.AddRow({Id(r.id()), WorkflowRunStatusName(r.status()), TriggerTypeName(r.trigger_type()),
                  FormatTime(r.create_time(), zone), FormatTime(r.end_time(), zone),
                  WorkflowNodesDone(r)});
  }
  table.Render(out);
}

void PrintWorkflowRunDetails(const v1::WorkflowRun& run, absl::TimeZone zone, bool wide,
                             std::ostream& out) {
  Details d;
  d.Add("id", Id(run.id()));
  d.Add("workflow", run.workflow().name().empty()
                        ? Id(run.workflow_id())
                        : absl::StrCat(run.workflow_id(), " (", run.workflow().name(), ")"));
  d.Add("status", WorkflowRunStatusName(run.status()));
  d.Add("trigger", TriggerTypeName(run.trigger_type()));
  d.Add("params", run.params());
  d.Add("scheduled", FormatTime(run.scheduled_time(), zone));
  d.Add("started", FormatTime(run.create_time(), zone));
  d.Add("ended", FormatTime(run.end_time(), zone));
  d.Add("nodes done", WorkflowNodesDone(run));
  d.Render(out);
  out << "\n";
  std::vector<std::string> header = {"NODE", "STATE", "ATTEMPT", "CODE", "OUTPUT"};
  if (wide) header.push_back("SHARDS");
  Table nodes(std::move(header));
  for (const v1::WorkflowNodeRun& n : run.nodes()) {
    std::vector<std::string> row = {
        n.node(), WorkflowNodeStateName(n.state()), absl::StrCat(n.attempt()),
        n.handle_code() == 0 ? "" : HandleCodeName(n.handle_code()), OutputCell(n.output(), wide)};
    if (wide) {
      row.push_back(n.shard_total() > 1 ? absl::StrCat(n.shards_size(), "/", n.shard_total()) : "");
    }
    nodes.AddRow(std::move(row));
  }
  nodes.Render(out);
}

}  // namespace gnomon::cli
