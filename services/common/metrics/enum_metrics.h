// Metrics labelled by a protobuf enum (trigger type, route strategy, handle
// code, ...): label values from the enum's names, and one metric handle per
// value, created once so the hot path indexes a vector instead of hashing
// labels.
//
//   PerEnum<v1::TriggerType, prometheus::Histogram> lateness(
//       family, "trigger_type", {}, LatenessBuckets());
//   lateness[job.type()].Observe(seconds);
//
// Thread safety: a PerEnum is immutable after construction; the metrics are
// thread-safe.
#ifndef GNOMON_SERVICES_COMMON_METRICS_ENUM_METRICS_H_
#define GNOMON_SERVICES_COMMON_METRICS_ENUM_METRICS_H_

#include <functional>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"
#include "prometheus/family.h"
#include "prometheus/labels.h"

namespace gnomon::metrics {

// The value's name without the enum's prefix, lower-case
// ("TRIGGER_TYPE_FIX_RATE" -> "fix_rate"); "other" for the UNSPECIFIED
// value (0) and for a number the enum does not name (a newer peer's).
std::string EnumLabel(const google::protobuf::EnumDescriptor& d, int number);
template <typename E>
std::string EnumLabel(E value) {
  return EnumLabel(*google::protobuf::GetEnumDescriptor<E>(), static_cast<int>(value));
}

template <typename E, typename M>
class PerEnum {
 public:
  // Labels of the metric for an enum number (0 for "other") besides the
  // enum's own.
  using LabelsOf = std::function<prometheus::Labels(int number)>;

  // One metric of `family` per value E names, plus "other": labels `fixed`
  // and `label`=EnumLabel(value); `args` go to Family::Add (a histogram's
  // buckets).
  template <typename... Args>
  PerEnum(prometheus::Family<M>& family, const std::string& label, const prometheus::Labels& fixed,
          const Args&... args)
      : PerEnum(family, LabelsOf([fixed](int) { return fixed; }), label, args...) {}

  // As above, with further labels that depend on the value.
  template <typename... Args>
  PerEnum(prometheus::Family<M>& family, const LabelsOf& labels_of, const std::string& label,
          const Args&... args) {
    auto add = [&](int number) {
      prometheus::Labels labels = labels_of(number);
      labels[label] = EnumLabel(*google::protobuf::GetEnumDescriptor<E>(), number);
      return &family.Add(labels, args...);
    };
    other_ = add(0);
    const google::protobuf::EnumDescriptor& d = *google::protobuf::GetEnumDescriptor<E>();
    for (int i = 0; i < d.value_count(); ++i) {
      const int n = d.value(i)->number();
      if (n <= 0) continue;  // UNSPECIFIED counts as "other".
      if (static_cast<size_t>(n) >= by_number_.size()) by_number_.resize(n + 1, nullptr);
      by_number_[n] = add(n);
    }
  }

  M& operator[](int number) const {
    if (number <= 0 || static_cast<size_t>(number) >= by_number_.size() ||
        by_number_[number] == nullptr) {
      return *other_;
    }
    return *by_number_[number];
  }

 private:
  std::vector<M*> by_number_;  // Index: the enum's number; null where it names none.
  M* other_ = nullptr;
};

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_ENUM_METRICS_H_
