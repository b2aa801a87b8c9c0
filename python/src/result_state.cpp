#include "result_state.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "logz/core/error.hpp"

// std::optional<T> as null or T: nlohmann 3.11.2 has no serializer for it.
namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& x) {
    if (x)
      j = *x;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& x) {
    if (j.is_null())
      x.reset();
    else
      x = j.get<T>();
  }
};
}  // namespace nlohmann

namespace logz {

// Every field of each struct, by name (nlohmann's macros, found by argument-dependent lookup).
// A field not listed here would be lost by a pickle silently: the sizes below catch a new one.
#if defined(__GLIBCXX__) && defined(__x86_64__) && !defined(_GLIBCXX_DEBUG)
#define LOGZ_STATE_SIZE(Type, bytes)                         \
  static_assert(sizeof(Type) == (bytes), #Type               \
                " changed: add its new field to the pickle " \
                "state (python/src/result_state.cpp), then its size here")
#else
#define LOGZ_STATE_SIZE(Type, bytes) static_assert(true)
#endif

// Records and values with their order and types (integer or double) as they were.
void to_json(nlohmann::json& j, const Value& v);
void from_json(const nlohmann::json& j, Value& v);

void to_json(nlohmann::json& j, const Record& r) {
  j = nlohmann::json::array();
  for (const auto& [key, value] : r) j.push_back(nlohmann::json::array({key, value}));
}

void from_json(const nlohmann::json& j, Record& r) {
  r = Record();
  for (const auto& field : j) r.set(field.at(0).get<std::string>(), field.at(1).get<Value>());
}

void to_json(nlohmann::json& j, const Value& v) {
  if (v.is_null()) j = nullptr;
  if (v.is_bool()) j = v.as_bool();
  if (v.is_integer()) j = v.as_integer();
  if (v.is_double()) j = v.as_double();
  if (v.is_string()) j = v.as_string();
  if (v.is_array()) {
    j = nlohmann::json::array();
    for (const Value& x : v.as_array()) j.push_back(x);
  }
  if (v.is_record()) j = {{"record", v.as_record()}};  // the one kind held as an object
}

void from_json(const nlohmann::json& j, Value& v) {
  if (j.is_null()) v = Value();
  if (j.is_boolean()) v = Value(j.get<bool>());
  if (j.is_number_integer()) v = Value(j.get<std::int64_t>());
  if (j.is_number_float()) v = Value(j.get<double>());
  if (j.is_string()) v = Value(j.get<std::string>());
  if (j.is_array()) {
    Value::Array a;
    for (const auto& x : j) a.push_back(x.get<Value>());
    v = Value(std::move(a));
  }
  if (j.is_object()) v = Value(j.at("record").get<Record>());
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostics, ess, overlap, iterations, converged, flags, values)
LOGZ_STATE_SIZE(Diagnostics, 72);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Estimate, method, log_z, std_error, se_method, diagnostics)
LOGZ_STATE_SIZE(Estimate, 152);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Reference, log_z, source)
LOGZ_STATE_SIZE(Reference, 40);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Works, direction, works, fractions, mean_energy, acceptance,
                                   kernel_updates)
LOGZ_STATE_SIZE(Works, 112);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LevelEstimates, method, evidence, std_error, bias)
LOGZ_STATE_SIZE(LevelEstimates, 104);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TemperingSummary, initialization, iterations, stages, converged,
                                   tolerance, iteration_deviations, log_z_hat_initial, num_chains,
                                   num_sweeps, ladder, levels, log_c, counts, max_level_deviation,
                                   kernel_acceptance, level_acceptance, mean_energy, exact_evidence)
LOGZ_STATE_SIZE(TemperingSummary, 320);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GroundStateSummary, betas, mean_energy, energy_std_error,
                                   chain_integrals, ground_energy, log_degeneracy, integral,
                                   integral_std_error, trapezoid_integral, quadrature_error, tail,
                                   log_z)
LOGZ_STATE_SIZE(GroundStateSummary, 160);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RepetitionSummary, method, evidence, std_error, mean, sd,
                                   mean_std_error, mean_error, rmse, coverage_2se, failed)
LOGZ_STATE_SIZE(RepetitionSummary, 136);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Repetitions, seeds, methods)
LOGZ_STATE_SIZE(Repetitions, 48);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TestLogLikelihood, mean, std_error, data_std_error,
                                   log_z_std_error, num_examples, flags)
LOGZ_STATE_SIZE(TestLogLikelihood, 64);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TestSetLogLikelihood, value, log_z_source)
LOGZ_STATE_SIZE(TestSetLogLikelihood, 96);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Budget, unit, parts)
LOGZ_STATE_SIZE(Budget, 56);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AdaptivePlan, num_steps, pilot_paths, pilot_steps, reverse_pilot)
LOGZ_STATE_SIZE(AdaptivePlan, 32);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PilotSummary, plan, kernel_updates, thermodynamic_length,
                                   reverse_paths)
LOGZ_STATE_SIZE(PilotSummary, 56);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunResult, model, base_log_z, reference, forward, reverse,
                                   estimates, equilibrium_energy, kernel, tempering, ground_state,
                                   repetitions, test_log_likelihood, budget, pilot, runtime_s,
                                   config, details)
LOGZ_STATE_SIZE(RunResult, 1232);
LOGZ_STATE_SIZE(MbarResult, 136);  // written field by field below

#undef LOGZ_STATE_SIZE

}  // namespace logz

namespace logz::python {

namespace {

nlohmann::json result_state_matrix(const Eigen::MatrixXd& m) {
  return {{"rows", m.rows()},
          {"cols", m.cols()},
          {"data", std::vector<double>(m.data(), m.data() + m.size())}};
}

Eigen::MatrixXd result_state_matrix_from(const nlohmann::json& j) {
  const auto rows = j.at("rows").get<Eigen::Index>(), cols = j.at("cols").get<Eigen::Index>();
  const auto data = j.at("data").get<std::vector<double>>();
  if (rows < 0 || cols < 0 || static_cast<std::size_t>(rows * cols) != data.size())
    throw InputError("a matrix of " + std::to_string(data.size()) + " values, not " +
                     std::to_string(rows) + " x " + std::to_string(cols));
  return Eigen::Map<const Eigen::MatrixXd>(data.data(), rows, cols);
}

std::string result_state_pack(const std::string& format, nlohmann::json value) {
  const nlohmann::json doc = {{"format", format}, {"value", std::move(value)}};
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(doc);
  return {bytes.begin(), bytes.end()};
}

// Reads the state of `format` ("logz.Result 1") with `read`, an InputError naming the class where
// it is not one.
template <class Read>
auto result_state_unpack(const std::string& format, std::string_view state, Read read) {
  const std::string name = format.substr(0, format.find(' '));
  try {
    const nlohmann::json doc = nlohmann::json::from_msgpack(state.begin(), state.end());
    const std::string found = doc.at("format").get<std::string>();
    if (found != format)
      throw InputError(name + ": a pickle of \"" + found + "\", expected \"" + format +
                       "\" (written by another version of logz?)");
    return read(doc.at("value"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": not a pickle of this version of logz (" + e.what() + ")");
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.starts_with(name + ":")) throw;
    throw InputError(name + ": a corrupted pickle (" + what + ")");
  }
}

}  // namespace

std::string estimate_state(const Estimate& e, double base_log_z) {
  return result_state_pack("logz.Estimate 1", {{"estimate", e}, {"base_log_z", base_log_z}});
}

std::pair<Estimate, double> estimate_from_state(std::string_view state) {
  return result_state_unpack("logz.Estimate 1", state, [](const nlohmann::json& j) {
    return std::pair(j.at("estimate").get<Estimate>(), j.at("base_log_z").get<double>());
  });
}

std::string run_result_state(const RunResult& r) { return result_state_pack("logz.Result 1", r); }

RunResult run_result_from_state(std::string_view state) {
  return result_state_unpack("logz.Result 1", state,
                             [](const nlohmann::json& j) { return j.get<RunResult>(); });
}

std::string mbar_result_state(const MbarResult& r, const std::vector<std::string>& flags) {
  return result_state_pack("logz.MbarResult 1", {{"log_z", r.log_z},
                                                 {"std_error", r.std_error},
                                                 {"covariance", result_state_matrix(r.covariance)},
                                                 {"overlap", result_state_matrix(r.overlap)},
                                                 {"disconnected", r.disconnected},
                                                 {"iterations", r.iterations},
                                                 {"converged", r.converged},
                                                 {"poor_overlap", r.poor_overlap},
                                                 {"flags", flags}});
}

std::pair<MbarResult, std::vector<std::string>> mbar_result_from_state(std::string_view state) {
  return result_state_unpack("logz.MbarResult 1", state, [](const nlohmann::json& j) {
    MbarResult r;
    j.at("log_z").get_to(r.log_z);
    j.at("std_error").get_to(r.std_error);
    r.covariance = result_state_matrix_from(j.at("covariance"));
    r.overlap = result_state_matrix_from(j.at("overlap"));
    j.at("disconnected").get_to(r.disconnected);
    j.at("iterations").get_to(r.iterations);
    j.at("converged").get_to(r.converged);
    j.at("poor_overlap").get_to(r.poor_overlap);
    return std::pair(std::move(r), j.at("flags").get<std::vector<std::string>>());
  });
}

}  // namespace logz::python
