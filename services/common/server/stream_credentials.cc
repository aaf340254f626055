#include "services/common/server/stream_credentials.h"

#include <utility>

#include "google/protobuf/util/message_differencer.h"

namespace gnomon {

namespace {

bool SameAccess(const Access& a, const Access& b) {
  return a.role == b.role && google::protobuf::util::MessageDifferencer::Equals(a.grants, b.grants);
}

}  // namespace

StreamCredentials::StreamCredentials(Authenticator* auth, Authenticator::MetadataLookup metadata,
                                     std::string_view service, std::string_view method,
                                     Caller opened, absl::Duration every, Clock* clock)
    : auth_(auth),
      metadata_(std::move(metadata)),
      service_(service),
      method_(method),
      every_(every),
      clock_(clock),
      caller_(std::move(opened)),
      next_(clock->Now() + every) {}

StreamCredentials::StreamCredentials(Authenticator* auth, const grpc::ServerContext& context,
                                     std::string_view service, std::string_view method,
                                     Caller opened, absl::Duration every, Clock* clock)
    : StreamCredentials(
          auth, [&context](std::string_view key) { return MetadataValue(context, key); }, service,
          method, std::move(opened), every, clock) {}

absl::Status StreamCredentials::Check(const Reach& reach) {
  const absl::Time now = clock_->Now();
  if (now < next_) return absl::OkStatus();
  next_ = now + every_;
  absl::StatusOr<Caller> again = auth_->Authorize(metadata_, service_, method_);
  if (absl::IsUnauthenticated(again.status()) || absl::IsPermissionDenied(again.status())) {
    return again.status();
  }
  // The store could not say (Unavailable): not a refusal; asked again next time.
  if (!again.ok()) return absl::OkStatus();
  if (reach && !SameAccess(again->access, caller_.access)) {
    absl::Status s = reach(again->access);
    if (absl::IsPermissionDenied(s)) return s;
    if (!s.ok()) return absl::OkStatus();  // Checked again next time, as the access still differs.
  }
  caller_ = *std::move(again);
  return absl::OkStatus();
}

}  // namespace gnomon
