// gnomonctl pool create|list|get|update|delete|queue: the pools of
// concurrency slots jobs name (Job.pool). Anyone reads them and their
// queues; writing one takes an admin token. update reads the pool, replaces
// the fields whose flags are given and sends it whole (UpdatePool replaces
// description and slots).
#include <string>

#include "cli/command.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

int PrintPool(CommandContext& c, const v1::Pool& pool) {
  if (c.structured()) return c.PrintMessage(pool);
  PrintPoolDetails(pool, c.env().zone, c.out());
  return kExitOk;
}

grpc::Status FetchPool(CommandContext& c, const std::string& name, v1::Pool* pool) {
  v1::GetPoolRequest req;
  req.set_name(name);
  auto rpc = c.NewRpcContext();
  return c.admin().GetPool(rpc.get(), req, pool);
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreatePoolRequest> req = BuildCreatePoolRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::Pool created;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().CreatePool(rpc.get(), *req, &created); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintPool(c, created);
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListPoolsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListPools(rpc.get(), v1::ListPoolsRequest(), &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  PrintPoolTable(resp.pools(), c.out());
  return kExitOk;
}

int Get(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::Pool pool;
  if (grpc::Status s = FetchPool(c, *name, &pool); !s.ok()) return c.RpcError(s);
  return PrintPool(c, pool);
}

int Update(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  if (absl::Status s = ExpectSomeFlag(c.args(), PoolFlagSpecs()); !s.ok()) return c.UsageError(s);
  // Check the flags before talking to the server.
  v1::Pool probe;
  if (absl::Status s = ApplyPoolFlags(c.args(), &probe); !s.ok()) return c.UsageError(s);
  v1::UpdatePoolRequest req;
  if (grpc::Status s = FetchPool(c, *name, req.mutable_pool()); !s.ok()) return c.RpcError(s);
  if (absl::Status s = ApplyPoolFlags(c.args(), req.mutable_pool()); !s.ok()) {
    return c.UsageError(s);
  }
  v1::Pool updated;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().UpdatePool(rpc.get(), req, &updated); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintPool(c, updated);
}

int Delete(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::DeletePoolRequest req;
  req.set_name(*name);
  v1::DeletePoolResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().DeletePool(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted pool " << *name << "\n";
  return kExitOk;
}

// The runs of many jobs: their times in UTC, as `run list` across jobs
// shows them (docs/cli.md, "Times").
int Queue(CommandContext& c) {
  absl::StatusOr<v1::ListPoolQueueRequest> req = BuildListPoolQueueRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::ListPoolQueueResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListPoolQueue(rpc.get(), *req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  PrintPoolQueue(resp, absl::UTCTimeZone(), c.out());
  return kExitOk;
}

}  // namespace

std::vector<Command> PoolCommands() {
  return {
      {"pool", "create", "NAME --slots N [--description TEXT]",
       "Create a pool of concurrency slots: at most N runs of the jobs naming it (--pool) at "
       "once, across every replica; the others wait queued (admin).",
       PoolFlagSpecs(),
       "gnomonctl pool create etl-db --slots 4 --description 'the ETL database'\n"
       "gnomonctl pool create gpu --slots 2",
       Create},
      {"pool",
       "list",
       "",
       "List the pools: slots, runs holding one and runs queued.",
       {},
       "gnomonctl pool list\ngnomonctl pool list -o yaml",
       List},
      {"pool", "get", "NAME", "Show one pool.", {}, "gnomonctl pool get etl-db", Get},
      {"pool", "update", "NAME [--slots N] [--description TEXT]",
       "Change a pool; only the given flags change. Fewer slots let the runs holding one "
       "finish (admin).",
       PoolFlagSpecs(),
       "gnomonctl pool update etl-db --slots 8\n"
       "gnomonctl pool update etl-db --description ''",
       Update},
      {"pool",
       "delete",
       "NAME",
       "Delete a pool; refused while a job names it (admin).",
       {},
       "gnomonctl pool delete gpu",
       Delete},
      {"pool", "queue", "NAME [--limit N]",
       "Show the runs holding the pool's slots, then the runs queued in the order they will get "
       "one (the highest priority first, then the oldest).",
       PoolQueueFlagSpecs(), "gnomonctl pool queue etl-db\ngnomonctl pool queue etl-db --limit 10",
       Queue},
  };
}

}  // namespace gnomon::cli
