#include "tests/support/request_mutations.h"

#include <cmath>
#include <functional>
#include <limits>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"

namespace gnomon::testing {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Step {
  const FieldDescriptor* field;
  int index;  // -1: singular.
};
using Steps = std::vector<Step>;
using Setter = std::function<void(Message* parent)>;

bool IsIdField(const FieldDescriptor* f) {
  const std::string& n = f->name();
  return n == "id" || absl::EndsWith(n, "_id") || absl::EndsWith(n, "_ids") || n == "line_number";
}

class Walker {
 public:
  Walker(const Message& baseline, const LimitTable& table, const std::set<std::string>& exempt,
         std::set<std::string>* unlisted, std::set<std::string>* used)
      : baseline_(baseline), table_(table), exempt_(exempt), unlisted_(unlisted), used_(used) {}

  std::vector<Mutation> Run() {
    WalkMessage(baseline_, {});
    return std::move(out_);
  }

 private:
  static std::string PathOf(const Steps& steps, const FieldDescriptor* leaf, int index) {
    std::string p;
    for (const Step& s : steps) {
      absl::StrAppend(&p, p.empty() ? "" : ".", s.field->name(),
                      s.index < 0 ? "" : absl::StrCat("[", s.index, "]"));
    }
    absl::StrAppend(&p, p.empty() ? "" : ".", leaf->name(),
                    index < 0 ? "" : absl::StrCat("[", index, "]"));
    return p;
  }

  static Message* Navigate(Message* root, const Steps& steps) {
    Message* m = root;
    for (const Step& s : steps) {
      const Reflection* r = m->GetReflection();
      m = s.index < 0 ? r->MutableMessage(m, s.field)
                      : r->MutableRepeatedMessage(m, s.field, s.index);
    }
    return m;
  }

  // The longest row whose field is `list_path` or a dotted suffix of it.
  const LimitRow* Row(const std::string& list_path) {
    const LimitRow* best = nullptr;
    for (const LimitRow& r : table_) {
      if ((list_path == r.field || absl::EndsWith(list_path, "." + r.field)) &&
          (best == nullptr || r.field.size() > best->field.size())) {
        best = &r;
      }
    }
    if (best == nullptr) {
      unlisted_->insert(list_path);
    } else {
      used_->insert(best->field);
    }
    return best;
  }

  void Emit(const Steps& steps, const std::string& path, std::string what, const LimitRow* row,
            std::string expect, Setter set) {
    Mutation m;
    m.path = path;
    m.what = std::move(what);
    m.row = row == nullptr ? "" : row->field;
    m.expect_in_message = std::move(expect);
    m.request.reset(baseline_.New());
    m.request->CopyFrom(baseline_);
    set(Navigate(m.request.get(), steps));
    out_.push_back(std::move(m));
  }

  void WalkMessage(const Message& existing, const Steps& steps) {
    const Descriptor* d = existing.GetDescriptor();
    const Reflection* r = existing.GetReflection();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (f->containing_oneof() != nullptr && !r->HasField(existing, f)) continue;
      if (exempt_.count(ListPath(PathOf(steps, f, -1)))) continue;
      if (f->is_repeated()) {
        WalkRepeated(existing, steps, f);
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        WalkSingularMessage(existing, steps, f);
      } else {
        WalkScalar(steps, f, -1);
      }
    }
  }

  void WalkSingularMessage(const Message& existing, const Steps& steps, const FieldDescriptor* f) {
    const std::string type = f->message_type()->full_name();
    if (type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration") {
      WalkTime(steps, f, type == "google.protobuf.Duration");
      return;
    }
    Steps next = steps;
    next.push_back({f, -1});
    WalkMessage(existing.GetReflection()->GetMessage(existing, f), next);
  }

  // Timestamps follow one rule; durations also need a row for their range.
  void WalkTime(const Steps& steps, const FieldDescriptor* f, bool duration) {
    const std::string path = PathOf(steps, f, -1);
    const LimitRow* row = nullptr;
    int64_t over = 0;
    if (duration) {
      row = Row(ListPath(path));
      if (row == nullptr) return;
      Limit l = ParseLimit(row->limit);
      if (l.kind != Limit::kDurations) {
        unlisted_->insert(ListPath(path) + " (unparsed limit)");
        return;
      }
      over = absl::ToInt64Seconds(l.dhi) + 1;
    }
    auto set = [f](int64_t seconds, int32_t nanos) {
      return [f, seconds, nanos](Message* parent) {
        Message* t = parent->GetReflection()->MutableMessage(parent, f);
        const Descriptor* td = t->GetDescriptor();
        t->GetReflection()->SetInt64(t, td->FindFieldByName("seconds"), seconds);
        t->GetReflection()->SetInt32(t, td->FindFieldByName("nanos"), nanos);
      };
    };
    Emit(steps, path, "nanos -1", row, "", set(1, -1));
    Emit(steps, path, "seconds -1", row, "", set(-1, 0));
    Emit(steps, path, "seconds INT64_MAX", row, "", set(std::numeric_limits<int64_t>::max(), 0));
    if (duration) Emit(steps, path, absl::StrCat("seconds ", over), row, "", set(over, 0));
  }

  void WalkRepeated(const Message& existing, const Steps& steps, const FieldDescriptor* f) {
    const Reflection* r = existing.GetReflection();
    const std::string path = PathOf(steps, f, -1);
    const int size = r->FieldSize(existing, f);
    if (size == 0) return;  // Walked where a baseline has an element to repeat and change.
    if (const LimitRow* row = Row(ListPath(path)); row != nullptr) {
      Limit l = ParseLimit(row->limit);
      if (l.kind != Limit::kItems) {
        unlisted_->insert(ListPath(path) + " (not an items limit)");
      } else {
        const int n = static_cast<int>(l.max) + 1;
        Emit(steps, path, absl::StrCat(n, " items"), row, absl::StrCat("at most ", l.max, " items"),
             [f, n](Message* parent) { Repeat(parent, f, n); });
        if (l.required) {
          Emit(steps, path, "no items", row, "",
               [f](Message* parent) { parent->GetReflection()->ClearField(parent, f); });
        }
      }
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      Steps next = steps;
      next.push_back({f, 0});
      WalkMessage(r->GetRepeatedMessage(existing, f, 0), next);
    } else {
      WalkScalar(steps, f, 0);
    }
  }

  // Makes `f` hold `n` copies of its first element (distinct keys for a map).
  static void Repeat(Message* parent, const FieldDescriptor* f, int n) {
    const Reflection* r = parent->GetReflection();
    while (r->FieldSize(*parent, f) > 1) r->RemoveLast(parent, f);
    for (int i = 1; i < n; ++i) {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_MESSAGE: {
          Message* m = r->AddMessage(parent, f);
          m->CopyFrom(r->GetRepeatedMessage(*parent, f, 0));
          if (f->is_map()) {
            m->GetReflection()->SetString(m, m->GetDescriptor()->FindFieldByName("key"),
                                          absl::StrCat("k", i));
          }
          break;
        }
        case FieldDescriptor::CPPTYPE_STRING:
          r->AddString(parent, f, r->GetRepeatedString(*parent, f, 0));
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          r->AddInt64(parent, f, r->GetRepeatedInt64(*parent, f, 0));
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          r->AddEnumValue(parent, f, r->GetRepeatedEnumValue(*parent, f, 0));
          break;
        default:
          ADD_FAILURE() << "Repeat: unhandled type of " << f->full_name();
      }
    }
  }

  void WalkScalar(const Steps& steps, const FieldDescriptor* f, int index) {
    const std::string path = PathOf(steps, f, index);
    if (exempt_.count(ListPath(path))) return;
    auto emit = [&](std::string what, const LimitRow* row, std::string expect, Setter set) {
      Emit(steps, path, std::move(what), row, std::move(expect), std::move(set));
    };
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_BOOL:
        return;  // Any value is meaningful.
      case FieldDescriptor::CPPTYPE_ENUM:
        emit("enum value 12345", nullptr, "", [f, index](Message* p) {
          index < 0 ? p->GetReflection()->SetEnumValue(p, f, 12345)
                    : p->GetReflection()->SetRepeatedEnumValue(p, f, index, 12345);
        });
        return;
      case FieldDescriptor::CPPTYPE_STRING:
        return WalkString(path, f, index, emit);
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return WalkDouble(path, f, emit);
      default:
        return WalkInteger(path, f, index, emit);
    }
  }

  template <typename EmitFn>
  void WalkString(const std::string& path, const FieldDescriptor* f, int index, EmitFn& emit) {
    auto set = [f, index](std::string v) {
      return [f, index, v = std::move(v)](Message* p) {
        index < 0 ? p->GetReflection()->SetString(p, f, v)
                  : p->GetReflection()->SetRepeatedString(p, f, index, v);
      };
    };
    // Whatever its limits: protobuf refuses to parse it (a lead byte
    // without its continuation byte).
    if (f->type() == FieldDescriptor::TYPE_STRING) {
      emit("invalid UTF-8", nullptr, "not valid UTF-8", set("ok \xc3("));
    }
    const LimitRow* row = Row(ListPath(path));
    if (row == nullptr) return;
    Limit l = ParseLimit(row->limit);
    switch (l.kind) {
      case Limit::kBytes:
        emit(absl::StrCat(l.max + 1, " bytes"), row, absl::StrCat("at most ", l.max, " bytes"),
             set(std::string(l.max + 1, 'a')));
        if (l.required) emit("empty", row, "", set(""));
        if (l.min > 1)
          emit(absl::StrCat(l.min - 1, " bytes"), row, "", set(std::string(l.min - 1, 'a')));
        if (l.name) emit("not a name", row, "", set("bad/name"));
        if (!l.any_bytes) emit("a control character", row, "", set("bad\x01"));
        return;
      case Limit::kOneOf:
        emit("\"bogus\"", row, "", set("bogus"));
        emit("1 MiB", row, "", set(std::string(1 << 20, 'p')));
        return;
      default:
        unlisted_->insert(ListPath(path) + " (unparsed limit)");
    }
  }

  template <typename EmitFn>
  void WalkDouble(const std::string& path, const FieldDescriptor* f, EmitFn& emit) {
    const LimitRow* row = Row(ListPath(path));
    if (row == nullptr) return;
    Limit l = ParseLimit(row->limit);
    double lo = 0, hi = 0;
    if (l.kind != Limit::kRange || !absl::SimpleAtod(l.lo_text, &lo) ||
        !absl::SimpleAtod(l.hi_text, &hi)) {
      unlisted_->insert(ListPath(path) + " (unparsed limit)");
      return;
    }
    for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(), lo - 1, hi * 2 + 1}) {
      emit(absl::StrCat(v), row, "",
           [f, v](Message* p) { p->GetReflection()->SetDouble(p, f, v); });
    }
  }

  template <typename EmitFn>
  void WalkInteger(const std::string& path, const FieldDescriptor* f, int index, EmitFn& emit) {
    const bool is_signed = f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 ||
                           f->cpp_type() == FieldDescriptor::CPPTYPE_INT64;
    const bool wide = f->cpp_type() == FieldDescriptor::CPPTYPE_INT64 ||
                      f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
    auto set = [f, index](int64_t v) {
      return [f, index, v](Message* p) {
        const Reflection* r = p->GetReflection();
        switch (f->cpp_type()) {
          case FieldDescriptor::CPPTYPE_INT32:
            index < 0 ? r->SetInt32(p, f, v) : r->SetRepeatedInt32(p, f, index, v);
            break;
          case FieldDescriptor::CPPTYPE_INT64:
            index < 0 ? r->SetInt64(p, f, v) : r->SetRepeatedInt64(p, f, index, v);
            break;
          case FieldDescriptor::CPPTYPE_UINT32:
            index < 0 ? r->SetUInt32(p, f, v) : r->SetRepeatedUInt32(p, f, index, v);
            break;
          default:
            index < 0 ? r->SetUInt64(p, f, v) : r->SetRepeatedUInt64(p, f, index, v);
        }
      };
    };
    if (IsIdField(f)) {
      if (is_signed) emit("-1", nullptr, "", set(-1));
      return;
    }
    const LimitRow* row = Row(ListPath(path));
    if (row == nullptr) return;
    Limit l = ParseLimit(row->limit);
    int64_t lo = 0, hi = 0;
    if (l.kind != Limit::kRange || !absl::SimpleAtoi(l.lo_text, &lo) ||
        !absl::SimpleAtoi(l.hi_text, &hi)) {
      unlisted_->insert(ListPath(path) + " (unparsed limit)");
      return;
    }
    const int64_t type_max = is_signed ? (wide ? std::numeric_limits<int64_t>::max() : INT32_MAX)
                                       : (wide ? std::numeric_limits<int64_t>::max() : UINT32_MAX);
    const int64_t type_min =
        is_signed ? (wide ? std::numeric_limits<int64_t>::min() : INT32_MIN) : 0;
    const std::string range = absl::StrCat(lo, "..", hi);
    if (lo > type_min) emit(absl::StrCat(lo - 1), row, range, set(lo - 1));
    if (hi < type_max) emit(absl::StrCat(hi + 1), row, range, set(hi + 1));
    if (hi < type_max - 1) emit(absl::StrCat(type_max), row, range, set(type_max));
  }

  const Message& baseline_;
  const LimitTable& table_;
  const std::set<std::string>& exempt_;
  std::set<std::string>* const unlisted_;
  std::set<std::string>* const used_;
  std::vector<Mutation> out_;
};

}  // namespace

std::vector<Mutation> Mutate(const Message& baseline, const LimitTable& table,
                             const std::set<std::string>& exempt, std::set<std::string>* unlisted,
                             std::set<std::string>* used) {
  return Walker(baseline, table, exempt, unlisted, used).Run();
}

std::string ListPath(const std::string& path) {
  return std::regex_replace(path, std::regex(R"(\[\d+\])"), "[]");
}

std::string BarePath(const std::string& path) {
  return std::regex_replace(path, std::regex(R"(\[\d*\])"), "");
}

}  // namespace gnomon::testing
