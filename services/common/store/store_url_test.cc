#include "services/common/store/store_url.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::store {
namespace {

using ::testing::HasSubstr;

TEST(StoreUrlTest, ParsesSqlitePath) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("sqlite:/var/lib/gnomon/gnomon.db");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, StoreUrl::Kind::kSqlite);
  EXPECT_EQ(url->sqlite_path, "/var/lib/gnomon/gnomon.db");
}

TEST(StoreUrlTest, ParsesMysqlWithPassword) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("mysql://gnomon:s3cret@db.example:3307/gnomon");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, StoreUrl::Kind::kMysql);
  EXPECT_EQ(url->mysql.user, "gnomon");
  EXPECT_EQ(url->mysql.password, "s3cret");
  EXPECT_EQ(url->mysql.host, "db.example");
  EXPECT_EQ(url->mysql.port, 3307);
  EXPECT_EQ(url->mysql.database, "gnomon");
}

TEST(StoreUrlTest, ParsesMysqlWithoutPasswordOrPort) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("mysql://root@127.0.0.1/gnomon_test");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->mysql.user, "root");
  EXPECT_EQ(url->mysql.password, "");
  EXPECT_EQ(url->mysql.host, "127.0.0.1");
  EXPECT_EQ(url->mysql.port, 3306);
  EXPECT_EQ(url->mysql.database, "gnomon_test");
}

TEST(StoreUrlTest, PercentDecodesUserAndPassword) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("mysql://us%65r:p%40ss%3Aw%2Fd@h:1/d");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->mysql.user, "user");
  EXPECT_EQ(url->mysql.password, "p@ss:w/d");
}

TEST(StoreUrlTest, RejectsUnknownScheme) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("foo:bar");
  EXPECT_THAT(
      url,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "store url: unknown scheme 'foo'; want sqlite:PATH or mysql://user:pass@host:port/db"));
}

TEST(StoreUrlTest, RejectsMalformedUrls) {
  struct Case {
    std::string url;
    std::string problem;
  };
  for (const Case& c : std::vector<Case>{
           {"", "no scheme"},
           {"/tmp/x.db", "no scheme"},
           {"sqlite:", "no path"},
           {"mysql:root@h/d", "must start with mysql://"},
           {"mysql://root@h:3306", "no /database"},
           {"mysql://h:3306/d", "no user@"},
           {"mysql://root@:3306/d", "no host"},
           {"mysql://root@h:port/d", "bad port 'port'"},
           {"mysql://root@h:70000/d", "port 70000 out of range"},
           {"mysql://root@h:3306/", "no database name"},
           {"mysql://root@h:3306/a-b", "database name 'a-b'"},
           {"mysql://ro%zzot@h/d", "bad percent escape"},
           {"mysql://root:pw%4@h/d", "bad percent escape"},
       }) {
    absl::StatusOr<StoreUrl> url = ParseStoreUrl(c.url);
    EXPECT_THAT(url, StatusIs(absl::StatusCode::kInvalidArgument)) << c.url;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr(c.problem)) << c.url;
  }
}

}  // namespace
}  // namespace gnomon::store
