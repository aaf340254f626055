// Workflow outputs and inputs on the executor (RunRequest.inputs and
// workflow_run_id in, RunResult.output out): JobContext::SetOutput and its
// limit, inputs reaching the handler, the output of a run that is killed or
// abandoned, script runs' GNOMON_INPUT_* variables and GNOMON_OUTPUT_FILE,
// and the output kept by the spool. RunManager without servers (the end to
// end path through the log service is in delivery_test.cc).
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "services/common/client/clock.h"
#include "services/executor-sdk/src/run_manager.h"
#include "services/executor-sdk/src/run_spool.h"
#include "services/executor-sdk/src/script_runner.h"
#include "services/executor-sdk/tests/run_manager_fakes.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor::internal {
namespace {

// What a handler saw, written on its worker thread and read by the test once
// the run's result is in.
struct Seen {
  absl::Mutex mu;
  std::vector<absl::Status> statuses ABSL_GUARDED_BY(mu);
  std::vector<WorkflowInput> inputs ABSL_GUARDED_BY(mu);
  std::optional<std::string> extract ABSL_GUARDED_BY(mu), missing ABSL_GUARDED_BY(mu);
  int64_t workflow_run_id ABSL_GUARDED_BY(mu) = -1;
  void Add(absl::Status s) {
    absl::MutexLock l(&mu);
    statuses.push_back(std::move(s));
  }
  std::vector<absl::Status> Statuses() {
    absl::MutexLock l(&mu);
    return statuses;
  }
};

v1::RunRequest WorkflowReq(int64_t run_id, const std::string& handler, int64_t workflow_run_id,
                           const std::vector<std::pair<std::string, std::string>>& inputs) {
  v1::RunRequest r = Req(run_id, run_id, handler);
  r.set_workflow_run_id(workflow_run_id);
  for (const auto& [node, output] : inputs) {
    v1::WorkflowInput* in = r.add_inputs();
    in->set_node(node);
    in->set_output(output);
  }
  return r;
}

TEST(WorkflowOutputTest, TheLastOutputSetReachesTheRunsResult) {
  RecordingSink sink;
  Seen seen;
  RunManager manager(RunManagerOptions{},
                     Handlers({{"count",
                                [&](JobContext& ctx) {
                                  seen.Add(ctx.SetOutput("first"));
                                  seen.Add(ctx.SetOutput("rows=42"));
                                }},
                               {"quiet", [](JobContext&) {}}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "count")).accepted);
  ASSERT_TRUE(manager.Submit(Req(2, 2, "quiet")).accepted);
  std::optional<v1::RunResult> result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);
  EXPECT_EQ(result->output(), "rows=42");
  for (const absl::Status& s : seen.Statuses()) EXPECT_TRUE(s.ok()) << s;
  std::optional<v1::RunResult> quiet = sink.Result(2);
  ASSERT_TRUE(quiet);
  EXPECT_EQ(quiet->output(), "");  // None set.
}

TEST(WorkflowOutputTest, AnOutputOverTheLimitIsRefusedAndTheOneBeforeKept) {
  RecordingSink sink;
  Seen seen;
  std::string e_acute_2048;  // 4096 bytes of 2-byte characters: at the limit.
  for (int i = 0; i < 2048; ++i) e_acute_2048 += "\xC3\xA9";
  RunManager manager(RunManagerOptions{},
                     Handlers({{"big",
                                [&](JobContext& ctx) {
                                  seen.Add(ctx.SetOutput(std::string(kMaxOutputBytes, 'a')));
                                  seen.Add(ctx.SetOutput(e_acute_2048));
                                  seen.Add(ctx.SetOutput(std::string(kMaxOutputBytes + 1, 'x')));
                                  seen.Add(ctx.SetOutput(std::string(1 << 20, 'x')));
                                }}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "big")).accepted);
  std::optional<v1::RunResult> result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);  // A refused output fails nothing by itself.
  EXPECT_EQ(result->output(), e_acute_2048);
  std::vector<absl::Status> statuses = seen.Statuses();
  ASSERT_EQ(statuses.size(), 4u);
  EXPECT_TRUE(statuses[0].ok()) << statuses[0];
  EXPECT_TRUE(statuses[1].ok()) << statuses[1];
  for (size_t i : {2u, 3u}) {
    EXPECT_EQ(statuses[i].code(), absl::StatusCode::kInvalidArgument) << statuses[i];
    EXPECT_TRUE(absl::StrContains(statuses[i].message(), "output")) << statuses[i];
    EXPECT_TRUE(absl::StrContains(statuses[i].message(), "4096")) << statuses[i];
    EXPECT_FALSE(absl::StrContains(statuses[i].message(), "xxxx")) << "the value is not echoed";
  }
  EXPECT_TRUE(absl::StrContains(statuses[2].message(), "4097 bytes")) << statuses[2];
}

// RunResult.output is a proto3 string: a result holding anything but UTF-8
// would not decode at the log service.
TEST(WorkflowOutputTest, AnOutputThatIsNotUtf8IsRefused) {
  RecordingSink sink;
  Seen seen;
  RunManager manager(RunManagerOptions{},
                     Handlers({{"bytes",
                                [&](JobContext& ctx) {
                                  seen.Add(ctx.SetOutput("smile \xF0\x9F\x98\x80"));  // U+1F600
                                  seen.Add(ctx.SetOutput("\xFF"));
                                  seen.Add(ctx.SetOutput("\xC0\x80"));          // overlong NUL
                                  seen.Add(ctx.SetOutput("\xED\xA0\x80"));      // a surrogate
                                  seen.Add(ctx.SetOutput("cut \xE2\x82"));      // truncated
                                  seen.Add(ctx.SetOutput("\xF4\x90\x80\x80"));  // past U+10FFFF
                                }}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "bytes")).accepted);
  std::optional<v1::RunResult> result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->output(), "smile \xF0\x9F\x98\x80");
  std::vector<absl::Status> statuses = seen.Statuses();
  ASSERT_EQ(statuses.size(), 6u);
  EXPECT_TRUE(statuses[0].ok()) << statuses[0];
  for (size_t i = 1; i < statuses.size(); ++i) {
    EXPECT_EQ(statuses[i].code(), absl::StatusCode::kInvalidArgument) << i << ": " << statuses[i];
    EXPECT_EQ(statuses[i].message(), "output is not valid UTF-8");
  }
}

TEST(WorkflowInputTest, TheRunRequestsInputsReachTheContext) {
  RecordingSink sink;
  Seen seen;
  auto record = [&](JobContext& ctx) {
    absl::MutexLock l(&seen.mu);
    seen.workflow_run_id = ctx.workflow_run_id();
    seen.inputs = ctx.inputs();
    seen.extract = ctx.Input("extract");
    seen.missing = ctx.Input("load");
  };
  RunManager manager(RunManagerOptions{}, Handlers({{"node", record}}), &sink, nullptr);
  ASSERT_TRUE(
      manager
          .Submit(WorkflowReq(1, "node", 77,
                              {{"extract", "2024-05-01"}, {"count", "1\n2\n"}, {"empty", ""}}))
          .accepted);
  ASSERT_TRUE(sink.Result(1));
  {
    absl::MutexLock l(&seen.mu);
    EXPECT_EQ(seen.workflow_run_id, 77);
    ASSERT_EQ(seen.inputs.size(), 3u);
    EXPECT_EQ(seen.inputs[0].node, "extract");
    EXPECT_EQ(seen.inputs[0].output, "2024-05-01");
    EXPECT_EQ(seen.inputs[1].node, "count");
    EXPECT_EQ(seen.inputs[1].output, "1\n2\n");
    EXPECT_EQ(seen.inputs[2].node, "empty");
    EXPECT_EQ(seen.inputs[2].output, "");
    EXPECT_EQ(seen.extract, "2024-05-01");
    EXPECT_EQ(seen.missing, std::nullopt);
  }

  // A run of no workflow: no workflow run, no inputs.
  ASSERT_TRUE(manager.Submit(Req(2, 2, "node")).accepted);
  ASSERT_TRUE(sink.Result(2));
  absl::MutexLock l(&seen.mu);
  EXPECT_EQ(seen.workflow_run_id, 0);
  EXPECT_TRUE(seen.inputs.empty());
  EXPECT_EQ(seen.extract, std::nullopt);
}

TEST(WorkflowOutputTest, AKilledRunReportsTheOutputSetUntilThen) {
  RecordingSink sink;
  absl::Notification set;
  RunManager manager(RunManagerOptions{},
                     Handlers({{"partial",
                                [&](JobContext& ctx) {
                                  EXPECT_TRUE(ctx.SetOutput("rows=10").ok());
                                  set.Notify();
                                  ctx.cancellation().WaitForCancellation(absl::InfiniteDuration());
                                }}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "partial")).accepted);
  set.WaitForNotification();
  ASSERT_TRUE(manager.Kill(1, "by test"));
  std::optional<v1::RunResult> result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 503);
  EXPECT_EQ(result->output(), "rows=10");
}

// A handler that ignored cancellation is reported without it (with the
// output it had set); what it sets later is refused, not lost silently.
TEST(WorkflowOutputTest, AnAbandonedHandlerCannotSetAnOutputOnceItsRunIsReported) {
  RecordingSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  // Shared with the handler: the abandoned thread outlives the report.
  auto cancelled = std::make_shared<absl::Notification>();
  auto unblock = std::make_shared<absl::Notification>();
  auto late = std::make_shared<absl::Status>();
  auto late_set = std::make_shared<absl::Notification>();
  RunManagerOptions options;
  options.clock = &clock;
  options.run.cancel_grace = absl::Seconds(2);
  RunManager manager(options,
                     Handlers({{"deaf",
                                [=](JobContext& ctx) {
                                  EXPECT_TRUE(ctx.SetOutput("early").ok());
                                  ctx.cancellation().WaitForCancellation(absl::InfiniteDuration());
                                  cancelled->Notify();
                                  unblock->WaitForNotification();
                                  *late = ctx.SetOutput("late");
                                  late_set->Notify();
                                }}}),
                     &sink, nullptr);
  ASSERT_TRUE(
      manager.Submit(Req(1, 1, "deaf", v1::BLOCK_STRATEGY_SERIAL_EXECUTION, absl::Seconds(5)))
          .accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  clock.Advance(absl::Seconds(5));
  cancelled->WaitForNotification();
  clock.Advance(absl::Seconds(2));  // The grace: abandoned and reported.
  std::optional<v1::RunResult> result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 502);
  EXPECT_EQ(result->output(), "early");
  unblock->Notify();
  late_set->WaitForNotification();
  EXPECT_EQ(late->code(), absl::StatusCode::kFailedPrecondition) << *late;
  manager.Shutdown(clock.Now());
  EXPECT_EQ(sink.finishes(1), 1);
}

// Script runs, through the run manager (allowed scripts, no servers).
class ScriptWorkflowTest : public ::testing::Test {
 protected:
  ScriptWorkflowTest() : manager_(ScriptingOptions(), HandlerMap{}, &sink_, nullptr) {}

  static RunManagerOptions ScriptingOptions() {
    RunManagerOptions options;
    options.run.allow_scripts = true;
    return options;
  }

  // Runs a shell script as a workflow node's run; its result.
  std::optional<v1::RunResult> RunShell(
      int64_t run_id, const std::string& source, int64_t workflow_run_id = 5,
      const std::vector<std::pair<std::string, std::string>>& inputs = {}) {
    v1::RunRequest r = WorkflowReq(run_id, "", workflow_run_id, inputs);
    r.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
    r.mutable_script()->set_source(source);
    DispatchOutcome out = manager_.Submit(r);
    EXPECT_TRUE(out.accepted) << out.reason;
    return sink_.Result(run_id);
  }

  RecordingSink sink_;
  RunManager manager_;
};

TEST(ScriptInputVariableTest, UpperCasesTheNodeAndReplacesWhatAVariableCannotHold) {
  EXPECT_EQ(ScriptInputVariable("extract"), "GNOMON_INPUT_EXTRACT");
  EXPECT_EQ(ScriptInputVariable("fetch-day.v2"), "GNOMON_INPUT_FETCH_DAY_V2");
  EXPECT_EQ(ScriptInputVariable("Load_2"), "GNOMON_INPUT_LOAD_2");
  EXPECT_EQ(ScriptInputVariable("caf\xC3\xA9"), "GNOMON_INPUT_CAF__");
}

TEST_F(ScriptWorkflowTest, AScriptGetsItsInputsAndWorkflowRunAsVariables) {
  std::optional<v1::RunResult> result =
      RunShell(1,
               "echo \"run=$GNOMON_WORKFLOW_RUN_ID\"\n"
               "echo \"extract=$GNOMON_INPUT_EXTRACT\"\n"
               "echo \"fetch=$GNOMON_INPUT_FETCH_DAY_V2\"\n"
               "printf 'count=%s|\\n' \"$GNOMON_INPUT_COUNT\"\n"
               "env | grep '^GNOMON_' | cut -d= -f1 | sort | tr '\\n' ' '\n",
               77,
               {{"extract", "2024-05-01"},
                {"fetch-day.v2", "a b"},
                {"fetch_day.v2", "shadowed"},
                {"count", "1\n2"}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  EXPECT_EQ(result->output(), "");  // It wrote nothing to GNOMON_OUTPUT_FILE.
  const std::string shared =
      "[gnomon] inputs \"fetch-day.v2\" and \"fetch_day.v2\" share the variable "
      "GNOMON_INPUT_FETCH_DAY_V2: it holds \"fetch-day.v2\"'s output";
  const std::string names =
      "GNOMON_INPUT_COUNT GNOMON_INPUT_EXTRACT GNOMON_INPUT_FETCH_DAY_V2 GNOMON_OUTPUT_FILE "
      "GNOMON_WORKFLOW_RUN_ID ";
  EXPECT_EQ(sink_.lines(1), (std::vector<std::string>{shared, "run=77", "extract=2024-05-01",
                                                      "fetch=a b", "count=1", "2|", names}));
}

// A script of no workflow gets no GNOMON_ variable at all (and has no output).
TEST_F(ScriptWorkflowTest, AScriptOfNoWorkflowGetsNoGnomonVariable) {
  std::optional<v1::RunResult> result =
      RunShell(1, "echo \"gnomon variables: $(env | grep -c '^GNOMON_')\"\n", 0);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  EXPECT_EQ(result->output(), "");
  EXPECT_EQ(sink_.lines(1), std::vector<std::string>{"gnomon variables: 0"});
}

// The output file is read once the script has exited, whatever its exit
// code (the result stands), with one final newline dropped, then deleted.
TEST_F(ScriptWorkflowTest, WhatTheScriptWritesToItsOutputFileIsTheRunsOutput) {
  std::optional<v1::RunResult> result =
      RunShell(1, "echo \"$GNOMON_OUTPUT_FILE\"\necho rows=42 > \"$GNOMON_OUTPUT_FILE\"\nexit 3\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 500);
  EXPECT_EQ(result->handle_message(), "script exited with code 3");
  EXPECT_EQ(result->output(), "rows=42");
  std::vector<std::string> lines = sink_.lines(1);
  ASSERT_EQ(lines.size(), 1u);
  struct stat st;
  EXPECT_NE(::stat(lines[0].c_str(), &st), 0) << lines[0] << " was not deleted";

  // Only one final newline goes; the limit counts what is kept.
  result = RunShell(2, "printf 'a\\n\\n' > \"$GNOMON_OUTPUT_FILE\"\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->output(), "a\n");
  result = RunShell(3,
                    "head -c 4096 /dev/zero | tr '\\0' y > \"$GNOMON_OUTPUT_FILE\"\n"
                    "echo >> \"$GNOMON_OUTPUT_FILE\"\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->output(), std::string(4096, 'y'));
  EXPECT_TRUE(sink_.lines(3).empty());
}

TEST_F(ScriptWorkflowTest, AnOutputFileOverTheLimitSetsNoOutputAndTheRunLogSaysSo) {
  std::optional<v1::RunResult> result =
      RunShell(1, "head -c 5000 /dev/zero | tr '\\0' x > \"$GNOMON_OUTPUT_FILE\"\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();  // The result stands.
  EXPECT_EQ(result->output(), "");
  EXPECT_EQ(sink_.lines(1),
            std::vector<std::string>{"[gnomon] the script's output file (GNOMON_OUTPUT_FILE) holds "
                                     "5000 bytes, more than the limit of 4096 bytes: the run's "
                                     "output is not set"});

  result = RunShell(2, "printf 'ok \\377' > \"$GNOMON_OUTPUT_FILE\"\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);
  EXPECT_EQ(result->output(), "");
  EXPECT_EQ(sink_.lines(2),
            std::vector<std::string>{"[gnomon] the script's output is not set: output is not "
                                     "valid UTF-8"});

  // A FIFO in its place is not waited on.
  result = RunShell(3, "rm \"$GNOMON_OUTPUT_FILE\" && mkfifo \"$GNOMON_OUTPUT_FILE\"\n");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  EXPECT_EQ(result->output(), "");
  EXPECT_EQ(sink_.lines(3), std::vector<std::string>{
                                "[gnomon] the script's output file (GNOMON_OUTPUT_FILE) is not "
                                "a regular file: the run's output is not set"});
}

TEST_F(ScriptWorkflowTest, AKilledScriptReportsTheOutputWrittenUntilThen) {
  v1::RunRequest r = WorkflowReq(1, "", 5, {});
  r.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
  r.mutable_script()->set_source(
      "echo partial > \"$GNOMON_OUTPUT_FILE\"\necho written\nwhile :; do sleep 0.05; done\n");
  ASSERT_TRUE(manager_.Submit(r).accepted);
  ASSERT_TRUE(sink_.WaitForLines(1, 1));  // It wrote its output.
  ASSERT_TRUE(manager_.Kill(1, "by test"));
  std::optional<v1::RunResult> result = sink_.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 503);
  EXPECT_EQ(result->output(), "partial");
  EXPECT_EQ(sink_.lines(1), std::vector<std::string>{"written"});
}

TEST(WorkflowSpoolTest, AResultsOutputSurvivesTheSpool) {
  std::string dir = TempDir("workflow-spool");
  std::string output;
  for (int i = 0; i < 1024; ++i) output += "\xF0\x9F\x98\x80";  // 4096 bytes
  {
    auto spool = RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    v1::ReportItem item;
    item.mutable_result()->set_run_id(9);
    item.mutable_result()->set_handle_code(200);
    item.mutable_result()->set_output(output);
    absl::Status disk;
    const uint64_t id = (*spool)->Append(item, &disk);
    ASSERT_TRUE(disk.ok()) << disk;
    ASSERT_TRUE((*spool)->SyncThrough(id).ok());
  }
  auto reopened = RunSpool::Open(dir);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const auto* first = (*reopened)->Next(0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->second.result().run_id(), 9);
  EXPECT_EQ(first->second.result().output(), output);
}

}  // namespace
}  // namespace gnomon::executor::internal
