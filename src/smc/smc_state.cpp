#include "logz/smc/smc_state.hpp"

#include <array>
#include <span>

#include "logz/core/error.hpp"
#include "logz/parallel/bytes.hpp"

namespace logz::detail {

namespace {

constexpr std::uint64_t kStateVersion = 4;  // 2: the waste-free chains; 3: gradients alone;
                                            // 4: the base's top-tenth energy

void append_matrix(std::string& out, const Eigen::MatrixXd& m) {
  const std::array<std::uint64_t, 2> shape{static_cast<std::uint64_t>(m.rows()),
                                           static_cast<std::uint64_t>(m.cols())};
  append_bytes<std::uint64_t>(out, shape);
  append_bytes<double>(out, std::span<const double>(m.data(), static_cast<std::size_t>(m.size())));
}

void read_matrix(ByteReader& in, Eigen::MatrixXd& m) {
  std::array<std::uint64_t, 2> shape{};
  in.read<std::uint64_t>(shape);
  const std::size_t rows = in.count(shape[0], 1), cols = in.count(shape[1], 1);
  if (rows > 0 && cols > in.remaining() / sizeof(double) / rows)
    fail_argument("logz::restore_smc_state", "bytes", "a matrix the bytes hold");
  m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  in.read<double>(std::span<double>(m.data(), static_cast<std::size_t>(m.size())));
}

void append_vector(std::string& out, const Eigen::VectorXd& v) {
  append_counted<double>(out,
                         std::span<const double>(v.data(), static_cast<std::size_t>(v.size())));
}

void read_vector(ByteReader& in, Eigen::VectorXd& v) {
  std::vector<double> values;
  in.read_counted(values);
  v = Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

// A stage's fields, in order, as doubles.
constexpr std::size_t kStageFields = 9;
std::array<double, kStageFields> stage_fields(const SmcStage& s) {
  return {s.temperature,
          s.log_z_increment,
          s.ess,
          s.resampled ? 1.0 : 0.0,
          static_cast<double>(s.moves),
          s.acceptance,
          s.step_size,
          s.jump_ratio,
          s.pareto_k};
}
SmcStage stage_of(std::span<const double> f) {
  SmcStage s;
  s.temperature = f[0], s.log_z_increment = f[1], s.ess = f[2], s.resampled = f[3] != 0.0;
  s.moves = static_cast<int>(f[4]), s.acceptance = f[5], s.step_size = f[6];
  s.jump_ratio = f[7], s.pareto_k = f[8];
  return s;
}

}  // namespace

std::string smc_state_bytes(const SmcRunState& s) {
  std::string out;
  const std::array<std::uint64_t, 11> counts{kStateVersion,
                                             s.num_resamplings,
                                             s.flags.capped,
                                             s.flags.frozen,
                                             s.flags.not_decorrelated,
                                             s.flags.heavy_tails,
                                             s.flags.invalid_energies,
                                             s.flags.rejected_non_finite,
                                             s.energies,
                                             s.gradients,
                                             s.gradients_alone};
  append_bytes<std::uint64_t>(out, counts);
  const std::array<double, 5> numbers{s.step_size, s.t, s.log_z, static_cast<double>(s.chains),
                                      s.base_top_u0};
  append_bytes<double>(out, numbers);
  append_counted<double>(out, s.island_log_z);
  append_matrix(out, s.X);
  for (const auto* v : {&s.e0, &s.e1, &s.log_w}) append_counted<double>(out, *v);
  std::vector<std::uint64_t> eves(s.eves.begin(), s.eves.end());
  append_counted<std::uint64_t>(out, eves);
  std::vector<double> stages;
  for (const SmcStage& st : s.stages)
    for (double f : stage_fields(st)) stages.push_back(f);
  append_counted<double>(out, stages);
  const Whitening& w = s.whitening;
  append_vector(out, w.mean), append_vector(out, w.scale), append_matrix(out, w.factor);
  append_matrix(out, w.covariance), append_vector(out, w.variance);
  return out;
}

bool restore_smc_state(std::string_view bytes, std::size_t n, int d, SmcRunState& s) {
  try {
    ByteReader in(bytes);
    std::array<std::uint64_t, 11> counts{};
    in.read<std::uint64_t>(counts);
    if (counts[0] != kStateVersion) return false;
    s.num_resamplings = counts[1];
    s.flags.capped = counts[2] != 0, s.flags.frozen = counts[3] != 0;
    s.flags.not_decorrelated = counts[4] != 0, s.flags.heavy_tails = counts[5] != 0;
    s.flags.invalid_energies = counts[6], s.flags.rejected_non_finite = counts[7];
    s.energies = counts[8], s.gradients = counts[9], s.gradients_alone = counts[10];
    std::array<double, 5> numbers{};
    in.read<double>(numbers);
    s.step_size = numbers[0], s.t = numbers[1], s.log_z = numbers[2], s.base_top_u0 = numbers[4];
    s.chains = static_cast<std::size_t>(numbers[3]);
    in.read_counted(s.island_log_z);
    read_matrix(in, s.X);
    for (auto* v : {&s.e0, &s.e1, &s.log_w}) in.read_counted(*v);
    std::vector<std::uint64_t> eves;
    in.read_counted(eves);
    std::vector<double> stages;
    in.read_counted(stages);
    Whitening& w = s.whitening;
    read_vector(in, w.mean), read_vector(in, w.scale), read_matrix(in, w.factor);
    read_matrix(in, w.covariance), read_vector(in, w.variance);
    const auto dim = static_cast<Eigen::Index>(d);
    bool fits = in.done() && s.X.rows() == dim && s.X.cols() == static_cast<Eigen::Index>(n) &&
                s.e0.size() == n && s.e1.size() == n && s.log_w.size() == n && eves.size() == n &&
                stages.size() % kStageFields == 0 && w.mean.size() == dim &&
                w.scale.size() == dim &&
                (w.factor.size() == 0 || (w.factor.rows() == dim && w.factor.cols() == dim)) &&
                s.t >= 0.0 && s.t <= 1.0 && numbers[3] >= 0.0 &&
                numbers[3] <= static_cast<double>(n) && (s.chains == 0 || n % s.chains == 0) &&
                (s.island_log_z.empty() || (s.chains > 0 && s.chains % s.island_log_z.size() == 0));
    for (std::uint64_t e : eves) fits = fits && e < n;
    if (!fits) return false;
    s.eves.assign(eves.begin(), eves.end());
    s.stages.clear();
    for (std::size_t k = 0; k < stages.size(); k += kStageFields)
      s.stages.push_back(stage_of(std::span<const double>(stages).subspan(k, kStageFields)));
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace logz::detail
