#include "bench/metrics_scraper.h"

#include <curl/curl.h>

#include <utility>

namespace gnomon::bench {
namespace {

// The body's size, or -1 on failure.
int64_t Scrape(CURL* curl, const std::string& url) {
  int64_t bytes = 0;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void* out) {
        *static_cast<int64_t*>(out) += static_cast<int64_t>(size * n);
        return size * n;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &bytes);
  long code = 0;
  if (curl_easy_perform(curl) != CURLE_OK ||
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK || code != 200) {
    return -1;
  }
  return bytes;
}

}  // namespace

MetricsScraper::MetricsScraper(std::vector<std::string> urls, absl::Duration every)
    : urls_(std::move(urls)), every_(every) {
  thread_ = std::thread([this] {
    CURL* curl = curl_easy_init();
    absl::Time next = absl::Now();
    // The interval is the bench's own pacing, not synchronisation.
    while (!stop_.WaitForNotificationWithDeadline(next)) {
      for (const std::string& url : urls_) {
        const int64_t bytes = Scrape(curl, url);
        ++totals_.scrapes;
        if (bytes < 0) {
          ++totals_.failures;
        } else {
          totals_.bytes += bytes;
        }
      }
      next += every_;
    }
    curl_easy_cleanup(curl);
  });
}

MetricsScraper::~MetricsScraper() { Stop(); }

MetricsScraper::Totals MetricsScraper::Stop() {
  if (thread_.joinable()) {
    stop_.Notify();
    thread_.join();
  }
  return totals_;
}

}  // namespace gnomon::bench
