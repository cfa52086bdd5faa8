#include "src/cli/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cuskimage/io.hpp"

namespace cuskimage::cli {

namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// True when s[0] is an opening bracket closed by the last character (not "(1,2),(3,4)").
bool enclosed(const std::string& s) {
  if (s.size() < 2 || !((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']'))) return false;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    if (s[i] == ')' || s[i] == ']') --depth;
    if (depth == 0 && i + 1 < s.size()) return false;
  }
  return depth == 0;
}

/// Removes enclosing () or [] so Python-looking tuples "(2, 3)" are accepted too.
std::string strip_brackets(std::string s) {
  s = trim(s);
  while (enclosed(s)) s = trim(s.substr(1, s.size() - 2));
  return s;
}

/// Splits on `sep` (outside brackets when `nested`); a trailing separator ("2,") is allowed as in a
/// Python tuple.
std::vector<std::string> split(const std::string& s, char sep, bool nested = false) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (nested && (c == '(' || c == '[')) ++depth;
    if (nested && (c == ')' || c == ']')) --depth;
    if (c == sep && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(trim(cur));
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  return parts;
}

/// "(1,2),(3,4)" -> "(1,2)", "(3,4)".
std::vector<std::string> split_top_level(const std::string& s) { return split(s, ',', true); }

bool parse_int(const std::string& text, std::int64_t& out) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  const char* first = t.data();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, t.data() + t.size(), out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

bool parse_double(const std::string& text, double& out) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && errno != ERANGE;
}

bool parse_bool(const std::string& text, bool& out) {
  const std::string t = lower(trim(text));
  if (t == "true" || t == "1" || t == "yes" || t == "on") {
    out = true;
    return true;
  }
  if (t == "false" || t == "0" || t == "no" || t == "off") {
    out = false;
    return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_none(const std::string& text) { return lower(trim(text)) == "none"; }

/// "none" means scikit-image's None unless it is one of a choice parameter's own strings.
bool means_none(const Param& p, const std::string& text) {
  if (!p.unset_word.empty() && trim(text) == p.unset_word) return true;
  if (!is_none(text)) return false;
  return !(p.kind == Kind::choice && std::find(p.choices.begin(), p.choices.end(), trim(text)) != p.choices.end());
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

// ---- kinds and parameters --------------------------------------------------------------------------

std::string kind_name(Kind kind, const std::vector<std::string>& choices) {
  switch (kind) {
    case Kind::integer: return "INT";
    case Kind::number: return "FLOAT";
    case Kind::boolean: return "BOOL";
    case Kind::string: return "STR";
    case Kind::choice: return "{" + join(choices, ",") + "}";
    case Kind::ints: return "INT[,INT...]";
    case Kind::numbers: return "FLOAT[,FLOAT...]";
    case Kind::pairs: return "A,B[:C,D...]";
    case Kind::array: return "PATH";
    case Kind::dtype: return "DTYPE";
  }
  return "?";
}

namespace {
Param make(std::string name, Kind kind, std::optional<std::string> def, std::string help,
           std::vector<std::string> choices = {}) {
  Param p;
  p.name = std::move(name);
  p.kind = kind;
  p.default_value = std::move(def);
  p.help = std::move(help);
  p.choices = std::move(choices);
  return p;
}
}  // namespace

Param Param::integer(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::integer, std::move(d), std::move(h)); }
Param Param::number(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::number, std::move(d), std::move(h)); }
Param Param::boolean(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::boolean, std::move(d), std::move(h)); }
Param Param::string(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::string, std::move(d), std::move(h)); }
Param Param::choice(std::string n, std::vector<std::string> c, std::optional<std::string> d, std::string h) {
  return make(std::move(n), Kind::choice, std::move(d), std::move(h), std::move(c));
}
Param Param::ints(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::ints, std::move(d), std::move(h)); }
Param Param::numbers(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::numbers, std::move(d), std::move(h)); }
Param Param::pairs(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::pairs, std::move(d), std::move(h)); }
Param Param::array(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::array, std::move(d), std::move(h)); }
Param Param::dtype(std::string n, std::optional<std::string> d, std::string h) { return make(std::move(n), Kind::dtype, std::move(d), std::move(h)); }

std::string Param::python_default() const {
  if (!default_value) return "";
  const std::string& d = *default_value;
  if (!unset_word.empty() && d == unset_word) return "'" + d + "'";
  if (means_none(*this, d)) return "None";
  switch (kind) {
    case Kind::boolean: {
      bool b = false;
      parse_bool(d, b);
      return b ? "True" : "False";
    }
    case Kind::array: {
      double v = 0;
      if (parse_double(d, v)) return d;  // a number where an array is also accepted (wiener's K)
      return "'" + d + "'";
    }
    case Kind::string:
    case Kind::choice:
    case Kind::dtype: return "'" + d + "'";
    case Kind::ints:
    case Kind::numbers: {
      const auto parts = split(strip_brackets(d), ',');
      if (parts.size() == 1) return parts[0];
      return "(" + join(parts, ", ") + ")";
    }
    case Kind::pairs: {
      std::vector<std::string> groups;
      for (const auto& g : split(strip_brackets(d), ':')) {
        auto parts = split(strip_brackets(g), ',');
        groups.push_back("(" + join(parts, ", ") + (parts.size() == 1 ? ",)" : ")"));
      }
      return "(" + join(groups, ", ") + (groups.size() == 1 ? ",)" : ")");
    }
    default: return d;
  }
}

Value parse_value(const std::string& fn, const Param& p, const std::string& text) {
  auto bad = [&](const std::string& expected) -> UsageError {
    const std::string alt = p.unset_word.empty() ? "" : "'" + p.unset_word + "' or ";
    return UsageError(fn + ": parameter '--" + p.name + "' expects " + alt + expected + ", got '" + text + "'");
  };
  if (means_none(p, text)) {
    if (p.nullable || (p.default_value && means_none(p, *p.default_value))) return std::monostate{};
    if (p.kind != Kind::string) throw bad(std::string("a value (it cannot be none)"));
    // A string parameter that cannot be unset takes "none" as its text (e.g. a compression name).
  }
  switch (p.kind) {
    case Kind::integer: {
      std::int64_t v = 0;
      if (!parse_int(text, v)) throw bad("an integer");
      return v;
    }
    case Kind::number: {
      double v = 0;
      if (!parse_double(text, v)) throw bad("a number");
      return v;
    }
    case Kind::boolean: {
      bool v = false;
      if (!parse_bool(text, v)) throw bad("true or false");
      return v;
    }
    case Kind::string:
    case Kind::array: {
      if (trim(text).empty()) throw bad(p.kind == Kind::array ? "a path" : "a non-empty string");
      return text;
    }
    case Kind::choice: {
      const std::string t = trim(text);
      if (std::find(p.choices.begin(), p.choices.end(), t) == p.choices.end())
        throw bad("one of " + join(p.choices, ", "));
      return t;
    }
    case Kind::dtype: {
      const std::string t = trim(text);
      try {
        (void)dtype_from_name(t);
      } catch (const InvalidArgument&) {
        throw bad("a dtype name (bool, uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64)");
      }
      return t;
    }
    case Kind::ints: {
      std::vector<std::int64_t> out;
      for (const auto& part : split(strip_brackets(text), ',')) {
        std::int64_t v = 0;
        if (!parse_int(part, v)) throw bad("integers separated by commas (e.g. 2 or 2,3)");
        out.push_back(v);
      }
      return out;
    }
    case Kind::numbers: {
      std::vector<double> out;
      for (const auto& part : split(strip_brackets(text), ',')) {
        double v = 0;
        if (!parse_double(part, v)) throw bad("numbers separated by commas (e.g. 2 or 2,3.5)");
        out.push_back(v);
      }
      return out;
    }
    case Kind::pairs: {
      std::vector<std::vector<double>> out;
      // Colon-separated groups, or Python's nested tuples: ((1, 2), (3, 4)).
      const std::string body = strip_brackets(text);
      const bool nested = body.find_first_of("([") != std::string::npos;
      if (nested && body.find(':') != std::string::npos) throw bad("either colons or nested brackets, not both");
      for (const auto& group : nested ? split_top_level(body) : split(body, ':')) {
        std::vector<double> g;
        for (const auto& part : split(strip_brackets(group), ',')) {
          double v = 0;
          if (!parse_double(part, v))
            throw bad("comma-separated groups joined by colons (e.g. 2, 1,2 or 1,2:3,4)");
          g.push_back(v);
        }
        out.push_back(std::move(g));
      }
      return out;
    }
  }
  throw bad("a value");
}

// ---- invocation ------------------------------------------------------------------------------------

Invocation::Invocation(const Command& command, DefaultsOnly) : command_(&command), device_(Device::cpu()) {
  for (const Param& p : command.params())
    if (p.default_value) {
      values_[p.name] = parse_value(command.name(), p, *p.default_value);
      given_[p.name] = false;
    }
}

Invocation Invocation::defaults(const Command& command) { return Invocation(command, DefaultsOnly{}); }

Invocation::Invocation(const Command& command, std::vector<std::string> input_paths,
                       std::map<std::string, Value> values, Device device)
    : command_(&command), paths_(std::move(input_paths)), device_(device) {
  for (const Param& p : command.params()) {
    auto it = values.find(p.name);
    if (it != values.end()) {
      values_[p.name] = std::move(it->second);
      given_[p.name] = true;
    } else if (p.default_value) {
      values_[p.name] = parse_value(command.name(), p, *p.default_value);
      given_[p.name] = false;
    } else {
      throw UsageError(command.name() + ": missing required parameter '--" + p.name + "' (" + p.help + ")");
    }
  }
}

const std::string& Invocation::name() const { return command_->name(); }

const std::string& Invocation::input_path(std::size_t i) const {
  if (i >= paths_.size())
    throw std::logic_error(name() + ": handler asked for input " + std::to_string(i) + " of " +
                           std::to_string(paths_.size()));
  return paths_[i];
}

const Array& Invocation::input(std::size_t i) {
  auto it = inputs_.find(i);
  if (it == inputs_.end()) {
    io::ImreadOptions opt;
    opt.device = device_;
    it = inputs_.emplace(i, io::imread(input_path(i), opt, stream_)).first;
  }
  return it->second;
}

const Value& Invocation::value(const std::string& name, Kind expected) const {
  const Param* p = command_->find_param(name);
  if (!p) throw std::logic_error(this->name() + ": handler asked for undeclared parameter '" + name + "'");
  const bool ok = p->kind == expected || (expected == Kind::string && (p->kind == Kind::choice || p->kind == Kind::dtype ||
                                                                       p->kind == Kind::array)) ||
                  (expected == Kind::number && p->kind == Kind::integer);
  if (!ok) throw std::logic_error(this->name() + ": handler read parameter '" + name + "' as the wrong kind");
  return values_.at(name);
}

void Invocation::bad(const std::string& name, const std::string& what) const {
  throw UsageError(this->name() + ": parameter '--" + name + "' " + what);
}

bool Invocation::has(const std::string& name) const {
  const Param* p = command_->find_param(name);
  if (!p) throw std::logic_error(this->name() + ": handler asked for undeclared parameter '" + name + "'");
  return !std::holds_alternative<std::monostate>(values_.at(name));
}

bool Invocation::given(const std::string& name) const {
  auto it = given_.find(name);
  return it != given_.end() && it->second;
}

std::int64_t Invocation::integer(const std::string& name) const {
  const Value& v = value(name, Kind::integer);
  if (auto p = std::get_if<std::int64_t>(&v)) return *p;
  bad(name, "is not set");
}

double Invocation::number(const std::string& name) const {
  const Value& v = value(name, Kind::number);
  if (auto p = std::get_if<double>(&v)) return *p;
  if (auto p = std::get_if<std::int64_t>(&v)) return static_cast<double>(*p);
  bad(name, "is not set");
}

bool Invocation::flag(const std::string& name) const {
  const Value& v = value(name, Kind::boolean);
  if (auto p = std::get_if<bool>(&v)) return *p;
  bad(name, "is not set");
}

const std::string& Invocation::string(const std::string& name) const {
  const Value& v = value(name, Kind::string);
  if (auto p = std::get_if<std::string>(&v)) return *p;
  bad(name, "is not set");
}

DType Invocation::dtype(const std::string& name) const {
  (void)value(name, Kind::dtype);
  return dtype_from_name(string(name));
}

std::vector<std::int64_t> Invocation::ints(const std::string& name) const {
  const Value& v = value(name, Kind::ints);
  if (auto p = std::get_if<std::vector<std::int64_t>>(&v)) return *p;
  bad(name, "is not set");
}

std::vector<double> Invocation::numbers(const std::string& name) const {
  const Value& v = value(name, Kind::numbers);
  if (auto p = std::get_if<std::vector<double>>(&v)) return *p;
  bad(name, "is not set");
}

std::vector<std::vector<double>> Invocation::pairs(const std::string& name) const {
  const Value& v = value(name, Kind::pairs);
  if (auto p = std::get_if<std::vector<std::vector<double>>>(&v)) return *p;
  bad(name, "is not set");
}

std::vector<std::vector<std::int64_t>> Invocation::int_pairs(const std::string& name) const {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& g : pairs(name)) {
    std::vector<std::int64_t> gi;
    for (double d : g) {
      if (!(std::isfinite(d) && d == std::floor(d))) {
        std::ostringstream os;
        os << "expects integers, got " << d;
        bad(name, os.str());
      }
      gi.push_back(static_cast<std::int64_t>(d));
    }
    out.push_back(std::move(gi));
  }
  return out;
}

const Array& Invocation::array(const std::string& name) {
  (void)value(name, Kind::array);
  auto it = arrays_.find(name);
  if (it != arrays_.end()) return it->second;
  const std::string& text = string(name);
  std::error_code ec;
  if (!std::filesystem::exists(text, ec)) {
    // Inline 1-D array: "1,2,3".
    const auto parts = split(strip_brackets(text), ',');
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    bool numeric = !parts.empty(), integral = true;
    for (const auto& part : parts) {
      std::int64_t iv = 0;
      double dv = 0;
      if (integral && parse_int(part, iv)) {
        ints.push_back(iv);
        reals.push_back(static_cast<double>(iv));
      } else if (parse_double(part, dv)) {
        integral = false;
        reals.push_back(dv);
      } else {
        numeric = false;
        break;
      }
    }
    if (numeric) {
      const Shape shape = {static_cast<std::int64_t>(reals.size())};
      Array host = integral ? Array::from_vector(ints, shape) : Array::from_vector(reals, shape);
      return arrays_.emplace(name, host.to(device_, stream_)).first->second;
    }
  }
  io::ImreadOptions opt;
  opt.device = device_;
  return arrays_.emplace(name, io::imread(text, opt, stream_)).first->second;
}

std::optional<std::int64_t> Invocation::opt_integer(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return integer(name);
}

std::optional<double> Invocation::opt_number(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return number(name);
}

std::optional<std::string> Invocation::opt_string(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return string(name);
}

// ---- commands --------------------------------------------------------------------------------------

Command::Command(std::string name, std::string summary) : name_(std::move(name)), summary_(std::move(summary)) {}

Command& Command::input(std::string name, std::string help) {
  inputs_.push_back({std::move(name), std::move(help), false});
  return *this;
}

Command& Command::inputs(std::string name, std::string help) {
  inputs_.push_back({std::move(name), std::move(help), true});
  return *this;
}

Command& Command::optional_input(std::string name, std::string help) {
  inputs_.push_back({std::move(name), std::move(help), false, true});
  return *this;
}

Command& Command::param(Param p) {
  params_.push_back(std::move(p));
  return *this;
}

Command& Command::returns_image(std::vector<std::string> outputs) {
  returns_ = Returns::image;
  outputs_ = std::move(outputs);
  returns_description_ = outputs_.size() == 1 ? "image" : "images";
  return *this;
}

Command& Command::returns_value(std::string description) {
  returns_ = Returns::value;
  outputs_.clear();
  returns_description_ = std::move(description);
  return *this;
}

Command& Command::returns_table(std::string description) {
  returns_ = Returns::table;
  outputs_ = {"output"};
  returns_description_ = std::move(description);
  return *this;
}

Command& Command::handler(Handler h) {
  handler_ = std::move(h);
  return *this;
}

const Param* Command::find_param(const std::string& name) const {
  for (const Param& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

std::string Command::signature() const {
  std::vector<std::string> args;
  for (const Input& in : inputs_) args.push_back(in.variadic ? "*" + in.name : in.optional ? in.name + "=None" : in.name);
  for (const Param& p : params_)
    args.push_back(p.is_required() ? p.name : p.name + "=" + p.python_default());
  std::string ret;
  switch (returns_) {
    case Returns::image: ret = returns_description_; break;
    case Returns::value: ret = "JSON " + returns_description_; break;
    case Returns::table: ret = "CSV " + returns_description_; break;
  }
  return name_ + "(" + join(args, ", ") + ") -> " + ret;
}

std::string Command::usage() const {
  std::string u = "cuskimage " + name_;
  for (const Input& in : inputs_)
    u += " " + (in.optional ? "[" + upper(in.name) + "]" : upper(in.name) + (in.variadic ? "..." : ""));
  if (returns_ == Returns::image)
    for (const auto& o : outputs_) u += " " + upper(o);
  if (returns_ == Returns::table) u += " [OUTPUT.csv]";
  for (const Param& p : params_) {
    const std::string opt = "--" + p.name + " " + kind_name(p.kind, p.choices);
    u += p.is_required() ? " " + opt : " [" + opt + "]";
  }
  u += " [--device cpu|cuda]";
  return u;
}

std::string Command::help() const {
  std::ostringstream os;
  os << signature() << "\n\n" << summary_ << "\n\nusage: " << usage() << "\n";
  auto line = [&](const std::string& left, const std::string& right) {
    os << "  " << left;
    if (left.size() < 26) os << std::string(26 - left.size(), ' ');
    else os << "\n  " << std::string(26, ' ');
    os << right << "\n";
  };
  if (!inputs_.empty()) {
    os << "\ninputs (paths to images or .npy files):\n";
    for (const Input& in : inputs_)
      line(upper(in.name) + (in.variadic ? "..." : ""),
           in.help + (in.variadic ? " (one or more paths)" : in.optional ? " (optional)" : ""));
  }
  os << "\nreturns:\n";
  switch (returns_) {
    case Returns::image:
      for (const auto& o : outputs_) line(upper(o), "path of the result (any io format, by extension)");
      break;
    case Returns::value: line("stdout", "JSON: " + returns_description_); break;
    case Returns::table: line("[OUTPUT.csv]", "CSV table (stdout when no path is given): " + returns_description_); break;
  }
  if (!params_.empty()) {
    os << "\nparameters:\n";
    for (const Param& p : params_) {
      std::string right = p.help;
      right += p.is_required() ? " (required)" : " (default: " + p.python_default() + ")";
      line("--" + p.name + " " + kind_name(p.kind, p.choices), right);
    }
  }
  if (!cpp_only_.empty()) {
    os << "\nC++ only (no command-line form):\n";
    for (const auto& f : cpp_only_) os << "  " << f << "\n";
  }
  os << "\ncommon options:\n";
  line("--device cpu|cuda[:N]", "where the op runs (default: cuda when a GPU is present, else cpu)");
  return os.str();
}

// ---- registry --------------------------------------------------------------------------------------

Registry& Registry::instance() {
  static Registry r;
  return r;
}

void Registry::add(Command command) {
  const std::string name = command.name();
  if (name.find('.') == std::string::npos || name.front() == '.' || name.back() == '.')
    throw std::logic_error("cuskimage CLI: command name '" + name + "' must read MODULE.FUNCTION");
  if (commands_.count(name)) throw std::logic_error("cuskimage CLI: command '" + name + "' registered twice");
  if (!command.run()) throw std::logic_error("cuskimage CLI: command '" + name + "' has no handler");
  const auto& ins = command.input_specs();
  for (std::size_t i = 0; i + 1 < ins.size(); ++i) {
    if (ins[i].variadic) throw std::logic_error("cuskimage CLI: '" + name + "': only the last input may be variadic");
    if (ins[i].optional && !ins[i + 1].optional)
      throw std::logic_error("cuskimage CLI: '" + name + "': optional inputs must come last");
  }
  for (const Input& in : ins)
    if (in.optional && (in.variadic || command.returns() == Returns::table))
      throw std::logic_error("cuskimage CLI: '" + name + "': optional inputs cannot be variadic nor precede a table");
  std::set<std::string> names;
  for (const Param& p : command.params()) {
    if (!names.insert(p.name).second)
      throw std::logic_error("cuskimage CLI: '" + name + "': parameter '" + p.name + "' declared twice");
    if (p.name == "device" || p.name == "help")
      throw std::logic_error("cuskimage CLI: '" + name + "': parameter name '" + p.name + "' is reserved");
    if (p.default_value) (void)parse_value(name, p, *p.default_value);  // throws on a bad default
  }
  commands_.emplace(name, std::move(command));
}

const Command* Registry::find(const std::string& name) const {
  auto it = commands_.find(name);
  return it == commands_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::suggestions(const std::string& name) const {
  std::vector<std::pair<std::size_t, std::string>> scored;
  const std::string fn = name.substr(name.find('.') == std::string::npos ? 0 : name.find('.') + 1);
  for (const auto& [n, c] : commands_) {
    const std::string cfn = n.substr(n.find('.') + 1);
    std::size_t d = edit_distance(name, n);
    if (cfn == fn || cfn == name) d = 0;  // right function, wrong or missing module
    if (d <= std::max<std::size_t>(2, name.size() / 4)) scored.emplace_back(d, n);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

// ---- output formatting -----------------------------------------------------------------------------

std::string to_json_text(const nlohmann::json& v) {
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + to_json_text(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      s += (first ? "" : ", ") + nlohmann::json(it.key()).dump() + ": " + to_json_text(it.value());
      first = false;
    }
    return s + "}";
  }
  return v.dump();
}

namespace {
template <class T>
nlohmann::json nest(const std::vector<T>& flat, const Shape& shape, std::size_t axis, std::int64_t& pos) {
  if (axis == shape.size()) return nlohmann::json(flat[static_cast<std::size_t>(pos++)]);
  nlohmann::json arr = nlohmann::json::array();
  for (std::int64_t i = 0; i < shape[axis]; ++i) arr.push_back(nest(flat, shape, axis + 1, pos));
  return arr;
}
template <class T>
nlohmann::json nest_all(const std::vector<T>& flat, const Shape& shape) {
  std::int64_t pos = 0;
  return nest(flat, shape, 0, pos);
}
}  // namespace

nlohmann::json array_to_json(const Array& a) {
  const DType dt = a.dtype();
  if (dt == DType::bool_) {
    std::vector<std::uint8_t> u = a.to_vector<std::uint8_t>();
    std::vector<bool> b(u.begin(), u.end());
    return nest_all(b, a.shape());
  }
  if (is_floating(dt)) return nest_all(a.to_vector<double>(), a.shape());
  if (dt == DType::uint64) return nest_all(a.to_vector<std::uint64_t>(), a.shape());
  return nest_all(a.to_vector<std::int64_t>(), a.shape());
}

std::string to_csv(const Table& t) {
  auto cell = [](const nlohmann::json& v) -> std::string {
    if (v.is_null()) return "";
    std::string s = v.is_string() ? v.get<std::string>() : to_json_text(v);
    if (s.find_first_of(",\"\n\r") != std::string::npos) {
      std::string q = "\"";
      for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    }
    return s;
  };
  std::ostringstream os;
  for (std::size_t i = 0; i < t.columns.size(); ++i) os << (i ? "," : "") << cell(t.columns[i]);
  os << "\n";
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) os << (i ? "," : "") << cell(row[i]);
    os << "\n";
  }
  return os.str();
}

}  // namespace cuskimage::cli
