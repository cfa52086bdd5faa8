// Runs the built `cuskimage` binary (path from the CUSK_CLI_EXE compile definition) and captures
// its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/test_support.hpp"

#ifndef CUSK_CLI_EXE
#error "CUSK_CLI_EXE must name the cuskimage binary (tests/CMakeLists.txt)"
#endif

namespace cuskclitest {

struct CliRun {
  int rc = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

/// Runs `cuskimage args...`; stdout and stderr go to files under the test's tmp dir.
inline CliRun run_cli(const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  const std::string base = cusktest::temp_path("run" + std::to_string(counter++));
  std::string cmd = shell_quote(CUSK_CLI_EXE);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(base + ".out") + " 2>" + shell_quote(base + ".err");
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.rc = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

/// run_cli on the CPU backend: the CLI defaults to cuda when a GPU is present, and tests that compare
/// with an in-process CPU call need the same backend (the device rounds floats differently).
inline CliRun run_cli_cpu(std::vector<std::string> args) {
  args.insert(args.end(), {"--device", "cpu"});
  return run_cli(args);
}

/// gtest-friendly description of a run for failure messages.
inline std::string describe(const CliRun& r) {
  return "rc=" + std::to_string(r.rc) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace cuskclitest
