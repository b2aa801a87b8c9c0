#include "logz/config/value.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace logz {

namespace {
const Value& null_value() {
  static const Value null;
  return null;
}
}  // namespace

// ---------------------------------------------------------------- Record

Record::Record(std::initializer_list<std::pair<std::string, Value>> fields) {
  for (const auto& [k, v] : fields) set(k, v);
}

Record& Record::set(const std::string& key, Value v) {
  if (Value* old = find(key))
    *old = std::move(v);
  else
    fields_.emplace_back(key, std::move(v));
  return *this;
}

const Value* Record::find(const std::string& key) const {
  for (const auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

Value* Record::find(const std::string& key) {
  for (auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

const Value& Record::operator[](const std::string& key) const {
  const Value* v = find(key);
  return v ? *v : null_value();
}

Value& Record::operator[](const std::string& key) {
  if (Value* v = find(key)) return *v;
  fields_.emplace_back(key, Value());
  return fields_.back().second;
}

bool Record::operator==(const Record& other) const { return fields_ == other.fields_; }

// ---------------------------------------------------------------- Value

double Value::as_double() const {
  if (is_integer()) return static_cast<double>(as_integer());
  return std::get<double>(v_);
}

std::vector<double> Value::as_doubles() const {
  std::vector<double> out;
  for (const Value& x : as_array()) out.push_back(x.as_double());
  return out;
}

const Value& Value::operator[](const std::string& key) const {
  return is_record() ? as_record()[key] : null_value();
}

Value& Value::operator[](const std::string& key) {
  if (is_null()) v_ = Record();
  return as_record()[key];
}

std::size_t Value::size() const {
  if (is_array()) return as_array().size();
  if (is_record()) return as_record().size();
  return 0;
}

std::string Value::describe() const {
  if (is_string()) return "the string \"" + as_string() + "\"";
  if (is_integer()) return fmt::format("the integer {}", as_integer());
  if (is_double()) return fmt::format("the number {}", as_double());
  if (is_bool()) return as_bool() ? "the boolean true" : "the boolean false";
  if (is_array()) return "an array";
  if (is_record()) return "a table";
  return "nothing";
}

}  // namespace logz
