#include "services/common/server/passwords.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon {
namespace {

TEST(Passwords, AHashVerifiesItsPasswordAndNoOther) {
  const std::string stored = HashPassword("correct horse battery", 1000);
  EXPECT_TRUE(absl::StartsWith(stored, "pbkdf2-sha256$1000$"));
  EXPECT_TRUE(VerifyPassword("correct horse battery", stored));
  EXPECT_FALSE(VerifyPassword("correct horse batterY", stored));
  EXPECT_FALSE(VerifyPassword("", stored));
}

TEST(Passwords, EachHashHasItsOwnSalt) {
  EXPECT_NE(HashPassword("same password", 1000), HashPassword("same password", 1000));
}

TEST(Passwords, TheDefaultCostIsStoredWithTheHash) {
  EXPECT_TRUE(absl::StartsWith(HashPassword("x", kPasswordIterations), "pbkdf2-sha256$600000$"));
}

TEST(Passwords, MalformedStoredHashesNeverVerify) {
  for (const char* bad :
       {"", "plain", "pbkdf2-sha256$1000$c2FsdA==", "md5$1$c2FsdA==$aGFzaA==",
        "pbkdf2-sha256$0$c2FsdA==$aGFzaA==", "pbkdf2-sha256$99999999999$c2FsdA==$aGFzaA==",
        "pbkdf2-sha256$1000$c2FsdA==$dG9vc2hvcnQ="}) {
    EXPECT_FALSE(VerifyPassword("x", bad)) << bad;
  }
}

TEST(Passwords, StrengthChecksNameTheFieldAndNeverEchoThePassword) {
  EXPECT_TRUE(CheckPasswordStrength("password", "twelve-bytes").ok());
  absl::Status short_one = CheckPasswordStrength("password", "short-pw");
  EXPECT_EQ(short_one.message(), "password: at least 12 bytes");
  EXPECT_EQ(CheckPasswordStrength("password", std::string(1025, 'a')).message(),
            "password: at most 1024 bytes");
  absl::Status control = CheckPasswordStrength("password", "secret\x01secret-1");
  EXPECT_THAT(control, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_FALSE(absl::StrContains(control.message(), "secret"));
}

}  // namespace
}  // namespace gnomon
