// AppendJsonString: a string as a JSON string literal — for the few places
// that write JSON by hand (log lines, alarm documents) rather than from a
// protobuf message; Utf8CharLength: where a well-formed UTF-8 character
// ends, for the places that clean text to UTF-8.
//
//   std::string out = "{\"msg\":";
//   AppendJsonString(&out, text);  // "\"said \\\"hi\\\"\\n\""
//
// Thread safety: plain function.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_JSON_TEXT_H_
#define GNOMON_SERVICES_COMMON_CLIENT_JSON_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace gnomon {

// The length of the well-formed UTF-8 character at s[i] (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF): 1 for ASCII, 2 to
// 4, or 0 if none starts there.
size_t Utf8CharLength(absl::string_view s, size_t i);

// Appends `s` quoted, with '"', '\\' and control characters escaped; valid
// UTF-8 as it is, and each byte that is not part of a well-formed UTF-8
// sequence as U+FFFD, so the result is always valid JSON (RFC 8259).
void AppendJsonString(std::string* out, absl::string_view s);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_JSON_TEXT_H_
