// TestPki: certificate authorities and certificates made with the openssl
// command at test time (nothing secret is committed), in a directory.
//
//   TestPki pki(dir.path());
//   ASSERT_TRUE(pki.MakeCa("ca")) << pki.error();
//   ASSERT_TRUE(pki.MakeLeaf("server", "ca")) << pki.error();   // 127.0.0.1, localhost
//   pki.crt("server"); pki.key("server"); pki.crt("ca");
//   ASSERT_TRUE(pki.Install("server2", "server"));  // rotate server's files in place
//
// Thread safety: use from one thread.
#ifndef GNOMON_TESTS_SUPPORT_TEST_PKI_H_
#define GNOMON_TESTS_SUPPORT_TEST_PKI_H_

#include <string>
#include <vector>

namespace gnomon::testing {

class TestPki {
 public:
  explicit TestPki(std::string dir) : dir_(std::move(dir)) {}

  // A self-signed CA: NAME.crt and NAME.key.
  bool MakeCa(const std::string& name);
  // A certificate for servers and clients signed by CA `ca`, naming `sans`
  // ("IP:127.0.0.1", "DNS:localhost").
  bool MakeLeaf(const std::string& name, const std::string& ca,
                const std::vector<std::string>& sans = {"IP:127.0.0.1", "DNS:localhost"});
  // Replaces `target`'s certificate and key with `source`'s, each by an
  // atomic rename (as kubelet swaps a Secret's files).
  bool Install(const std::string& source, const std::string& target);

  std::string crt(const std::string& name) const { return dir_ + "/" + name + ".crt"; }
  std::string key(const std::string& name) const { return dir_ + "/" + name + ".key"; }
  // What the last failing openssl command printed.
  const std::string& error() const { return error_; }

 private:
  bool Run(const std::vector<std::string>& argv);

  std::string dir_;
  std::string error_;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_TEST_PKI_H_
