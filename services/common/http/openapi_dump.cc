// openapi_dump: prints the OpenAPI document of the HTTP/JSON transport of the
// JobAdmin, LogService and Registry services, for
// tests/support/openapi_valid_test.sh.
#include <iostream>

#include "services/common/http/openapi.h"

int main() {
  std::cout << gnomon::http::OpenApiJson(
                   {"gnomon.v1.JobAdmin", "gnomon.v1.LogService", "gnomon.v1.Registry"},
                   "0.0.0-test")
            << "\n";
  return 0;
}
