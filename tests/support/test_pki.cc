#include "tests/support/test_pki.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/support/subprocess.h"

namespace gnomon::testing {
namespace {

// P-256 keys: quick to make, accepted by gRPC's TLS.
const std::vector<std::string> kNewKey = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                          "-nodes"};

}  // namespace

bool TestPki::Run(const std::vector<std::string>& argv) {
  CommandResult r = RunCommand(argv);
  if (r.exit_code == 0) return true;
  error_ = absl::StrCat(absl::StrJoin(argv, " "), " exited ", r.exit_code, ":\n", r.out, r.err);
  return false;
}

bool TestPki::MakeCa(const std::string& name) {
  std::vector<std::string> argv = {"openssl", "req", "-x509"};
  argv.insert(argv.end(), kNewKey.begin(), kNewKey.end());
  argv.insert(argv.end(), {"-keyout", key(name), "-out", crt(name), "-days", "2", "-subj",
                           absl::StrCat("/CN=gnomon test CA ", name), "-addext",
                           "basicConstraints=critical,CA:TRUE", "-addext",
                           "keyUsage=critical,keyCertSign,cRLSign"});
  return Run(argv);
}

bool TestPki::MakeLeaf(const std::string& name, const std::string& ca,
                       const std::vector<std::string>& sans) {
  const std::string csr = dir_ + "/" + name + ".csr";
  const std::string ext = dir_ + "/" + name + ".ext";
  std::ofstream(ext) << "subjectAltName=" << absl::StrJoin(sans, ",") << "\n"
                     << "basicConstraints=CA:FALSE\n"
                     << "keyUsage=critical,digitalSignature,keyEncipherment\n"
                     << "extendedKeyUsage=serverAuth,clientAuth\n";
  std::vector<std::string> req = {"openssl", "req"};
  req.insert(req.end(), kNewKey.begin(), kNewKey.end());
  req.insert(req.end(), {"-keyout", key(name), "-out", csr, "-subj", absl::StrCat("/CN=", name)});
  std::random_device rd;
  const std::string serial = absl::StrCat(static_cast<uint64_t>(rd()) << 20 | rd());
  return Run(req) && Run({"openssl", "x509", "-req", "-in", csr, "-CA", crt(ca), "-CAkey", key(ca),
                          "-set_serial", serial, "-days", "2", "-extfile", ext, "-out", crt(name)});
}

bool TestPki::Install(const std::string& source, const std::string& target) {
  for (auto [from, to] :
       {std::pair{key(source), key(target)}, std::pair{crt(source), crt(target)}}) {
    const std::string staged = to + ".new";
    std::error_code ec;
    std::filesystem::copy_file(from, staged, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec || std::rename(staged.c_str(), to.c_str()) != 0) {
      error_ = absl::StrCat("installing ", from, " as ", to, " failed");
      return false;
    }
  }
  return true;
}

}  // namespace gnomon::testing
