#include "proto/testing/declared_methods.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/executor.pb.h"
#include "gnomon/v1/handlers.pb.h"
#include "gnomon/v1/log.pb.h"
#include "gnomon/v1/manifest.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "gnomon/v1/workflow.pb.h"

namespace gnomon::testing {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;
using google::protobuf::MethodDescriptor;

absl::StatusOr<std::vector<const MethodDescriptor*>> DeclaredMethods() {
  // A file's descriptor is in the generated pool only if its object file is
  // linked, which a static library does only for files something refers to:
  // refer to each one here.
  const FileDescriptor* linked[] = {v1::Group::descriptor()->file(),
                                    v1::SessionRequest::descriptor()->file(),
                                    v1::DispatchRequest::descriptor()->file(),
                                    v1::ReportResultsRequest::descriptor()->file(),
                                    v1::CreateGroupRequest::descriptor()->file(),
                                    v1::Manifest::descriptor()->file(),
                                    v1::HttpTask::descriptor()->file(),
                                    v1::Workflow::descriptor()->file()};
  (void)linked;
  std::vector<const MethodDescriptor*> out;
  for (absl::string_view file : absl::StrSplit(GNOMON_PROTO_FILES, ',')) {
    const FileDescriptor* f = DescriptorPool::generated_pool()->FindFileByName(std::string(file));
    if (f == nullptr) {
      return absl::NotFoundError(absl::StrCat(file,
                                              " is not in the generated pool: refer to one of its ",
                                              "messages in proto/testing/declared_methods.cc"));
    }
    for (int s = 0; s < f->service_count(); ++s) {
      for (int m = 0; m < f->service(s)->method_count(); ++m)
        out.push_back(f->service(s)->method(m));
    }
  }
  return out;
}

}  // namespace gnomon::testing
