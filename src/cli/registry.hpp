// The command registry of the `cuskimage` command-line tool.
//
// Every scikit-image module adds one file src/cli/commands_<module>.cpp that registers its
// functions with CUSK_CLI_COMMANDS(<module>) { ... }. A command declares its positional image
// inputs (scikit-image's argument order), its keyword parameters, what it returns (images written
// to OUTPUT paths, a JSON value printed on stdout, or a CSV table) and a handler that calls the
// library. Keyword parameters come from the function's options struct (its CUSK_OPTIONS field list
// gives names, types, defaults and help; see codec.hpp); only arguments outside the struct (e.g. a
// positional sigma) or command-line-only switches are declared by hand with .param():
//
//   CUSK_CLI_COMMANDS(util) {
//     reg.add(Command("util.invert", "Invert an image.")
//                 .input("image", "input image")
//                 .options<util::InvertOptions>()
//                 .returns_image()
//                 .handler([](Invocation& inv) -> Result {
//                   return util::invert(inv.input(0), inv.options<util::InvertOptions>(), inv.stream());
//                 }));
//   }
//
// Values on the command line (see `cuskimage --help`): numbers as numbers, booleans true/false,
// tuples comma-separated (`--sigma 2,3`), nested pairs colon-separated (`--crop_width 1,2:3,4` is
// ((1, 2), (3, 4))), arrays (footprints, kernels, ...) as a path to an image or .npy file,
// enumerations and dtypes by scikit-image's strings, `none` for an optional parameter left unset.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::cli {

/// A mistake on the command line (unknown function or parameter, missing or malformed value).
/// The tool exits with status 2 for these and 1 for errors raised by the library.
class UsageError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

/// How a parameter's text is parsed.
enum class Kind {
  integer,  // 3, -1
  number,   // 0.5, 1e-3, inf, nan
  boolean,  // true/false (also True/False, 1/0, yes/no)
  string,   // any text
  choice,   // one of Param::choices
  ints,     // 2 or 2,3 (a tuple of integers)
  numbers,  // 0.5 or 0.5,2 (a tuple of numbers)
  pairs,    // 1,2:3,4 -> ((1, 2), (3, 4)); 1,2 -> ((1, 2),); 2 -> ((2,),)
  array,    // path to an image or .npy file, read with io::imread onto the command's device
  dtype,    // a NumPy dtype name: uint8, float32, ...
};

/// "int", "float", "bool", "{a,b}", ...
std::string kind_name(Kind kind, const std::vector<std::string>& choices = {});

/// Marks a parameter without a default (it must be given).
inline const std::optional<std::string> required = std::nullopt;

struct Param {
  std::string name;
  Kind kind = Kind::string;
  /// Default in command-line syntax ("8,8", "false", "reflect"), "none" for an optional parameter
  /// that is unset by default (scikit-image's None), std::nullopt when required.
  std::optional<std::string> default_value;
  std::string help;
  std::vector<std::string> choices;  // Kind::choice
  /// "none" is accepted (scikit-image's None) even when the default is set (std::optional fields).
  bool nullable = false;
  /// A word meaning unset besides "none" (Command::unset_as).
  std::string unset_word;
  /// The options struct the parameter comes from ("GaussianOptions"); empty for a hand-declared one.
  std::string field_of;

  static Param integer(std::string name, std::optional<std::string> def, std::string help);
  static Param number(std::string name, std::optional<std::string> def, std::string help);
  static Param boolean(std::string name, std::optional<std::string> def, std::string help);
  static Param string(std::string name, std::optional<std::string> def, std::string help);
  static Param choice(std::string name, std::vector<std::string> choices, std::optional<std::string> def,
                      std::string help);
  static Param ints(std::string name, std::optional<std::string> def, std::string help);
  static Param numbers(std::string name, std::optional<std::string> def, std::string help);
  static Param pairs(std::string name, std::optional<std::string> def, std::string help);
  static Param array(std::string name, std::optional<std::string> def, std::string help);
  static Param dtype(std::string name, std::optional<std::string> def, std::string help);

  bool is_required() const { return !default_value.has_value(); }
  /// The default as Python writes it: False, 'reflect', (8, 8), None.
  std::string python_default() const;
};

/// A positional image input, read with io::imread onto the command's device.
struct Input {
  std::string name;
  std::string help;
  bool variadic = false;  // last input only: one or more paths
  bool optional = false;  // trailing inputs only: may be left out
};

/// A table written as CSV (to OUTPUT when given, else stdout).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;
};

/// What a handler hands back: images (written to the OUTPUT paths in order), a JSON value (printed
/// on stdout), a table (CSV), or a mix (e.g. a label image plus its count).
struct Result {
  Result() = default;
  Result(Array image) { images.push_back(std::move(image)); }
  Result(nlohmann::json v) : value(std::move(v)) {}
  Result(Table t) : table(std::move(t)) {}

  std::vector<Array> images;
  std::optional<nlohmann::json> value;
  std::optional<Table> table;
  /// How the images are written (default: io's defaults without the low-contrast warning).
  std::optional<io::ImsaveOptions> save_options;
};

/// A parsed parameter value.
using Value = std::variant<std::monostate, std::int64_t, double, bool, std::string, std::vector<std::int64_t>,
                           std::vector<double>, std::vector<std::vector<double>>>;

class Command;

/// What the default check of one options struct found (Registry::check_options).
struct OptionsCheck {
  std::size_t fields = 0;
  std::vector<std::string> problems;
};

/// One run of a command: the input paths, the parsed parameters, the device and the stream.
class Invocation {
 public:
  Invocation(const Command& command, std::vector<std::string> input_paths, std::map<std::string, Value> values,
             Device device);
  /// An invocation holding only the defaults (required parameters left unset), for checks.
  static Invocation defaults(const Command& command);

  const Command& command() const { return *command_; }
  /// "util.crop" (for messages).
  const std::string& name() const;
  Device device() const { return device_; }
  const Stream& stream() const { return stream_; }

  // ---- positional inputs ------------------------------------------------------------------------
  std::size_t num_inputs() const { return paths_.size(); }
  const std::string& input_path(std::size_t i) const;
  /// Input i read with io::imread and moved to device() (read once, then cached).
  const Array& input(std::size_t i);

  // ---- parameters (given on the command line, else the default) ---------------------------------
  /// False when the parameter is unset (scikit-image's None); required parameters are always set.
  bool has(const std::string& name) const;
  /// True when the parameter was given on the command line.
  bool given(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;  // also accepts an integer parameter
  bool flag(const std::string& name) const;
  const std::string& string(const std::string& name) const;  // string and choice
  DType dtype(const std::string& name) const;
  std::vector<std::int64_t> ints(const std::string& name) const;
  std::vector<double> numbers(const std::string& name) const;
  std::vector<std::vector<double>> pairs(const std::string& name) const;
  /// Pairs whose every entry must be an integer (e.g. crop_width).
  std::vector<std::vector<std::int64_t>> int_pairs(const std::string& name) const;
  /// An array parameter read with io::imread onto device() (cached). A value that is no existing
  /// file but a comma-separated list of numbers is a 1-D array (int64 when all are integers, else
  /// float64): --input_vals 1,2,3.
  const Array& array(const std::string& name);

  /// The optional variants: std::nullopt when unset.
  std::optional<std::int64_t> opt_integer(const std::string& name) const;
  std::optional<double> opt_number(const std::string& name) const;
  std::optional<std::string> opt_string(const std::string& name) const;

  /// S{} with every field the command declared through Command::options<S>() set from the command
  /// line (else its default). Fields left out of the command line keep S{}'s value.
  template <meta::Described S>
  S options();

 private:
  struct DefaultsOnly {};
  Invocation(const Command& command, DefaultsOnly);

  const Value& value(const std::string& name, Kind expected) const;
  [[noreturn]] void bad(const std::string& name, const std::string& what) const;

  const Command* command_;
  std::vector<std::string> paths_;
  std::map<std::string, Value> values_;
  std::map<std::string, bool> given_;
  Device device_;
  Stream stream_;
  std::map<std::size_t, Array> inputs_;
  std::map<std::string, Array> arrays_;
};

enum class Returns { image, value, table };

class Command {
 public:
  using Handler = std::function<Result(Invocation&)>;

  Command(std::string name, std::string summary);

  Command& input(std::string name, std::string help);
  /// One or more paths for the last input (e.g. montage's images).
  Command& inputs(std::string name, std::string help);
  /// An input that may be left out (trailing inputs only); Invocation::num_inputs() tells.
  Command& optional_input(std::string name, std::string help);
  Command& param(Param p);
  /// One parameter per field of S's CUSK_OPTIONS list (codec.hpp): its name, the field's type's kind,
  /// the field of S{} as default and the field's doc as help. Fields named in `skip` are set by the
  /// handler instead; fields of a type without a codec are C++-only (listed as such by help()).
  /// A field already declared by an earlier options<>() of the command is shared.
  template <meta::Described S>
  Command& options(std::initializer_list<std::string_view> skip = {});
  /// Restricts a text parameter (e.g. a string field of an options struct) to `allowed`.
  Command& choices(const std::string& name, std::vector<std::string> allowed);
  /// Makes `word` the command-line spelling of an unset parameter (scikit-image's default string,
  /// e.g. montage's fill='mean' for an empty fill), in place of none.
  Command& unset_as(const std::string& name, std::string word);
  /// Images written to OUTPUT paths; the names are shown in the usage line.
  Command& returns_image(std::vector<std::string> outputs = {"output"});
  /// A JSON value on stdout; `description` says what it is (shown in help).
  Command& returns_value(std::string description);
  /// A CSV table, to OUTPUT when given, else stdout.
  Command& returns_table(std::string description);
  /// The function that runs the command. An image command may also set Result::value (printed as
  /// JSON after the images are written), e.g. a label image plus its count.
  Command& handler(Handler h);

  const std::string& name() const { return name_; }
  std::string module() const { return name_.substr(0, name_.find('.')); }
  const std::string& summary() const { return summary_; }
  const std::vector<Input>& input_specs() const { return inputs_; }
  const std::vector<Param>& params() const { return params_; }
  const Param* find_param(const std::string& name) const;
  Returns returns() const { return returns_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  const std::string& returns_description() const { return returns_description_; }
  const Handler& run() const { return handler_; }
  /// Names of every field of the command's options structs (exposed, skipped or C++-only).
  const std::set<std::string>& option_fields() const { return option_fields_; }
  /// "hist (ThresholdOtsuOptions)" for each field with no command-line form.
  const std::vector<std::string>& cpp_only() const { return cpp_only_; }
  /// Reads the defaults back into each options struct and compares them with S{}, field by field.
  std::vector<OptionsCheck> check_defaults() const;

  /// "util.crop(ar, crop_width, copy=False, order='K') -> image"
  std::string signature() const;
  /// "cuskimage util.crop AR OUTPUT --crop_width PAIRS [--copy BOOL] [--order {K,C,F,A}]"
  std::string usage() const;
  /// Signature, summary, usage and one line per input and parameter.
  std::string help() const;

 private:
  std::string name_;
  std::string summary_;
  std::vector<Input> inputs_;
  std::vector<Param> params_;
  Returns returns_ = Returns::image;
  std::vector<std::string> outputs_ = {"output"};
  std::string returns_description_ = "image";
  Handler handler_;
  std::set<std::string> option_fields_;
  std::vector<std::string> cpp_only_;
  std::vector<std::function<OptionsCheck(Invocation&)>> option_checks_;

  void add_option_param(Param p);
};

class Registry {
 public:
  static Registry& instance();
  /// Adds a command; throws std::logic_error for a duplicate name or a default that does not parse.
  void add(Command command);
  const Command* find(const std::string& name) const;
  const std::map<std::string, Command>& commands() const { return commands_; }
  /// Names close to `name` (typos), best first.
  std::vector<std::string> suggestions(const std::string& name) const;
  /// Every command's options defaults against its structs (Command::check_defaults) and every
  /// hand-declared parameter against the names of its structs' fields (none may shadow one).
  OptionsCheck check_options() const;

 private:
  std::map<std::string, Command> commands_;
};

/// Parses `text` as a value of `p`'s kind; throws UsageError naming `fn` and the parameter.
Value parse_value(const std::string& fn, const Param& p, const std::string& text);

/// Python-style JSON text (", " and ": " separators, as json.dumps): [0, 255].
std::string to_json_text(const nlohmann::json& v);
/// Small arrays as nested JSON lists (bool as true/false, integers exact).
nlohmann::json array_to_json(const Array& a);
/// CSV text of a table (RFC 4180 quoting).
std::string to_csv(const Table& t);

namespace detail {
struct Registrar {
  explicit Registrar(void (*fn)(Registry&)) { fn(Registry::instance()); }
};
}  // namespace detail

}  // namespace cuskimage::cli

/// Opens the registration function of a module's commands: CUSK_CLI_COMMANDS(util) { reg.add(...); }
#define CUSK_CLI_COMMANDS(module)                                                              \
  static void cusk_cli_register_##module(::cuskimage::cli::Registry& reg);                    \
  [[maybe_unused]] static const ::cuskimage::cli::detail::Registrar cusk_cli_registrar_##module{ \
      &cusk_cli_register_##module};                                                            \
  static void cusk_cli_register_##module([[maybe_unused]] ::cuskimage::cli::Registry& reg)

#include "src/cli/codec.hpp"  // Codec<T> and the options<S>() templates
