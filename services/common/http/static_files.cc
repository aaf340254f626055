#include "services/common/http/static_files.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"

namespace gnomon::http {
namespace {

std::string ContentType(const std::string& path) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".map", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [ext, type] : kTypes) {
    if (absl::EndsWith(path, ext)) return type;
  }
  return "application/octet-stream";
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

bool ServeStatic(const std::string& dir, const HttpRequest& req, HttpResponse& resp) {
  if (dir.empty()) return false;
  const std::string& p = req.path;
  if (absl::StrContains(p, "..") || absl::StrContains(p, "\\") ||
      p.find('\0') != std::string::npos) {
    resp.Send(404, "text/plain; charset=utf-8", "not found\n");
    return true;
  }
  std::string file = dir + (p == "/" ? "/index.html" : p);
  if (!IsFile(file)) {
    const std::string last = p.substr(p.rfind('/') + 1);
    if (last.find('.') != std::string::npos) {
      resp.Send(404, "text/plain; charset=utf-8", "not found\n");
      return true;
    }
    file = dir + "/index.html";  // A route of the single-page app.
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    resp.Send(404, "text/plain; charset=utf-8", "the console is not built\n");
    return true;
  }
  std::stringstream body;
  body << in.rdbuf();
  std::map<std::string, std::string> headers;
  headers["Cache-Control"] =
      absl::StartsWith(p, "/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
  if (absl::EndsWith(file, ".html")) {
    headers["Content-Security-Policy"] =
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "frame-ancestors 'none'";
    headers["X-Frame-Options"] = "DENY";
    headers["Referrer-Policy"] = "no-referrer";
  }
  resp.Send(200, ContentType(file), req.method == "HEAD" ? "" : body.str(), headers);
  return true;
}

}  // namespace gnomon::http
