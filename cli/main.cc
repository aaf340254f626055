// gnomonctl: command-line client of the gnomon admin API. See cli/cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  gnomon::cli::CliEnv env = gnomon::cli::SystemEnv();
  return gnomon::cli::RunCli(args, env, std::cout, std::cerr);
}
