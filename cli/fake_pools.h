// The pool calls of the fake JobAdmin (fake_servers.h; test only): pools
// kept by name as FakeNamed keeps them (fake_named.h), answered as the
// server answers: the counts (running, queued) are the server's, so a
// create starts them at 0 and an update replaces only description and
// slots. ListPoolQueue answers the queue a test put in `queues` for a
// stored pool, its queued runs cut to the request's limit (0: 100) and
// queued_total, when the test left it 0, the number it had. Nothing checks
// ranges.
//
//   FakePools p;
//   v1::Pool created;
//   p.CreatePool(request, &created);        // created.id() == 1
//   *p.queues["etl-db"].add_queued() = run;
//   p.Names(job);                           // OK, or NOT_FOUND "job.pool: ..."
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_POOLS_H_
#define GNOMON_CLI_FAKE_POOLS_H_

#include <map>
#include <string>

#include "cli/fake_named.h"
#include "gnomon/v1/admin.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct FakePools : FakeNamed<v1::Pool> {
  FakePools() : FakeNamed({"pool", "a pool", "pool", "pool"}) {}

  // The queue of each pool, by name, as ListPoolQueue answers it.
  std::map<std::string, v1::ListPoolQueueResponse> queues;

  grpc::Status CreatePool(const v1::CreatePoolRequest& req, v1::Pool* resp) {
    v1::Pool pool = req.pool();
    pool.clear_running();
    pool.clear_queued();
    return Create(pool, resp);
  }
  grpc::Status GetPool(const v1::GetPoolRequest& req, v1::Pool* resp) {
    return Get(req.name(), resp);
  }
  grpc::Status ListPools(const v1::ListPoolsRequest&, v1::ListPoolsResponse* resp) {
    for (const auto& [name, p] : stored) *resp->add_pools() = p;
    return grpc::Status::OK;
  }
  grpc::Status UpdatePool(const v1::UpdatePoolRequest& req, v1::Pool* resp) {
    v1::Pool pool;
    if (auto it = stored.find(req.pool().name()); it != stored.end()) pool = it->second;
    pool.set_name(req.pool().name());
    pool.set_description(req.pool().description());
    pool.set_slots(req.pool().slots());
    return Replace(pool, resp);
  }
  grpc::Status DeletePool(const v1::DeletePoolRequest& req, v1::DeletePoolResponse*) {
    return Delete(req.name());
  }
  grpc::Status ListPoolQueue(const v1::ListPoolQueueRequest& req, v1::ListPoolQueueResponse* resp) {
    v1::Pool pool;
    if (grpc::Status s = Get(req.name(), &pool); !s.ok()) return s;
    *resp = queues[req.name()];
    const int limit = req.limit() == 0 ? 100 : req.limit();
    if (resp->queued_total() == 0) resp->set_queued_total(resp->queued_size());
    while (resp->queued_size() > limit) resp->mutable_queued()->RemoveLast();
    return grpc::Status::OK;
  }

  // OK when `job` names no pool or a stored one; else NOT_FOUND naming
  // job.pool, as the server answers CreateJob and UpdateJob.
  grpc::Status Names(const v1::Job& job) const {
    if (job.pool().empty()) return grpc::Status::OK;
    return Known("job.pool", job.pool());
  }
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_POOLS_H_
