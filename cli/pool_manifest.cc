#include "cli/pool_manifest.h"

#include "cli/manifests.h"
#include "google/protobuf/util/message_differencer.h"

namespace gnomon::cli {
namespace {

// `pools` as documents.
std::vector<v1::Manifest> Manifests(const google::protobuf::RepeatedPtrField<v1::Pool>& all) {
  std::vector<v1::Manifest> docs;
  for (const v1::Pool& pool : all) {
    v1::Manifest& m = docs.emplace_back();
    m.set_kind("Pool");
    *m.mutable_pool() = DeclaredPool(pool);
  }
  return docs;
}

int GetPool(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::GetPoolRequest req;
  req.set_name(*name);
  v1::ListPoolsResponse one;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().GetPool(rpc.get(), req, one.add_pools()); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(one.pools()));
}

int GetPools(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListPoolsResponse all;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListPools(rpc.get(), v1::ListPoolsRequest(), &all); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(all.pools()));
}

}  // namespace

absl::Status CheckPoolManifest(const v1::Manifest& m) {
  return CheckUngroupedManifest(m, "pool", m.pool().name(), "pools");
}

v1::Pool DeclaredPool(v1::Pool pool) {
  pool.clear_id();
  pool.clear_create_time();
  pool.clear_update_time();
  pool.clear_running();
  pool.clear_queued();
  return pool;
}

grpc::Status ApplyPool(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                       std::string* outcome) {
  if (absl::Status s = CheckPoolManifest(manifest); !s.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(s.message()));
  }
  const v1::Pool want = DeclaredPool(manifest.pool());
  v1::Pool current;
  ByNameCalls calls;
  calls.get = [&] {
    v1::GetPoolRequest req;
    req.set_name(want.name());
    auto rpc = c.NewRpcContext();
    return c.admin().GetPool(rpc.get(), req, &current);
  };
  calls.unchanged = [&] {
    return google::protobuf::util::MessageDifferencer::Equivalent(DeclaredPool(current), want);
  };
  calls.create = [&] {
    v1::CreatePoolRequest req;
    *req.mutable_pool() = want;
    v1::Pool created;
    auto rpc = c.NewRpcContext();
    return c.admin().CreatePool(rpc.get(), req, &created);
  };
  calls.replace = [&] {
    v1::UpdatePoolRequest req;
    *req.mutable_pool() = want;
    v1::Pool updated;
    auto rpc = c.NewRpcContext();
    return c.admin().UpdatePool(rpc.get(), req, &updated);
  };
  return ApplyByName(calls, dry_run, outcome);
}

std::vector<Command> PoolGetCommands() {
  return {
      {"get",
       "pool",
       "NAME",
       "Print a pool as an apply document (YAML).",
       {},
       "gnomonctl get pool etl-db > etl-db.yaml",
       GetPool},
      {"get",
       "pools",
       "",
       "Print every pool as apply documents (YAML).",
       {},
       "gnomonctl get pools > pools.yaml",
       GetPools},
  };
}

}  // namespace gnomon::cli
