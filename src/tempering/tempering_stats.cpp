#include "logz/tempering/tempering_stats.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "logz/math/log_space_arrays.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

ChainTemperingStats::ChainTemperingStats(std::size_t k)
    : q_shift(k, -std::numeric_limits<double>::infinity()),
      q_scaled(k, 0.0),
      counts(k, 0),
      delta_sum(k, 0.0),
      delta_sq_sum(k, 0.0),
      rb_delta_sum(k, 0.0),
      rb_delta_sq_sum(k, 0.0) {}

void ChainTemperingStats::add(double delta, std::span<const double> log_q, std::size_t level) {
  add(std::span<const double>(&delta, 1), log_q, level);
}

void ChainTemperingStats::add(std::span<const double> deltas, std::span<const double> log_q,
                              std::size_t level) {
  const bool per_level = deltas.size() > 1, with_deltas = !deltas.empty();
  ++num_samples;
  ++counts[level];
  if (with_deltas) {
    const double at_level = deltas[per_level ? level : 0];
    delta_sum[level] += at_level;
    delta_sq_sum[level] += at_level * at_level;
  }
  // The exps of every level in vectorised passes: e^-|log q_k - shift_k| (the rescale factor or
  // the term, whichever applies) and, for the TI sums, q_k itself.
  const std::size_t k_levels = log_q.size();
  thread_local std::vector<double> factor, q;
  factor.resize(k_levels);
  for (std::size_t k = 0; k < k_levels; ++k) factor[k] = -std::abs(log_q[k] - q_shift[k]);
  exp_array(factor, factor);
  if (with_deltas) {
    q.resize(k_levels);
    exp_array(log_q, q);
  }
  for (std::size_t k = 0; k < k_levels; ++k) {
    if (log_q[k] == -std::numeric_limits<double>::infinity()) {
      // q = 0: nothing to add.
    } else if (log_q[k] > q_shift[k]) {  // rescale to the new maximum
      q_scaled[k] = q_scaled[k] * factor[k] + 1.0;
      q_shift[k] = log_q[k];
    } else {
      q_scaled[k] += factor[k];
    }
    if (!with_deltas) continue;
    const double delta = deltas[per_level ? k : 0];
    rb_delta_sum[k] += q[k] * delta;
    rb_delta_sq_sum[k] += q[k] * delta * delta;
  }
}

double ChainTemperingStats::log_q_sum(std::size_t k) const {
  return q_scaled[k] > 0 ? q_shift[k] + std::log(q_scaled[k])
                         : -std::numeric_limits<double>::infinity();
}

std::uint64_t TemperingStats::num_samples() const {
  std::uint64_t n = 0;
  for (const auto& c : chains) n += c.num_samples;
  return n;
}

std::vector<double> TemperingStats::log_c() const {
  std::vector<double> out(num_levels);
  std::vector<double> terms(chains.size());
  const double log_n = std::log(static_cast<double>(num_samples()));
  for (std::size_t k = 0; k < num_levels; ++k) {
    for (std::size_t j = 0; j < chains.size(); ++j) terms[j] = chains[j].log_q_sum(k);
    out[k] = log_sum_exp(terms) - log_n;
  }
  return out;
}

std::vector<std::uint64_t> TemperingStats::counts() const {
  std::vector<std::uint64_t> n(num_levels, 0);
  for (const auto& c : chains)
    for (std::size_t k = 0; k < num_levels; ++k) n[k] += c.counts[k];
  return n;
}

std::vector<double> TemperingStats::mean_energy() const {
  std::vector<double> out(num_levels, std::numeric_limits<double>::quiet_NaN());
  if (!has_integrands) return out;
  for (std::size_t k = 0; k < num_levels; ++k) {
    double sum = 0.0;
    std::uint64_t n = 0;
    for (const ChainTemperingStats& c : chains) {
      sum += c.delta_sum[k];
      n += c.counts[k];
    }
    if (n > 0) out[k] = -sum / static_cast<double>(n);
  }
  return out;
}

namespace {
double ratio_or_nan(std::uint64_t accepted, std::uint64_t attempted) {
  return attempted > 0 ? static_cast<double>(accepted) / static_cast<double>(attempted)
                       : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

double TemperingStats::kernel_acceptance() const {
  return ratio_or_nan(kernel_accepted, kernel_attempted);
}

std::vector<double> TemperingStats::kernel_level_acceptance() const {
  std::vector<double> out;
  for (std::size_t k = 0; k < level_attempted.size(); ++k)
    out.push_back(ratio_or_nan(level_accepted[k], level_attempted[k]));
  return out;
}

void append_chain_stats(std::string& out, const ChainTemperingStats& s) {
  append_bytes<std::uint64_t>(out, std::span(&s.num_samples, 1));
  append_bytes<std::uint64_t>(out, s.counts);
  for (const auto* v : {&s.q_shift, &s.q_scaled, &s.delta_sum, &s.delta_sq_sum, &s.rb_delta_sum,
                        &s.rb_delta_sq_sum})
    append_bytes<double>(out, *v);
}

void read_chain_stats(ByteReader& in, ChainTemperingStats& s) {
  in.read<std::uint64_t>(std::span(&s.num_samples, 1));
  in.read<std::uint64_t>(s.counts);
  for (auto* v : {&s.q_shift, &s.q_scaled, &s.delta_sum, &s.delta_sq_sum, &s.rb_delta_sum,
                  &s.rb_delta_sq_sum})
    in.read<double>(*v);
}

}  // namespace logz
