// StaticFiles: the web console's built files, served by GET from a
// directory: "/" is index.html, a file that exists is itself, and any other
// path without a file extension is index.html too (the single-page app routes
// it). Hashed assets under /assets/ are cached for a year; everything else is
// revalidated. HTML carries a Content-Security-Policy that allows only the
// console's own scripts and the API on the same origin.
//
//   if (ServeStatic("/usr/share/gnomon/console", request, response)) return;
//
// Paths with "..", backslashes or NUL are refused (404), so nothing outside
// the directory is ever read.
//
// Thread safety: thread-safe (reads files per request).
#ifndef GNOMON_SERVICES_COMMON_HTTP_STATIC_FILES_H_
#define GNOMON_SERVICES_COMMON_HTTP_STATIC_FILES_H_

#include <string>

#include "services/common/http/http_server.h"

namespace gnomon::http {

// Answers `req` (a GET or HEAD) from `dir`: true if it answered (a file, or
// 404 for a missing file with an extension), false if `dir` is empty.
bool ServeStatic(const std::string& dir, const HttpRequest& req, HttpResponse& resp);

}  // namespace gnomon::http

#endif  // GNOMON_SERVICES_COMMON_HTTP_STATIC_FILES_H_
