#include "services/common/http/json_tree.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gnomon::http::json {

Value Str(std::string s) {
  Value v;
  v.set_string_value(std::move(s));
  return v;
}

Value Num(double n) {
  Value v;
  v.set_number_value(n);
  return v;
}

Value Bool(bool b) {
  Value v;
  v.set_bool_value(b);
  return v;
}

Value Obj(std::initializer_list<std::pair<std::string, Value>> fields) {
  Value v;
  v.mutable_struct_value();  // {} even with no fields.
  for (const auto& [key, field] : fields) Set(v, key, field);
  return v;
}

Value Arr(std::initializer_list<Value> items) {
  Value v;
  v.mutable_list_value();  // [] even with no items.
  for (const Value& item : items) Append(v, item);
  return v;
}

void Set(Value& obj, const std::string& key, Value value) {
  (*obj.mutable_struct_value()->mutable_fields())[key] = std::move(value);
}

void Append(Value& arr, Value item) { *arr.mutable_list_value()->add_values() = std::move(item); }

namespace {

void PrintString(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        // Other control characters escaped; UTF-8 bytes pass through as they are.
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void PrintNumber(double n, std::string& out) {
  if (!std::isfinite(n)) {
    out += "null";  // JSON has no NaN or infinity.
  } else if (n == std::trunc(n) && std::fabs(n) < 1e15) {
    absl::StrAppend(&out, static_cast<int64_t>(n));
  } else {
    absl::StrAppendFormat(&out, "%.17g", n);
  }
}

void Print(const Value& v, int depth, std::string& out) {
  const std::string indent(2 * (depth + 1), ' ');
  switch (v.kind_case()) {
    case Value::kStringValue:
      PrintString(v.string_value(), out);
      return;
    case Value::kNumberValue:
      PrintNumber(v.number_value(), out);
      return;
    case Value::kBoolValue:
      out += v.bool_value() ? "true" : "false";
      return;
    case Value::kStructValue: {
      if (v.struct_value().fields().empty()) {
        out += "{}";
        return;
      }
      const std::map<std::string, Value> sorted(v.struct_value().fields().begin(),
                                                v.struct_value().fields().end());
      out += "{";
      const char* sep = "\n";
      for (const auto& [key, field] : sorted) {
        absl::StrAppend(&out, sep, indent);
        PrintString(key, out);
        out += ": ";
        Print(field, depth + 1, out);
        sep = ",\n";
      }
      absl::StrAppend(&out, "\n", indent.substr(2), "}");
      return;
    }
    case Value::kListValue: {
      if (v.list_value().values().empty()) {
        out += "[]";
        return;
      }
      out += "[";
      const char* sep = "\n";
      for (const Value& item : v.list_value().values()) {
        absl::StrAppend(&out, sep, indent);
        Print(item, depth + 1, out);
        sep = ",\n";
      }
      absl::StrAppend(&out, "\n", indent.substr(2), "]");
      return;
    }
    case Value::kNullValue:
    case Value::KIND_NOT_SET:
      out += "null";
      return;
  }
}

}  // namespace

std::string PrintSorted(const Value& value) {
  std::string out;
  Print(value, 0, out);
  out += "\n";
  return out;
}

}  // namespace gnomon::http::json
