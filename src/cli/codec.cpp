// The non-template parts of codec.hpp: number formatting, the options parameters of a command and
// the default check behind `cuskimage --check-options` (tests/cli).
#include "src/cli/codec.hpp"

#include <charconv>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace cuskimage::cli {

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // 1 -> 1.0, as Python writes a float
  return s;
}

std::string format_list(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s;
}

std::int64_t checked_integer(const Invocation& inv, const std::string& name, std::int64_t v, std::int64_t lo,
                             std::int64_t hi) {
  if (v < lo || v > hi)
    throw UsageError(inv.name() + ": parameter '--" + name + "' must be in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got " + std::to_string(v));
  return v;
}

const std::vector<std::string>& mode_choices() {
  static const std::vector<std::string> modes = {"reflect", "grid-mirror", "mirror",   "nearest",
                                                 "wrap",    "grid-wrap",   "constant", "grid-constant"};
  return modes;
}

std::vector<std::string> Codec<ndimage::InterpMode>::choices() {
  return {"constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "grid-wrap", "wrap"};
}

std::string Codec<ndimage::Modes>::format(const ndimage::Modes& v) {
  if (v.v.size() != 1) throw std::logic_error("cuskimage CLI: a per-axis mode default has no command-line form");
  return Codec<ndimage::Mode>::format(v.v[0]);
}

std::string Codec<Array>::format(const Array& v) {
  if (v.valid()) throw std::logic_error("cuskimage CLI: an array field's default must be the empty handle");
  return "none";
}

std::string Codec<filters::ImpulseResponse>::format(const filters::ImpulseResponse& v) {
  if (v) throw std::logic_error("cuskimage CLI: an impulse response default has no command-line form");
  return "none";
}

filters::ImpulseResponse Codec<filters::ImpulseResponse>::read(Invocation& inv, const std::string& name) {
  if (!inv.has(name)) return {};
  const Array& a = inv.array(name);
  if (a.ndim() != 2)
    throw UsageError(inv.name() + ": parameter '--" + name + "' expects a 2-D array, got " +
                     std::to_string(a.ndim()) + "-D");
  const std::int64_t rows = a.shape()[0], cols = a.shape()[1];
  auto values = std::make_shared<std::vector<double>>(a.to(Device::cpu(), inv.stream()).to_vector<double>());
  return [values, rows, cols](double r, double c) {
    const auto i = static_cast<std::int64_t>(std::llround(r)) + rows / 2;
    const auto j = static_cast<std::int64_t>(std::llround(c)) + cols / 2;
    if (i < 0 || i >= rows || j < 0 || j >= cols) return 0.0;
    return (*values)[static_cast<std::size_t>(i * cols + j)];
  };
}

std::string Codec<std::variant<double, Array>>::format(const std::variant<double, Array>& v) {
  if (const double* d = std::get_if<double>(&v)) return format_number(*d);
  return Codec<Array>::format(std::get<Array>(v));
}

std::variant<double, Array> Codec<std::variant<double, Array>>::read(Invocation& inv, const std::string& name) {
  const std::string& text = inv.string(name);
  try {
    return std::get<double>(parse_value(inv.name(), Param::number(name, "0", ""), text));
  } catch (const UsageError&) {
    return inv.array(name).share();
  }
}

bool Codec<std::variant<double, Array>>::equal(const std::variant<double, Array>& a,
                                               const std::variant<double, Array>& b) {
  if (a.index() != b.index()) return false;
  if (a.index() == 0) return std::get<0>(a) == std::get<0>(b) || (std::isnan(std::get<0>(a)) && std::isnan(std::get<0>(b)));
  return Codec<Array>::equal(std::get<1>(a), std::get<1>(b));
}

Command& Command::choices(const std::string& name, std::vector<std::string> allowed) {
  for (Param& p : params_)
    if (p.name == name) {
      if (p.kind != Kind::string && p.kind != Kind::choice)
        throw std::logic_error("cuskimage CLI: '" + name_ + "': choices() on non-text parameter '" + name + "'");
      p.kind = Kind::choice;
      p.choices = std::move(allowed);
      return *this;
    }
  throw std::logic_error("cuskimage CLI: '" + name_ + "': choices() on undeclared parameter '" + name + "'");
}

Command& Command::unset_as(const std::string& name, std::string word) {
  for (Param& p : params_)
    if (p.name == name) {
      if (p.default_value == "none") p.default_value = word;
      p.unset_word = std::move(word);
      p.nullable = true;
      return *this;
    }
  throw std::logic_error("cuskimage CLI: '" + name_ + "': unset_as() on undeclared parameter '" + name + "'");
}

void Command::add_option_param(Param p) {
  if (const Param* q = find_param(p.name)) {
    // The same keyword in two options structs of one command: one parameter feeds both (the check
    // then holds both structs' defaults to it).
    if (q->field_of.empty() || q->kind != p.kind)
      throw std::logic_error("cuskimage CLI: '" + name_ + "': parameter '" + p.name + "' of " + p.field_of +
                             " clashes with an earlier declaration");
    return;
  }
  params_.push_back(std::move(p));
}

std::vector<OptionsCheck> Command::check_defaults() const {
  std::vector<OptionsCheck> out;
  Invocation inv = Invocation::defaults(*this);
  for (const auto& check : option_checks_) out.push_back(check(inv));
  return out;
}

OptionsCheck Registry::check_options() const {
  OptionsCheck all;
  for (const auto& [name, c] : commands_) {
    for (const Param& p : c.params())
      if (p.field_of.empty() && c.option_fields().count(p.name))
        all.problems.push_back(name + ": hand-declared parameter '--" + p.name +
                               "' shadows a field of the command's options struct (declare it there)");
    try {
      for (OptionsCheck& r : c.check_defaults()) {
        all.fields += r.fields;
        for (auto& msg : r.problems) all.problems.push_back(std::move(msg));
      }
    } catch (const std::exception& e) {
      all.problems.push_back(name + ": reading the defaults failed: " + e.what());
    }
  }
  return all;
}

}  // namespace cuskimage::cli
