#include "services/common/metrics/enum_metrics.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace gnomon::metrics {

std::string EnumLabel(const google::protobuf::EnumDescriptor& d, int number) {
  const google::protobuf::EnumValueDescriptor* v = d.FindValueByNumber(number);
  if (number == 0 || v == nullptr) return "other";
  // The prefix is what the UNSPECIFIED value's name has before it
  // ("TRIGGER_TYPE_UNSPECIFIED" -> "TRIGGER_TYPE_").
  std::string prefix;
  if (const auto* zero = d.FindValueByNumber(0);
      zero != nullptr && absl::EndsWith(zero->name(), "UNSPECIFIED")) {
    prefix = zero->name().substr(0, zero->name().size() - sizeof("UNSPECIFIED") + 1);
  }
  std::string name = v->name();
  if (absl::StartsWith(name, prefix)) name = name.substr(prefix.size());
  return absl::AsciiStrToLower(name);
}

}  // namespace gnomon::metrics
