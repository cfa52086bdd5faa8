// measure::Table: ordered named columns (regionprops_table's dict) and its CSV writer.
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "cuskimage/measure.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::measure {
namespace {

constexpr std::string_view kFn = "measure.Table";

std::size_t column_size(const Table::Column& c) {
  return std::visit([](const auto& v) { return v.size(); }, c);
}

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

void put_double(std::ostream& os, double v) {
  if (std::isnan(v)) {
    os << "nan";
    return;
  }
  if (std::isinf(v)) {
    os << (v > 0 ? "inf" : "-inf");
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);  // shortest text that reads back exactly
  os.write(buf, r.ptr - buf);
}

}  // namespace

void Table::add_column(std::string name, Column values) {
  cuskimage::detail::expect(!contains(name), kFn, "name", "must be unique, '", name, "' is already a column");
  if (!columns_.empty())
    cuskimage::detail::expect(column_size(values) == num_rows(), kFn, "values", "must have ", num_rows(),
                              " rows, got ", column_size(values));
  names_.push_back(std::move(name));
  columns_.push_back(std::move(values));
}

std::size_t Table::num_rows() const { return columns_.empty() ? 0 : column_size(columns_.front()); }

bool Table::contains(std::string_view name) const {
  for (const auto& n : names_)
    if (n == name) return true;
  return false;
}

const Table::Column& Table::column(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return columns_[i];
  cuskimage::detail::fail(kFn, "argument 'name': no column '", name, "'");
}

bool Table::is_integer(std::string_view name) const {
  return std::holds_alternative<std::vector<std::int64_t>>(column(name));
}

std::vector<double> Table::as_double(std::string_view name) const {
  const Column& c = column(name);
  if (const auto* d = std::get_if<std::vector<double>>(&c)) return *d;
  const auto& v = std::get<std::vector<std::int64_t>>(c);
  return std::vector<double>(v.begin(), v.end());
}

void Table::write_csv(std::ostream& os) const {
  for (std::size_t j = 0; j < names_.size(); ++j) os << (j ? "," : "") << quoted(names_[j]);
  os << '\n';
  const std::size_t rows = num_rows();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns_.size(); ++j) {
      if (j) os << ',';
      if (const auto* d = std::get_if<std::vector<double>>(&columns_[j]))
        put_double(os, (*d)[i]);
      else
        os << std::get<std::vector<std::int64_t>>(columns_[j])[i];
    }
    os << '\n';
  }
}

void Table::write_csv(const std::string& path) const {
  std::ostringstream text;
  write_csv(text);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw FormatError("measure.Table.write_csv: cannot open '" + path + "' for writing");
    f << text.str();
    if (!f.flush()) throw FormatError("measure.Table.write_csv: cannot write '" + path + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw FormatError("measure.Table.write_csv: cannot write '" + path + "'");
  }
}

}  // namespace cuskimage::measure
