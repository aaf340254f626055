// YAML for gnomonctl, by way of protobuf's JSON mapping: `-o yaml` prints a
// response as the YAML form of its JSON, and files of YAML documents (e.g.
// `apply -f`) become JSON that JsonStringToMessage reads into messages.
//
//   absl::StatusOr<std::string> text = MessageToYaml(job);   // "id: \"7\"\n..."
//   absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments(file);
//   v1::Job job;
//   absl::Status s = YamlDocumentToMessage((*docs)[0], &job);
//   // "document 2 (line 14): ..." when the document is not a Job
//
// Fields keep their order: on output that of protobuf's JSON printer (the
// same as -o json), on input the file's. Plain scalars follow the YAML 1.2 core schema (null,
// true/false, integers incl. 0x/0o, floats incl. .inf/.nan); a string that
// would read as another type is printed double-quoted, so int64 fields, which
// the JSON mapping writes as strings, print as "7". Anchors and aliases are
// resolved; tags other than the standard ones are ignored.
//
// Thread safety: pure functions.
#ifndef GNOMON_CLI_YAML_JSON_H_
#define GNOMON_CLI_YAML_JSON_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace gnomon::cli {

// One document of a YAML stream, as compact JSON.
struct YamlDocument {
  // 1-based position in the stream (empty documents count too).
  int index = 0;
  // 1-based line where the document's content starts.
  int line = 0;
  // The document as JSON text.
  std::string json;
};

// The YAML form of `json` (one JSON value), block style, ending in a newline.
absl::StatusOr<std::string> JsonToYaml(absl::string_view json);

// `message` in protobuf's JSON mapping (proto field names, default values
// included), as YAML.
absl::StatusOr<std::string> MessageToYaml(const google::protobuf::Message& message);

// Every non-empty document of `yaml` ("---" separates them). A syntax error
// is InvalidArgument naming the document, line and column; so are duplicate
// keys and keys that are not scalars.
absl::StatusOr<std::vector<YamlDocument>> ParseYamlDocuments(absl::string_view yaml);

// Reads `document` into `message` (unknown fields are errors); errors are
// InvalidArgument "document N (line L): ...".
absl::Status YamlDocumentToMessage(const YamlDocument& document,
                                   google::protobuf::Message* message);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_YAML_JSON_H_
