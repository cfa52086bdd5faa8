// Codecs: how a C++ type of an options field travels on the command line. Command::options<S>()
// adds one parameter per field of S's CUSK_OPTIONS list (name, kind, default = the field of S{} in
// command-line syntax, help = the field's doc) and Invocation::options<S>() reads them back into an S.
//
//   reg.add(Command("filters.gaussian", "Gaussian smoothing of the float image.")
//               .input("image", "input image")
//               .options<filters::GaussianOptions>()
//               .returns_image()
//               .handler([](Invocation& inv) -> Result {
//                 return filters::gaussian(inv.input(0), inv.options<filters::GaussianOptions>(), inv.stream());
//               }));
//
// A specialization Codec<T> gives
//   static constexpr Kind kind;                          how the text is parsed (registry.hpp)
//   static std::string format(const T&);                 a value in command-line syntax ("none": unset)
//   static T read(Invocation&, const std::string& name); the parsed parameter as a T
// and optionally
//   static std::vector<std::string> choices();           Kind::choice: the accepted strings
//   static constexpr bool nullable = true;               "none" is accepted whatever the default
//   static bool equal(const T&, const T&);               when T has no operator==
// A field whose type has no Codec (callables, pointers, devices, ...) is C++-only: the command line
// skips it and `help` lists it as such.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/options.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

template <class T, class Enable = void>
struct Codec;  // none: the type is C++-only

template <class T>
concept HasCodec = requires { Codec<T>::kind; };

/// Shortest text that parses back to exactly `v` ("1.0", "0.1", "inf", "-1e-300").
std::string format_number(double v);
/// "1,2,3".
std::string format_list(const std::vector<std::string>& items);
/// Range-checked conversion of a parsed integer to the field's integer type.
std::int64_t checked_integer(const Invocation& inv, const std::string& name, std::int64_t v, std::int64_t lo,
                             std::int64_t hi);
/// scipy's boundary mode names and aliases (ndimage::mode_from_name accepts exactly these).
const std::vector<std::string>& mode_choices();

/// The range of integer type T that an int64 can hold.
template <class T>
constexpr std::int64_t int_lo() {
  return static_cast<std::int64_t>(std::numeric_limits<T>::min());
}
template <class T>
constexpr std::int64_t int_hi() {
  if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) return INT64_MAX;
  else return static_cast<std::int64_t>(std::numeric_limits<T>::max());
}

// ---- scalars -------------------------------------------------------------------------------------------

template <class T>
struct Codec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static constexpr Kind kind = Kind::integer;
  static std::string format(T v) { return std::to_string(v); }
  static T read(Invocation& inv, const std::string& name) {
    return static_cast<T>(checked_integer(inv, name, inv.integer(name), int_lo<T>(), int_hi<T>()));
  }
};

template <class T>
struct Codec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static constexpr Kind kind = Kind::number;
  static std::string format(T v) { return format_number(static_cast<double>(v)); }
  static T read(Invocation& inv, const std::string& name) { return static_cast<T>(inv.number(name)); }
};

template <>
struct Codec<bool> {
  static constexpr Kind kind = Kind::boolean;
  static std::string format(bool v) { return v ? "true" : "false"; }
  static bool read(Invocation& inv, const std::string& name) { return inv.flag(name); }
};

/// Text; an empty default shows as none (and none reads back as "").
template <>
struct Codec<std::string> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const std::string& v) { return v.empty() ? "none" : v; }
  static std::string read(Invocation& inv, const std::string& name) {
    return inv.has(name) ? inv.string(name) : std::string();
  }
};

/// One character (util.crop's order); restrict it with Command::choices.
template <>
struct Codec<char> {
  static constexpr Kind kind = Kind::string;
  static std::string format(char v) { return std::string(1, v); }
  static char read(Invocation& inv, const std::string& name) {
    const std::string& s = inv.string(name);
    if (s.size() != 1) throw UsageError(inv.name() + ": parameter '--" + name + "' expects one character, got '" + s + "'");
    return s[0];
  }
};

template <>
struct Codec<DType> {
  static constexpr Kind kind = Kind::dtype;
  static std::string format(DType v) { return std::string(dtype_name(v)); }
  static DType read(Invocation& inv, const std::string& name) { return inv.dtype(name); }
};

/// Enumerations with a CUSK_ENUM name table (options.hpp).
template <class E>
struct Codec<E, std::enable_if_t<meta::NamedEnum<E>>> {
  static constexpr Kind kind = Kind::choice;
  static std::vector<std::string> choices() {
    std::vector<std::string> c;
    for (const auto& e : meta::enum_names<E>()) c.emplace_back(e.name);
    return c;
  }
  static std::string format(E v) { return std::string(meta::enum_name(v)); }
  static E read(Invocation& inv, const std::string& name) { return *meta::enum_from_name<E>(inv.string(name)); }
};

/// An enumeration the library already names with a pair of functions (E from_name(string_view),
/// string_view name(E)): the codec uses them. The specialization adds choices(), the names accepted.
template <class E, E (*FromName)(std::string_view), std::string_view (*Name)(E)>
struct NamedByLibrary {
  static constexpr Kind kind = Kind::choice;
  static std::string format(E v) { return std::string(Name(v)); }
  static E read(Invocation& inv, const std::string& name) { return FromName(inv.string(name)); }
};

template <>
struct Codec<ndimage::Mode> : NamedByLibrary<ndimage::Mode, ndimage::mode_from_name, ndimage::mode_name> {
  static std::vector<std::string> choices() { return mode_choices(); }
};

template <>
struct Codec<ndimage::InterpMode>
    : NamedByLibrary<ndimage::InterpMode, ndimage::interp_mode_from_name, ndimage::interp_mode_name> {
  static std::vector<std::string> choices();
};

/// One mode for every axis (per-axis sequences are C++-only).
template <>
struct Codec<ndimage::Modes> {
  static constexpr Kind kind = Kind::choice;
  static std::vector<std::string> choices() { return mode_choices(); }
  static std::string format(const ndimage::Modes& v);
  static ndimage::Modes read(Invocation& inv, const std::string& name) { return Codec<ndimage::Mode>::read(inv, name); }
  static bool equal(const ndimage::Modes& a, const ndimage::Modes& b) { return a.v == b.v; }
};

/// An array parameter: a path (or an inline 1-D list), none for the empty handle.
template <>
struct Codec<Array> {
  static constexpr Kind kind = Kind::array;
  static std::string format(const Array& v);
  static Array read(Invocation& inv, const std::string& name) {
    return inv.has(name) ? inv.array(name).share() : Array();
  }
  static bool equal(const Array& a, const Array& b) { return a.valid() == b.valid() && a.data() == b.data(); }
};

// ---- sequences -------------------------------------------------------------------------------------------

/// Tuples of numbers: "2" or "2,3"; an empty default shows as none (and none reads back as empty).
template <class T>
struct Codec<std::vector<T>, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>>> {
  static constexpr Kind kind = std::is_integral_v<T> ? Kind::ints : Kind::numbers;
  static std::string format(const std::vector<T>& v) {
    if (v.empty()) return "none";
    std::vector<std::string> items;
    for (T x : v) items.push_back(Codec<T>::format(x));
    return format_list(items);
  }
  static std::vector<T> read(Invocation& inv, const std::string& name) {
    std::vector<T> out;
    if (!inv.has(name)) return out;
    if constexpr (std::is_integral_v<T>) {
      for (std::int64_t x : inv.ints(name))
        out.push_back(static_cast<T>(checked_integer(inv, name, x, int_lo<T>(), int_hi<T>())));
    } else {
      for (double x : inv.numbers(name)) out.push_back(static_cast<T>(x));
    }
    return out;
  }
};

template <class T, std::size_t N>
struct Codec<std::array<T, N>, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>>> {
  using Vec = Codec<std::vector<T>>;
  static constexpr Kind kind = Vec::kind;
  static std::string format(const std::array<T, N>& v) { return Vec::format(std::vector<T>(v.begin(), v.end())); }
  static std::array<T, N> read(Invocation& inv, const std::string& name) {
    const std::vector<T> v = Vec::read(inv, name);
    if (v.size() != N)
      throw UsageError(inv.name() + ": parameter '--" + name + "' expects " + std::to_string(N) + " values, got " +
                       std::to_string(v.size()));
    std::array<T, N> out{};
    std::copy(v.begin(), v.end(), out.begin());
    return out;
  }
};

template <>
struct Codec<filters::Sigma> {
  static constexpr Kind kind = Kind::numbers;
  static std::string format(const filters::Sigma& v) { return Codec<std::vector<double>>::format(v.v); }
  static filters::Sigma read(Invocation& inv, const std::string& name) { return inv.numbers(name); }
  static bool equal(const filters::Sigma& a, const filters::Sigma& b) { return a.v == b.v; }
};

/// An impulse response given as a sampled 2-D array: the value at offset (r, c) from its centre
/// (shape // 2), 0 outside. scikit-image evaluates the response at integer offsets, so any
/// callable's samples written to a file give the same filter.
template <>
struct Codec<filters::ImpulseResponse> {
  static constexpr Kind kind = Kind::array;
  static std::string format(const filters::ImpulseResponse& v);
  static filters::ImpulseResponse read(Invocation& inv, const std::string& name);
  static bool equal(const filters::ImpulseResponse& a, const filters::ImpulseResponse& b) { return !a == !b; }
};

/// A number, or a path to an array (wiener's K).
template <>
struct Codec<std::variant<double, Array>> {
  static constexpr Kind kind = Kind::array;
  static std::string format(const std::variant<double, Array>& v);
  static std::variant<double, Array> read(Invocation& inv, const std::string& name);
  static bool equal(const std::variant<double, Array>& a, const std::variant<double, Array>& b);
};

// ---- unset values ----------------------------------------------------------------------------------------

/// scikit-image's None: "none" on the command line, whatever the default.
template <class T>
struct Codec<std::optional<T>, std::enable_if_t<HasCodec<T>>> {
  static constexpr Kind kind = Codec<T>::kind;
  static constexpr bool nullable = true;
  static std::vector<std::string> choices() {
    if constexpr (requires { Codec<T>::choices(); }) return Codec<T>::choices();
    else return {};
  }
  static std::string format(const std::optional<T>& v) { return v ? Codec<T>::format(*v) : "none"; }
  static std::optional<T> read(Invocation& inv, const std::string& name) {
    if (!inv.has(name)) return std::nullopt;
    return Codec<T>::read(inv, name);
  }
};

// ---- the generic parts -----------------------------------------------------------------------------------

template <HasCodec T>
bool codec_equal(const T& a, const T& b) {
  if constexpr (requires { Codec<T>::equal(a, b); }) {
    return Codec<T>::equal(a, b);
  } else if constexpr (requires { a.has_value(); *a; }) {  // std::optional of a type without ==
    return a.has_value() == b.has_value() && (!a || codec_equal(*a, *b));
  } else {
    return a == b;
  }
}

/// The parameter of one field: name, kind, choices, default (the field of S{}), help (the doc).
template <HasCodec T>
Param codec_param(const std::string& name, const std::string& help, const T& default_value) {
  Param p;
  p.name = name;
  p.kind = Codec<T>::kind;
  if constexpr (requires { Codec<T>::choices(); }) p.choices = Codec<T>::choices();
  if constexpr (requires { Codec<T>::nullable; }) p.nullable = Codec<T>::nullable;
  p.default_value = Codec<T>::format(default_value);
  p.help = help;
  return p;
}

template <meta::Described S>
Command& Command::options(std::initializer_list<std::string_view> skip) {
  const S defaults{};
  const std::string struct_name = meta::struct_name<S>();
  meta::for_each_field<S>([&](const auto& f) {
    using T = typename std::decay_t<decltype(f)>::type;
    option_fields_.insert(f.name);
    if (std::find(skip.begin(), skip.end(), std::string_view(f.name)) != skip.end()) return;
    if constexpr (HasCodec<T>) {
      Param p = codec_param<T>(f.name, f.doc, defaults.*(f.member));
      p.field_of = struct_name;
      add_option_param(std::move(p));
    } else {
      cpp_only_.push_back(std::string(f.name) + " (" + struct_name + ")");
    }
  });
  option_checks_.push_back([](Invocation& inv) {
    OptionsCheck out;
    const S parsed = inv.options<S>();
    const S defaults{};
    meta::for_each_field<S>([&](const auto& f) {
      using T = typename std::decay_t<decltype(f)>::type;
      if constexpr (HasCodec<T>) {
        const Param* p = inv.command().find_param(f.name);
        if (!p || p->field_of.empty()) return;
        ++out.fields;
        if (!codec_equal(parsed.*(f.member), defaults.*(f.member)))
          out.problems.push_back(inv.name() + ": --" + f.name + " default '" + p->default_value.value_or("") +
                                 "' does not read back as " + meta::struct_name<S>() + "{}." + f.name);
      }
    });
    return out;
  });
  return *this;
}

template <meta::Described S>
S Invocation::options() {
  S s{};
  meta::for_each_field<S>([&](const auto& f) {
    using T = typename std::decay_t<decltype(f)>::type;
    if constexpr (HasCodec<T>) {
      const Param* p = command_->find_param(f.name);
      if (p && !p->field_of.empty()) s.*(f.member) = Codec<T>::read(*this, f.name);
    }
  });
  return s;
}

}  // namespace cuskimage::cli
