#include "services/common/server/method_credentials.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/testing/declared_methods.h"

namespace gnomon {
namespace {

using google::protobuf::MethodDescriptor;

// Calls `fn` with every method of every service in gnomon's protos.
template <typename Fn>
void ForEachDeclaredMethod(Fn fn) {
  absl::StatusOr<std::vector<const MethodDescriptor*>> methods = testing::DeclaredMethods();
  ASSERT_TRUE(methods.ok()) << methods.status();
  for (const MethodDescriptor* m : *methods) fn(m);
}

std::string FullName(const MethodDescriptor* m) {
  return FullMethodName(m->service()->full_name(), m->name());
}

TEST(MethodCredentials, EveryMethodGnomondServesHasARow) {
  int methods = 0;
  ForEachDeclaredMethod([&](const MethodDescriptor* m) {
    ++methods;
    EXPECT_NE(RequiredCredential(FullName(m)), nullptr) << FullName(m);
  });
  EXPECT_GT(methods, 25);
}

TEST(MethodCredentials, UnknownNamesHaveNone) {
  EXPECT_EQ(RequiredCredential("/gnomon.v1.JobAdmin/MadeUp"), nullptr);
  EXPECT_EQ(RequiredCredential("gnomon.v1.JobAdmin/CreateJob"), nullptr);
  EXPECT_EQ(RequiredCredential(""), nullptr);
}

// docs/operations.md lists the methods that take a group token; every other
// one takes an admin credential. The list must be the table's.
TEST(MethodCredentials, OperationsDocListsTheGroupMethods) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/operations.md");
  ASSERT_TRUE(in) << "docs/operations.md";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  std::set<std::string> documented;
  const std::regex row(R"(\| `(gnomon\.v1\.\w+/\w+)` \| group)");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    documented.insert("/" + (*it)[1].str());
  }
  std::set<std::string> group;
  ForEachDeclaredMethod([&](const MethodDescriptor* m) {
    const Credential* c = RequiredCredential(FullName(m));
    if (c != nullptr && *c == Credential::kGroupOfApp) group.insert(FullName(m));
  });
  EXPECT_EQ(documented, group);
  EXPECT_NE(group.size(), 0u);
}

// docs/security.md gives every bearer method's least role; it must be the
// table's, for every such method.
TEST(MethodCredentials, SecurityDocGivesEveryMethodsLeastRole) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/security.md");
  ASSERT_TRUE(in) << "docs/security.md";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  std::map<std::string, std::string> documented;
  const std::regex row(R"(\| `(\w+)/(\w+)` \| (admin|operator|viewer)\b)");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    documented["/gnomon.v1." + (*it)[1].str() + "/" + (*it)[2].str()] = (*it)[3].str();
  }
  std::map<std::string, std::string> table;
  ForEachDeclaredMethod([&](const MethodDescriptor* m) {
    const Credential* c = RequiredCredential(FullName(m));
    if (c == nullptr || *c == Credential::kGroupOfApp) return;
    const Permission p = *RequiredPermission(FullName(m));
    table[FullName(m)] = p == Permission::kAdminister ? "admin"
                         : p == Permission::kOperate  ? "operator"
                                                      : "viewer";
  });
  EXPECT_EQ(documented, table);
  EXPECT_GT(table.size(), 30u);
}

}  // namespace
}  // namespace gnomon
