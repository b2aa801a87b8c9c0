// The values the services read and describe: a config (parsed from TOML, or built by a front
// end such as Python from its own dicts) and the descriptions of a run's model and kernel. A
// small tree of null, booleans, integers, numbers, strings, arrays and records (ordered
// key-value lists). The library only builds and reads these; text formats (TOML in, JSON out)
// are the business of the edges: config.cpp reads TOML, the report writes JSON.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace logz {

class Value;

// Key-value pairs in the order they were set; set() replaces an existing key in place.
class Record {
 public:
  Record() = default;
  Record(std::initializer_list<std::pair<std::string, Value>> fields);

  Record& set(const std::string& key, Value v);
  const Value* find(const std::string& key) const;
  Value* find(const std::string& key);
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  // The value of `key`; a null value when there is none.
  const Value& operator[](const std::string& key) const;
  // The value of `key`, inserted as null when there is none.
  Value& operator[](const std::string& key);

  using Fields = std::vector<std::pair<std::string, Value>>;
  // Defined below Value: clang instantiates these where they stand, and Value must be complete.
  bool empty() const;
  std::size_t size() const;
  Fields::const_iterator begin() const;
  Fields::const_iterator end() const;
  bool operator==(const Record& other) const;

 private:
  Fields fields_;
};

class Value {
 public:
  using Array = std::vector<Value>;

  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(double x) : v_(x) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Record r) : v_(std::move(r)) {}
  template <class T>
  Value(const std::vector<T>& v) : v_(Array(v.begin(), v.end())) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_integer() const { return std::holds_alternative<std::int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_number() const { return is_integer() || is_double(); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }
  bool is_record() const { return std::holds_alternative<Record>(v_); }

  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_integer() const { return std::get<std::int64_t>(v_); }
  // An integer or a number, as a double.
  double as_double() const;
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Record& as_record() const { return std::get<Record>(v_); }
  Record& as_record() { return std::get<Record>(v_); }
  // Every element as a double (the array must hold numbers only).
  std::vector<double> as_doubles() const;

  // Record access: the value of `key` (null if absent or if this is not a record).
  const Value& operator[](const std::string& key) const;
  // Record access that inserts (a null value becomes an empty record first).
  Value& operator[](const std::string& key);
  const Value& operator[](std::size_t i) const { return as_array().at(i); }
  std::size_t size() const;  // elements of an array or fields of a record, else 0

  // "the integer 3", "the string \"x\"", "an array": for error messages.
  std::string describe() const;

  bool operator==(const Value& other) const { return v_ == other.v_; }
  bool operator==(double x) const { return is_number() && as_double() == x; }
  bool operator==(const char* s) const { return is_string() && as_string() == s; }
  bool operator==(const std::string& s) const { return is_string() && as_string() == s; }

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Record> v_;
};

inline bool Record::empty() const { return fields_.empty(); }
inline std::size_t Record::size() const { return fields_.size(); }
inline Record::Fields::const_iterator Record::begin() const { return fields_.begin(); }
inline Record::Fields::const_iterator Record::end() const { return fields_.end(); }

}  // namespace logz
