#include "cli/manifests.h"

#include "absl/strings/str_cat.h"
#include "cli/yaml_json.h"

namespace gnomon::cli {

int PrintManifests(CommandContext& c, const std::vector<v1::Manifest>& docs) {
  for (size_t i = 0; i < docs.size(); ++i) {
    absl::StatusOr<std::string> text = MessageToYaml(docs[i]);
    if (!text.ok()) return c.Fail(std::string(text.status().message()));
    c.out() << (i > 0 ? "---\n" : "") << *text;
  }
  return kExitOk;
}

absl::Status CheckUngroupedManifest(const v1::Manifest& manifest, std::string_view field,
                                    std::string_view name, std::string_view plural) {
  if (name.empty())
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ".name is required"));
  if (!manifest.app().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("app: ", std::string(plural), " belong to no group; remove app"));
  }
  return absl::OkStatus();
}

grpc::Status ApplyByName(const ByNameCalls& calls, bool dry_run, std::string* outcome) {
  grpc::Status s = calls.get();
  const bool exists = s.error_code() != grpc::StatusCode::NOT_FOUND;
  if (exists && !s.ok()) return s;
  if (calls.check) {
    if (grpc::Status check = calls.check(exists); !check.ok()) return check;
  }
  if (!exists) {
    *outcome = "created";
    return dry_run ? grpc::Status::OK : calls.create();
  }
  if (calls.unchanged()) {
    *outcome = "unchanged";
    return grpc::Status::OK;
  }
  *outcome = "configured";
  return dry_run ? grpc::Status::OK : calls.replace();
}

}  // namespace gnomon::cli
