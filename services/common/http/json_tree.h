// JSON documents built as google.protobuf.Value trees, and printed with object
// keys in sorted order, so that the same tree always prints the same text
// (protobuf's JSON printer prints a Struct's map in hash order, which varies
// between runs).
//
//   Value schema = Obj({{"type", Str("object")}, {"required", Arr({Str("code")})}});
//   Set(schema, "description", Str("An error."));
//   std::string json = PrintSorted(schema);  // {"description": ..., "required": ..., "type": ...}
//
// Thread safety: plain functions on values.
#ifndef GNOMON_SERVICES_COMMON_HTTP_JSON_TREE_H_
#define GNOMON_SERVICES_COMMON_HTTP_JSON_TREE_H_

#include <initializer_list>
#include <string>
#include <utility>

#include "google/protobuf/struct.pb.h"

namespace gnomon::http::json {

using google::protobuf::Value;

Value Str(std::string s);
Value Num(double n);
Value Bool(bool b);
Value Obj(std::initializer_list<std::pair<std::string, Value>> fields);
Value Arr(std::initializer_list<Value> items);

// obj[key] = value (obj becomes an object if it was not).
void Set(Value& obj, const std::string& key, Value value);
// Appends to an array (arr becomes an array if it was not).
void Append(Value& arr, Value item);

// Two-space indented JSON, object keys sorted bytewise.
std::string PrintSorted(const Value& value);

}  // namespace gnomon::http::json

#endif  // GNOMON_SERVICES_COMMON_HTTP_JSON_TREE_H_
