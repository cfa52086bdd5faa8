// cuskimage: command-line front end of the library.
//
//   cuskimage MODULE.FUNCTION INPUT... [OUTPUT...] [--PARAM VALUE ...] [--device cpu|cuda[:N]]
//
// Exit status: 0 on success, 2 for a command-line mistake (unknown function or parameter, missing or
// malformed value, wrong number of paths), 1 for an error raised while running (unreadable file,
// invalid argument found by the library, CUDA error). The message goes to stderr.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cuskimage/device.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/version.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

constexpr const char* kGeneralHelp = R"HELP(cuskimage: scikit-image functions on the command line, on the GPU when one is present.

usage:
  cuskimage MODULE.FUNCTION INPUT... [OUTPUT...] [--PARAM VALUE ...] [--device cpu|cuda[:N]]
  cuskimage --list [MODULE]          every available MODULE.FUNCTION, one per line
  cuskimage help MODULE.FUNCTION     signature, defaults and parameters of one function
  cuskimage MODULE.FUNCTION --help   the same
  cuskimage --help | --version

Arguments follow scikit-image's: image inputs are positional, in the function's order, and the
output path comes last; keyword arguments are --NAME VALUE (or --NAME=VALUE) with scikit-image's
names. Values:
  numbers         --sigma 3   --amount 0.05   --low -1e3   (inf and nan accepted; a negative
                  number is a value, never an option: read-region SLIDE -5 10 512 512 OUT)
  booleans        --signed_float true   (true/false, True/False, 1/0, yes/no; a bare --flag is true)
  tuples          --n_tiles 8,8          (a single value where scikit-image accepts a scalar)
  nested pairs    --crop_width 1,2:3,4   is ((1, 2), (3, 4)): ':' separates the inner tuples
                  (Python's "((1,2),(3,4))" works too; 2 and 1,2 mean what 2 and (1, 2) do)
  arrays          --footprint fp.npy     (a path to an image or .npy file; short 1-D arrays
                  --input_vals 1,2,3      also inline, when no such file exists)
  enumerations    --mode reflect         (scikit-image's strings)
  dtypes          --dtype uint8
  unset           --seed none            (scikit-image's None, where that is the default)

Keyword arguments are the fields of the function's options struct in the C++ headers (same names,
defaults and types); `help` lists the fields that exist only in C++ (callables, devices, ...).

Images are read and written with cuskimage's io (TIFF, PNG, JPEG, NPY; the format by extension).
The input is moved to --device (default: cuda when a GPU is present, else cpu) and the function
runs there. Functions that return values rather than images take no OUTPUT and print JSON on
stdout; functions returning tables write CSV to OUTPUT when given, else to stdout.

Exit status: 0 success, 1 error while running (message on stderr), 2 command-line mistake.
)HELP";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_bool_literal(const std::string& text) {
  try {
    return std::holds_alternative<bool>(parse_value("", Param::boolean("flag", "false", ""), text));
  } catch (const UsageError&) {
    return false;
  }
}

/// "-5", "-0.5", "-1e3", "-inf": a negative number is a value (a positional coordinate such as
/// read-region's X), never an option.
bool is_negative_number(const std::string& text) {
  if (text.size() < 2 || text[0] != '-') return false;
  try {
    return std::holds_alternative<double>(parse_value("", Param::number("value", "0", ""), text));
  } catch (const UsageError&) {
    return false;
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const Command& find_command(const std::string& name) {
  const Registry& reg = Registry::instance();
  if (const Command* c = reg.find(name)) return *c;
  // The slide tools' short names (as openslide-show-properties users expect them).
  for (const char* alias : {"slide-info", "read-region", "convert"})
    if (name == alias)
      if (const Command* c = reg.find(std::string("wsi.") + alias)) return *c;
  if (name == "nuclei")  // the main job's short name: cuskimage nuclei SLIDE --out DIR
    if (const Command* c = reg.find("tiled.nuclei")) return *c;
  std::string msg = "unknown function '" + name + "'";
  const auto close = reg.suggestions(name);
  if (!close.empty()) {
    msg += "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? " or '" : "'") + close[i] + "'";
    msg += "?";
  }
  msg += " (`cuskimage --list` lists every function)";
  throw UsageError(msg);
}

std::string closest_param(const Command& c, const std::string& name) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const Param& p : c.params()) {
    // Cheap similarity: common prefix length and length difference.
    std::size_t common = 0;
    while (common < p.name.size() && common < name.size() && p.name[common] == name[common]) ++common;
    const std::size_t d = std::max(p.name.size(), name.size()) - common;
    if (d < best_d && common >= 2) {
      best_d = d;
      best = p.name;
    }
  }
  return best;
}

Device resolve_device(const std::optional<std::string>& text) {
  if (!text) return default_device();
  Device d = Device::cpu();
  try {
    d = Device::parse(*text);
  } catch (const InvalidArgument&) {
    throw UsageError("option '--device' expects cpu, cuda or cuda:N, got '" + *text + "'");
  }
  if (d.is_cuda()) {
    const int n = cuda_device_count();
    if (n == 0) throw NotSupported("--device " + *text + ": no CUDA device is present (use --device cpu)");
    if (d.index() >= n)
      throw NotSupported("--device " + *text + ": only " + std::to_string(n) + " CUDA device(s) present");
  }
  return d;
}

void print_list(const std::string& module) {
  bool any = false;
  for (const auto& [name, c] : Registry::instance().commands()) {
    if (!module.empty() && c.module() != module) continue;
    std::cout << name << "\n";
    any = true;
  }
  if (!any && !module.empty()) throw UsageError("no functions in module '" + module + "'");
}

int run_command(const Command& c, const std::vector<std::string>& args, std::size_t i,
                std::optional<std::string> device_text) {
  std::vector<std::string> positional;
  std::map<std::string, Value> values;
  std::set<std::string> seen;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << c.help();
      return 0;
    }
    if (!starts_with(a, "--") || a.size() == 2 || is_negative_number(a)) {
      if (starts_with(a, "-") && a.size() > 1 && a != "-" && !is_negative_number(a))
        throw UsageError(c.name() + ": unknown option '" + a + "' (parameters are written --NAME VALUE)");
      positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> text;
    if (auto eq = name.find('='); eq != std::string::npos) {
      text = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "device") {
      if (!text) {
        if (i + 1 >= args.size()) throw UsageError("option '--device' needs a value (cpu or cuda)");
        text = args[++i];
      }
      device_text = *text;
      continue;
    }
    const Param* p = c.find_param(name);
    if (!p) {
      std::string msg = c.name() + ": unknown parameter '--" + name + "'";
      if (auto best = closest_param(c, name); !best.empty()) msg += "; did you mean '--" + best + "'?";
      if (c.params().empty()) {
        msg += " (it takes no parameters)";
      } else {
        msg += " (parameters:";
        for (const Param& q : c.params()) msg += " --" + q.name;
        msg += ")";
      }
      throw UsageError(msg);
    }
    if (!seen.insert(name).second) throw UsageError(c.name() + ": parameter '--" + name + "' given twice");
    if (!text) {
      if (p->kind == Kind::boolean) {
        // A bare boolean flag is true unless the next token is a boolean literal.
        if (i + 1 < args.size() && is_bool_literal(args[i + 1])) text = args[++i];
        else text = "true";
      } else {
        if (i + 1 >= args.size())
          throw UsageError(c.name() + ": parameter '--" + name + "' needs a value (" +
                           kind_name(p->kind, p->choices) + ")");
        text = args[++i];
      }
    }
    values[name] = parse_value(c.name(), *p, *text);
  }

  // Positional paths: inputs, then outputs.
  const auto& ins = c.input_specs();
  const bool variadic = !ins.empty() && ins.back().variadic;
  std::size_t n_in_min = 0;
  for (const Input& in : ins) n_in_min += in.optional ? 0 : 1;
  const std::size_t n_in_max = variadic ? SIZE_MAX : ins.size();
  std::size_t n_out = c.returns() == Returns::image ? c.outputs().size() : 0;
  if (c.returns() == Returns::table) {
    // OUTPUT is optional: present when there is a path beyond the inputs (with a variadic input,
    // when the last path ends in .csv).
    if (variadic ? positional.size() > n_in_min && ends_with(positional.back(), ".csv") : positional.size() > n_in_min)
      n_out = 1;
  }
  const std::size_t have = positional.size();
  if (have < n_in_min + n_out || have - n_out > n_in_max) {
    std::string expected;
    for (const Input& in : ins)
      expected += " " + (in.optional ? "[" + upper(in.name) + "]" : upper(in.name) + (in.variadic ? "..." : ""));
    for (std::size_t k = 0; k < n_out && c.returns() == Returns::image; ++k) expected += " " + upper(c.outputs()[k]);
    if (c.returns() == Returns::table) expected += " [OUTPUT.csv]";
    std::string msg = c.name() + ": expected" + (expected.empty() ? std::string(" no paths") : expected) +
                      ", got " + std::to_string(have) + " path" + (have == 1 ? "" : "s");
    if (c.returns() == Returns::value && have > n_in_max)
      msg += " (it prints its result as JSON on stdout and takes no OUTPUT)";
    msg += "\nusage: " + c.usage();
    throw UsageError(msg);
  }
  std::vector<std::string> in_paths(positional.begin(), positional.end() - static_cast<std::ptrdiff_t>(n_out));
  std::vector<std::string> out_paths(positional.end() - static_cast<std::ptrdiff_t>(n_out), positional.end());

  const Device device = resolve_device(device_text);
  Invocation inv(c, std::move(in_paths), std::move(values), device);
  Result result = c.run()(inv);

  if (c.returns() == Returns::image) {
    if (result.images.size() != out_paths.size())
      throw std::logic_error(c.name() + ": handler returned " + std::to_string(result.images.size()) +
                             " images for " + std::to_string(out_paths.size()) + " outputs");
    io::ImsaveOptions opt;
    opt.check_contrast = false;
    if (result.save_options) opt = *result.save_options;
    for (std::size_t k = 0; k < out_paths.size(); ++k) io::imsave(out_paths[k], result.images[k], opt, inv.stream());
  }
  if (result.table) {
    const std::string csv = to_csv(*result.table);
    if (c.returns() == Returns::table && !out_paths.empty()) {
      const std::string tmp = out_paths[0] + ".part";
      {
        std::ofstream f(tmp, std::ios::binary);
        f << csv;
        if (!f) throw FormatError(c.name() + ": cannot write '" + out_paths[0] + "'");
      }
      if (std::rename(tmp.c_str(), out_paths[0].c_str()) != 0)
        throw FormatError(c.name() + ": cannot write '" + out_paths[0] + "'");
    } else {
      std::cout << csv;
    }
  }
  if (result.value) std::cout << to_json_text(*result.value) << "\n";
  inv.stream().synchronize();
  std::cout.flush();
  return 0;
}

int run(const std::vector<std::string>& args) {
  std::optional<std::string> device_text;
  std::size_t i = 0;
  for (; i < args.size() && starts_with(args[i], "-"); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kGeneralHelp;
      return 0;
    }
    if (a == "--version" || a == "-V") {
      std::cout << "cuskimage " << cuskimage::version << "\n";
      return 0;
    }
    if (a == "--check-options") {  // for the tests: every command's defaults against its options structs
      const OptionsCheck r = Registry::instance().check_options();
      for (const auto& msg : r.problems) std::cout << msg << "\n";
      std::cout << Registry::instance().commands().size() << " commands, " << r.fields << " option fields, "
                << r.problems.size() << " problems\n";
      return r.problems.empty() ? 0 : 1;
    }
    if (a == "--list") {
      print_list(i + 1 < args.size() && !starts_with(args[i + 1], "-") ? args[i + 1] : "");
      return 0;
    }
    if (a == "--device" && i + 1 < args.size()) {
      device_text = args[++i];
      continue;
    }
    if (starts_with(a, "--device=")) {
      device_text = a.substr(9);
      continue;
    }
    throw UsageError("unknown option '" + a + "' (see `cuskimage --help`)");
  }
  if (i >= args.size()) {
    std::cerr << kGeneralHelp;
    return 2;
  }
  const std::string& cmd = args[i];
  if (cmd == "help") {
    if (i + 1 >= args.size()) {
      std::cout << kGeneralHelp;
      return 0;
    }
    std::cout << find_command(args[i + 1]).help();
    return 0;
  }
  if (cmd == "list") {
    print_list(i + 1 < args.size() ? args[i + 1] : "");
    return 0;
  }
  return run_command(find_command(cmd), args, i + 1, device_text);
}

}  // namespace
}  // namespace cuskimage::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return cuskimage::cli::run(args);
  } catch (const cuskimage::cli::UsageError& e) {
    std::cout.flush();
    std::cerr << "cuskimage: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "cuskimage: error: " << e.what() << "\n";
    return 1;
  }
}
