#include "services/scheduler/alarm/email_channel.h"

#include <algorithm>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler::alarm {
namespace {

// RFC 5322 caps lines at 998 octets; longer text is split a little earlier.
constexpr size_t kMaxLine = 900;

// The largest n <= max such that s[0, n) ends on a UTF-8 character boundary.
size_t Utf8Prefix(const std::string& s, size_t start, size_t max) {
  size_t n = std::min(max, s.size() - start);
  if (start + n == s.size()) return n;
  while (n > 0 && (static_cast<unsigned char>(s[start + n]) & 0xC0) == 0x80) --n;
  return n == 0 ? std::min(max, s.size() - start) : n;
}

bool IsAscii(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\r', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// The Subject: header value: plain ASCII as is, anything else as RFC 2047
// encoded words of at most 75 characters, folded onto continuation lines.
std::string SubjectHeader(const std::string& text) {
  if (IsAscii(text) && text.size() <= kMaxLine - 10) return text;
  std::vector<std::string> words;
  for (size_t pos = 0; pos < text.size();) {
    size_t n = Utf8Prefix(text, pos, 45);
    words.push_back(absl::StrCat("=?UTF-8?B?", absl::Base64Escape(text.substr(pos, n)), "?="));
    pos += n;
  }
  return absl::StrJoin(words, "\r\n ");
}

// Appends `text` as body lines: CRLF line ends, long lines split.
void AppendBodyText(std::string* out, const std::string& text) {
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    std::string line =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t pos = 0;
    do {
      size_t n = Utf8Prefix(line, pos, kMaxLine);
      absl::StrAppend(out, line.substr(pos, n), "\r\n");
      pos += n;
    } while (pos < line.size());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

bool ValidAddress(const std::string& a) {
  return !a.empty() && a.find_first_of("\r\n<>, \t") == std::string::npos &&
         a.find('@') != std::string::npos;
}

struct Upload {
  const std::string* data;
  size_t offset = 0;
};

size_t ReadUpload(char* buffer, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  size_t len = std::min(size * n, u->data->size() - u->offset);
  // curl's read buffer takes raw bytes, no terminating NUL.
  std::copy_n(u->data->data() + u->offset, len, buffer);
  u->offset += len;
  return len;
}

}  // namespace

std::string AlarmMailMessage(const Alarm& alarm, const std::string& from, absl::Time now) {
  std::string count =
      alarm.failed_runs > 1 ? absl::StrCat(" (", alarm.failed_runs, " runs)") : std::string();
  const char* what = alarm.kind == AlarmKind::kDeadlineMissed ? " missed its deadline"
                     : alarm.kind == AlarmKind::kSucceeded    ? " succeeded"
                                                              : " failed";
  std::string subject = OneLine(
      absl::StrCat("[gnomon] job ", alarm.job.id(), what, count, ": ", alarm.job.description()));
  std::string m;
  absl::StrAppend(
      &m, "Date: ", absl::FormatTime("%a, %d %b %Y %H:%M:%S +0000", now, absl::UTCTimeZone()),
      "\r\n");
  absl::StrAppend(&m, "From: <", from, ">\r\n");
  absl::StrAppend(&m, "To: ", absl::StrJoin(alarm.job.alarm().emails(), ", "), "\r\n");
  absl::StrAppend(&m, "Subject: ", SubjectHeader(subject), "\r\n");
  absl::StrAppend(&m, "Message-ID: <gnomon-alarm.", alarm.run.id(), ".", absl::ToUnixMicros(now),
                  "@gnomon>\r\n");
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: text/plain; charset=utf-8\r\n";
  m += "Content-Transfer-Encoding: 8bit\r\n";
  m += "\r\n";
  AppendBodyText(&m, absl::StrCat("Run ", alarm.run.id(), " of job ", alarm.job.id(),
                                  " failed and will not be retried: ", alarm.reason));
  if (std::string summary = SummaryLine(alarm); !summary.empty()) AppendBodyText(&m, summary);
  m += "\r\n";
  for (const AlarmField& f : AlarmFields(alarm)) {
    AppendBodyText(&m, absl::StrCat(f.name, ": ", f.value));
  }
  return m;
}

EmailChannel::EmailChannel(EmailOptions options)
    : options_(std::move(options)), clock_(options_.clock ? options_.clock : &RealClock()) {
  curl::CurlGlobalInit();
}

bool EmailChannel::Wants(const v1::Job& job) const {
  return !options_.smtp_url.empty() && job.alarm().emails_size() > 0;
}

absl::Status EmailChannel::Send(const Alarm& alarm) {
  const std::string shown = curl::RedactUrl(options_.smtp_url);
  if (!ValidAddress(options_.from)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid sender address \"", options_.from, "\""));
  }
  curl::CurlEasy curl(curl_easy_init());
  curl::CurlSlist rcpt;
  if (curl == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(shown, ": cannot allocate a curl handle"));
  }
  for (const std::string& to : alarm.job.alarm().emails()) {
    if (!ValidAddress(to)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid recipient address \"", OneLine(to), "\""));
    }
    if (!curl::SlistAppend(&rcpt, absl::StrCat("<", to, ">"))) {
      return absl::ResourceExhaustedError("out of memory");
    }
  }
  const std::string message = AlarmMailMessage(alarm, options_.from, clock_->Now());
  const std::string mail_from = absl::StrCat("<", options_.from, ">");
  Upload upload{&message};
  char errbuf[CURL_ERROR_SIZE] = {0};
  long timeout_ms =
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(options_.timeout)));
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, options_.smtp_url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  if (options_.smtp_url.rfind("smtps://", 0) != 0) {
    curl_easy_setopt(c, CURLOPT_USE_SSL,
                     static_cast<long>(options_.require_tls ? CURLUSESSL_ALL : CURLUSESSL_TRY));
  }
  if (!options_.username.empty()) {
    curl_easy_setopt(c, CURLOPT_USERNAME, options_.username.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, options_.password.c_str());
  }
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt.get());
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, &ReadUpload);
  curl_easy_setopt(c, CURLOPT_READDATA, &upload);
  curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_OK) return absl::OkStatus();
  std::string text = absl::StrCat(shown, ": ", curl::CurlErrorText(rc, errbuf));
  long reply = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply);
  if (reply != 0) absl::StrAppend(&text, " (SMTP ", reply, ")");
  if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
    return absl::InvalidArgumentError(text);
  }
  return absl::UnavailableError(text);
}

}  // namespace gnomon::scheduler::alarm
