#include "logz/persistence/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "logz/core/error.hpp"
#include "logz/io/output_file.hpp"
#include "logz/version.hpp"

namespace logz {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kMagic = "logz-checkpoint";
constexpr int kFormat = 1;

std::uint32_t crc32_of(const std::string& s) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes lengths as uInt: feed it in pieces.
  for (std::size_t i = 0; i < s.size(); i += 1u << 30) {
    const std::size_t n = std::min<std::size_t>(s.size() - i, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(s.data() + i), static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(crc);
}

// Doubles as 16 hex digits of their bits each: exact, whatever the value (NaN and inf included).
std::string hex_of(const std::vector<double>& v) {
  std::string out;
  out.reserve(16 * v.size());
  for (double x : v) out += fmt::format("{:016x}", std::bit_cast<std::uint64_t>(x));
  return out;
}

std::string hex_of_bytes(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * bytes.size(), '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4], out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// --- reading, every field checked: one InputError naming the file and the field

struct Reader {
  const std::string& name;

  [[noreturn]] void fail(const std::string& field, const std::string& expectation) const {
    throw InputError(fmt::format("{}: {}: expected {}", name, field, expectation));
  }
  const json& member(const json& object, const std::string& key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(where + key, "a value (the checkpoint is incomplete)");
    return *it;
  }
  std::string string(const json& object, const std::string& key,
                     const std::string& where = "") const {
    const json& v = member(object, key, where);
    if (!v.is_string()) fail(where + key, "a string");
    return v.get<std::string>();
  }
  std::uint64_t count(const json& object, const std::string& key,
                      const std::string& where = "") const {
    const json& v = member(object, key, where);
    if (!v.is_number_unsigned()) fail(where + key, "a whole number >= 0");
    return v.get<std::uint64_t>();
  }
  std::vector<double> doubles(const json& object, const std::string& key,
                              const std::string& where) const {
    const std::string hex = string(object, key, where);
    if (hex.size() % 16 != 0) fail(where + key, "16 hex digits per number");
    std::vector<double> out(hex.size() / 16);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint64_t bits = 0;
      for (std::size_t j = 0; j < 16; ++j) {
        const int d = hex_digit(hex[16 * i + j]);
        if (d < 0) fail(where + key, "lower-case hex digits");
        bits = (bits << 4) | static_cast<std::uint64_t>(d);
      }
      out[i] = std::bit_cast<double>(bits);
    }
    return out;
  }
  bool boolean(const json& object, const std::string& key, const std::string& where) const {
    const json& v = member(object, key, where);
    if (!v.is_boolean()) fail(where + key, "true or false");
    return v.get<bool>();
  }
  double number(const json& object, const std::string& key, const std::string& where) const {
    const json& v = member(object, key, where);
    if (!v.is_string() || v.get<std::string>().size() != 16)
      fail(where + key, "16 hex digits (one number)");
    return doubles(object, key, where)[0];
  }
  std::string bytes(const json& v, const std::string& field) const {
    if (!v.is_string() || v.get<std::string>().size() % 2 != 0)
      fail(field, "a string of hex digit pairs");
    const std::string& hex = v.get_ref<const std::string&>();
    std::string out(hex.size() / 2, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) {
      const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
      if (hi < 0 || lo < 0) fail(field, "lower-case hex digits");
      out[i] = static_cast<char>(hi * 16 + lo);
    }
    return out;
  }
  // Whole numbers below `bound`, each.
  std::vector<std::uint32_t> indices(const json& object, const std::string& key,
                                     const std::string& where, std::uint64_t bound) const {
    std::vector<std::uint32_t> out;
    for (std::uint64_t x : counts(object, key, where)) {
      if (x >= bound) fail(where + key, fmt::format("whole numbers below {}", bound));
      out.push_back(static_cast<std::uint32_t>(x));
    }
    return out;
  }
  std::vector<std::uint64_t> counts(const json& object, const std::string& key,
                                    const std::string& where) const {
    const json& v = member(object, key, where);
    if (!v.is_array()) fail(where + key, "an array of whole numbers");
    std::vector<std::uint64_t> out;
    out.reserve(v.size());
    for (const auto& x : v) {
      if (!x.is_number_unsigned()) fail(where + key, "an array of whole numbers >= 0");
      out.push_back(x.get<std::uint64_t>());
    }
    return out;
  }
};

AnnealPhaseRecord read_phase(const Reader& r, const json& p, std::size_t i) {
  const std::string where = fmt::format("phases[{}].", i);
  if (!p.is_object()) r.fail(fmt::format("phases[{}]", i), "an object");
  AnnealPhaseRecord rec;
  rec.shape.num_paths = r.count(p, "num_paths", where);
  rec.shape.chunk_size = r.count(p, "chunk_size", where);
  rec.shape.num_chunks = r.count(p, "num_chunks", where);
  rec.shape.num_temperatures = r.count(p, "num_temperatures", where);
  rec.chunks_done = r.count(p, "chunks_done", where);
  const auto& s = rec.shape;
  if (s.chunk_size == 0 || s.num_paths == 0 || s.num_chunks != (s.num_paths - 1) / s.chunk_size + 1)
    r.fail(where + "num_chunks", "num_paths in chunks of chunk_size");
  if (rec.chunks_done > s.num_chunks) r.fail(where + "chunks_done", "at most num_chunks");
  rec.works = r.doubles(p, "works", where);
  const std::size_t paths_done =
      rec.chunks_done == s.num_chunks ? s.num_paths : rec.chunks_done * s.chunk_size;
  if (rec.works.size() != paths_done)
    r.fail(where + "works", fmt::format("{} works, those of the chunks done", paths_done));
  rec.energy_sum = r.doubles(p, "energy_sum", where);
  rec.attempted = r.counts(p, "attempted", where);
  rec.accepted = r.counts(p, "accepted", where);
  if (rec.energy_sum.size() != s.num_temperatures || rec.attempted.size() != s.num_temperatures ||
      rec.accepted.size() != s.num_temperatures)
    r.fail(where + "energy_sum", "one sum per temperature in energy_sum, attempted and accepted");
  for (std::size_t t = 0; t < s.num_temperatures; ++t)
    if (rec.accepted[t] > rec.attempted[t])
      r.fail(fmt::format("{}accepted[{}]", where, t),
             fmt::format("at most the {} moves attempted", rec.attempted[t]));
  return rec;
}

// --- tempering records (tempering/tempering_journal.hpp)

constexpr const char* kStageNames[] = {"initialization", "final_run", "complete"};

json chain_stats_json(const ChainTemperingStats& c) {
  return {{"num_samples", c.num_samples},           {"q_shift", hex_of(c.q_shift)},
          {"q_scaled", hex_of(c.q_scaled)},         {"counts", c.counts},
          {"delta_sum", hex_of(c.delta_sum)},       {"delta_sq_sum", hex_of(c.delta_sq_sum)},
          {"rb_delta_sum", hex_of(c.rb_delta_sum)}, {"rb_delta_sq_sum", hex_of(c.rb_delta_sq_sum)}};
}

json chains_json(const TemperingChains& c) {
  json chunk_states = json::array();
  for (const auto& b : c.chunk_states) chunk_states.push_back(hex_of_bytes(b));
  return {{"next_step", c.next_step}, {"level", c.level}, {"chunk_states", chunk_states}};
}

json tempering_json(const TemperingRecord& t) {
  json chains = json::array(), chunks = json::array();
  for (const auto& c : t.final_run.stats.chains) chains.push_back(chain_stats_json(c));
  for (const auto& c : t.final_run.chunks) {
    json chunk = {{"delta", hex_of(c.delta)},
                  {"energies", hex_of(c.energies)},
                  {"level", c.level},
                  {"chain", c.chain},
                  {"accepted", c.moves.accepted},
                  {"attempted", c.moves.attempted}};
    if (c.moves.by_level) {  // absent: counts not split by level (or a file from before the keys)
      chunk["level_accepted"] = c.moves.level_accepted;
      chunk["level_attempted"] = c.moves.level_attempted;
    }
    chunks.push_back(std::move(chunk));
  }
  const auto& w = t.wang_landau;
  return {{"num_chains", t.shape.num_chains},
          {"chunk_size", t.shape.chunk_size},
          {"num_levels", t.shape.num_levels},
          {"num_sweeps", t.shape.num_sweeps},
          {"initialization", t.shape.initialization},
          {"stage", kStageNames[static_cast<int>(t.stage)]},
          {"initial",
           {{"log_z_hat", hex_of(t.initial.log_z_hat)},
            {"iterations", t.initial.iterations},
            {"converged", t.initial.converged},
            {"deviations", hex_of(t.initial.deviations)}}},
          {"wang_landau",
           {{"log_z_hat", hex_of(w.log_z_hat)},
            {"histogram", hex_of(w.histogram)},
            {"gamma", hex_of(std::vector<double>{w.gamma})},
            {"sweeps", w.sweeps},
            {"stages", w.stages}}},
          {"chains", chains_json(t.chains)},
          {"final_run",
           {{"sweeps", t.final_run.sweeps},
            {"sweeps_done", t.final_run.sweeps_done},
            {"first_step", t.final_run.first_step},
            {"linear_in_t", t.final_run.stats.linear_in_t},
            {"integrands", t.final_run.integrands},
            {"chains", chains},
            {"chunks", chunks}}}};
}

std::vector<double> level_doubles(const Reader& r, const json& o, const std::string& key,
                                  const std::string& where, std::size_t k) {
  std::vector<double> v = r.doubles(o, key, where);
  if (v.size() != k) r.fail(where + key, fmt::format("{} numbers, one per level", k));
  return v;
}

const json& object_member(const Reader& r, const json& o, const std::string& key,
                          const std::string& where) {
  const json& v = r.member(o, key, where);
  if (!v.is_object()) r.fail(where + key, "an object");
  return v;
}

const json& array_member(const Reader& r, const json& o, const std::string& key,
                         const std::string& where) {
  const json& v = r.member(o, key, where);
  if (!v.is_array()) r.fail(where + key, "an array");
  return v;
}

ChainTemperingStats read_chain_stats(const Reader& r, const json& c, const std::string& where,
                                     std::size_t k) {
  if (!c.is_object()) r.fail(where, "an object");
  ChainTemperingStats s;
  s.num_samples = r.count(c, "num_samples", where + ".");
  const std::string w = where + ".";
  s.q_shift = level_doubles(r, c, "q_shift", w, k);
  s.q_scaled = level_doubles(r, c, "q_scaled", w, k);
  s.counts = r.counts(c, "counts", w);
  if (s.counts.size() != k) r.fail(w + "counts", fmt::format("{} counts, one per level", k));
  s.delta_sum = level_doubles(r, c, "delta_sum", w, k);
  s.delta_sq_sum = level_doubles(r, c, "delta_sq_sum", w, k);
  s.rb_delta_sum = level_doubles(r, c, "rb_delta_sum", w, k);
  s.rb_delta_sq_sum = level_doubles(r, c, "rb_delta_sq_sum", w, k);
  return s;
}

// Chains over k levels (their states' lengths are checked when they are restored).
TemperingChains read_chains(const Reader& r, const json& chains, const std::string& wc,
                            std::size_t k) {
  TemperingChains out;
  const std::uint64_t next_step = r.count(chains, "next_step", wc);
  if (next_step > std::numeric_limits<std::uint32_t>::max())
    r.fail(wc + "next_step", "a 32-bit step");
  out.next_step = static_cast<std::uint32_t>(next_step);
  out.level = r.indices(chains, "level", wc, k);
  const json& states = array_member(r, chains, "chunk_states", wc);
  for (std::size_t j = 0; j < states.size(); ++j)
    out.chunk_states.push_back(r.bytes(states[j], fmt::format("{}chunk_states[{}]", wc, j)));
  return out;
}

TemperingRecord read_tempering(const Reader& r, const json& t, std::size_t i) {
  const std::string where = fmt::format("tempering_runs[{}].", i);
  if (!t.is_object()) r.fail(fmt::format("tempering_runs[{}]", i), "an object");
  TemperingRecord rec;
  auto& shape = rec.shape;
  shape.num_chains = r.count(t, "num_chains", where);
  shape.chunk_size = r.count(t, "chunk_size", where);
  shape.num_levels = r.count(t, "num_levels", where);
  shape.num_sweeps = r.count(t, "num_sweeps", where);
  shape.initialization = r.string(t, "initialization", where);
  if (shape.num_chains == 0 || shape.chunk_size == 0 || shape.num_levels < 2 ||
      shape.num_levels > std::numeric_limits<std::uint32_t>::max())
    r.fail(where + "num_chains",
           "at least one chain in chunks of at least one, over 2 or more levels");
  const std::size_t k = shape.num_levels;
  const std::size_t num_chunks = (shape.num_chains - 1) / shape.chunk_size + 1;
  const std::string stage = r.string(t, "stage", where);
  const auto* found = std::find(std::begin(kStageNames), std::end(kStageNames), stage);
  if (found == std::end(kStageNames))
    r.fail(where + "stage", "\"initialization\", \"final_run\" or \"complete\"");
  rec.stage = static_cast<TemperingStage>(found - std::begin(kStageNames));

  const std::string wi = where + "initial.";
  const json& initial = object_member(r, t, "initial", where);
  rec.initial.log_z_hat = level_doubles(r, initial, "log_z_hat", wi, k);
  const std::uint64_t iterations = r.count(initial, "iterations", wi);
  if (iterations > 1u << 30) r.fail(wi + "iterations", "at most 2^30");
  rec.initial.iterations = static_cast<int>(iterations);
  rec.initial.converged = r.boolean(initial, "converged", wi);
  rec.initial.deviations = r.doubles(initial, "deviations", wi);

  const std::string ww = where + "wang_landau.";
  const json& wl = object_member(r, t, "wang_landau", where);
  rec.wang_landau.log_z_hat = level_doubles(r, wl, "log_z_hat", ww, k);
  rec.wang_landau.histogram = level_doubles(r, wl, "histogram", ww, k);
  rec.wang_landau.gamma = r.number(wl, "gamma", ww);
  rec.wang_landau.sweeps = r.count(wl, "sweeps", ww);
  const std::uint64_t stages = r.count(wl, "stages", ww);
  if (stages > 1u << 30) r.fail(ww + "stages", "at most 2^30");
  rec.wang_landau.stages = static_cast<int>(stages);

  const std::string wc = where + "chains.";
  rec.chains = read_chains(r, object_member(r, t, "chains", where), wc, k);
  if (rec.stage != TemperingStage::complete &&
      (rec.chains.level.size() != shape.num_chains || rec.chains.chunk_states.size() != num_chunks))
    r.fail(wc + "level", fmt::format("one level per chain ({}) and one state per chunk ({})",
                                     shape.num_chains, num_chunks));

  const std::string wf = where + "final_run.";
  const json& f = object_member(r, t, "final_run", where);
  TemperingRun& run = rec.final_run;
  run.sweeps = r.count(f, "sweeps", wf);
  run.sweeps_done = r.count(f, "sweeps_done", wf);
  const std::uint64_t first_step = r.count(f, "first_step", wf);
  if (first_step > std::numeric_limits<std::uint32_t>::max())
    r.fail(wf + "first_step", "a 32-bit step");
  run.first_step = static_cast<std::uint32_t>(first_step);
  run.stats.num_levels = k;
  run.stats.linear_in_t = r.boolean(f, "linear_in_t", wf);
  run.integrands =
      !f.contains("integrands") || r.boolean(f, "integrands", wf);  // absent: from before the key
  run.stats.has_integrands = run.integrands || run.stats.linear_in_t;
  const json& stats = array_member(r, f, "chains", wf);
  for (std::size_t j = 0; j < stats.size(); ++j)
    run.stats.chains.push_back(
        read_chain_stats(r, stats[j], fmt::format("{}chains[{}]", wf, j), k));
  const json& chunks = array_member(r, f, "chunks", wf);
  for (std::size_t j = 0; j < chunks.size(); ++j) {
    const std::string wj = fmt::format("{}chunks[{}].", wf, j);
    if (!chunks[j].is_object()) r.fail(wj, "an object");
    TemperingChunkSamples c;
    c.delta = r.doubles(chunks[j], "delta", wj);
    c.energies = r.doubles(chunks[j], "energies", wj);
    c.level = r.indices(chunks[j], "level", wj, k);
    c.chain = r.indices(chunks[j], "chain", wj, shape.num_chains);
    c.moves.accepted = r.count(chunks[j], "accepted", wj);
    c.moves.attempted = r.count(chunks[j], "attempted", wj);
    if (c.moves.accepted > c.moves.attempted)
      r.fail(wj + "accepted", fmt::format("at most the {} moves attempted", c.moves.attempted));
    c.moves.by_level = chunks[j].contains("level_attempted");
    if (c.moves.by_level) {
      c.moves.level_attempted = r.counts(chunks[j], "level_attempted", wj);
      c.moves.level_accepted = r.counts(chunks[j], "level_accepted", wj);
      bool valid = c.moves.level_attempted.size() <= k &&
                   c.moves.level_accepted.size() == c.moves.level_attempted.size();
      for (std::size_t l = 0; valid && l < c.moves.level_accepted.size(); ++l)
        valid = c.moves.level_accepted[l] <= c.moves.level_attempted[l];
      if (!valid)
        r.fail(wj + "level_accepted",
               fmt::format("at most {} counts, as many as level_attempted, none above its attempts",
                           k));
    }
    if (c.level.size() != c.delta.size() || c.chain.size() != c.delta.size() ||
        !(c.energies.empty() || c.energies.size() == k * c.delta.size()))
      r.fail(
          wj + "delta",
          "one delta, level and chain per sample (and, if any, one energy per level and sample)");
    run.chunks.push_back(std::move(c));
  }
  if (rec.stage != TemperingStage::initialization &&
      (run.sweeps != shape.num_sweeps || run.sweeps_done > run.sweeps ||
       run.stats.chains.size() != shape.num_chains || run.chunks.size() != num_chunks ||
       (rec.stage == TemperingStage::complete && run.sweeps_done != run.sweeps)))
    r.fail(
        wf + "sweeps",
        fmt::format("num_sweeps ({}) sweeps, at most that many done (all once complete), with one "
                    "entry per chain and per chunk",
                    shape.num_sweeps));
  return rec;
}

// --- parallel tempering records (tempering/pt_journal.hpp)

json pt_json(const PtRecord& t) {
  json rounds = json::array(), chunks = json::array();
  for (const PtRound& r : t.rounds)
    rounds.push_back({{"scans", r.scans},
                      {"schedule", hex_of(r.schedule)},
                      {"rejection", hex_of(r.rejection)},
                      {"global_barrier", hex_of(std::vector<double>{r.global_barrier})},
                      {"round_trips", r.round_trips}});
  for (const std::string& c : t.chunks) chunks.push_back(hex_of_bytes(c));
  return {{"num_chains", t.shape.num_chains}, {"chunk_size", t.shape.chunk_size},
          {"rounds", t.shape.rounds},         {"round", t.round},
          {"scans_done", t.scans_done},       {"schedule", hex_of(t.schedule)},
          {"rounds_done", std::move(rounds)}, {"updates", t.updates},
          {"non_finite", t.non_finite},       {"capped_by_memory", t.capped_by_memory},
          {"chunks", std::move(chunks)}};
}

// A ladder of at least two fractions from 0 to 1, increasing.
std::vector<double> read_ladder(const Reader& r, const json& o, const std::string& key,
                                const std::string& where) {
  std::vector<double> v = r.doubles(o, key, where);
  bool valid = v.size() >= 2 && v.size() <= (1u << 16) && v.front() == 0.0 && v.back() == 1.0;
  for (std::size_t k = 1; valid && k < v.size(); ++k) valid = v[k - 1] < v[k];
  if (!valid) r.fail(where + key, "2 to 65536 increasing fractions from 0 to 1");
  return v;
}

PtRecord read_pt(const Reader& r, const json& t, std::size_t i) {
  const std::string where = fmt::format("pt_runs[{}].", i);
  if (!t.is_object()) r.fail(fmt::format("pt_runs[{}]", i), "an object");
  PtRecord rec;
  rec.shape.num_chains = r.count(t, "num_chains", where);
  rec.shape.chunk_size = r.count(t, "chunk_size", where);
  rec.shape.rounds = r.count(t, "rounds", where);
  if (rec.shape.num_chains == 0 || rec.shape.chunk_size == 0 || rec.shape.rounds == 0 ||
      rec.shape.rounds > 24)
    r.fail(where + "num_chains", "at least one chain in chunks of at least one, 1 to 24 rounds");
  rec.round = r.count(t, "round", where);
  rec.scans_done = r.count(t, "scans_done", where);
  if (rec.round < 1 || rec.round > rec.shape.rounds || rec.scans_done > (1u << rec.round))
    r.fail(where + "round", "a round from 1 to rounds, with at most its 2^round scans done");
  rec.schedule = read_ladder(r, t, "schedule", where);
  const json& rounds = array_member(r, t, "rounds_done", where);
  if (rounds.size() + 1 != rec.round)
    r.fail(where + "rounds_done",
           fmt::format("the {} rounds before round {}", rec.round - 1, rec.round));
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    const std::string wr = fmt::format("{}rounds_done[{}].", where, j);
    if (!rounds[j].is_object()) r.fail(wr, "an object");
    PtRound d;
    d.scans = r.count(rounds[j], "scans", wr);
    if (d.scans != std::size_t{2} << j) r.fail(wr + "scans", fmt::format("{}", 2u << j));
    d.schedule = read_ladder(r, rounds[j], "schedule", wr);
    d.rejection = r.doubles(rounds[j], "rejection", wr);
    if (d.rejection.size() + 1 != d.schedule.size())
      r.fail(wr + "rejection", "one rejection per pair of the schedule");
    d.global_barrier = r.number(rounds[j], "global_barrier", wr);
    d.round_trips = r.count(rounds[j], "round_trips", wr);
    rec.rounds.push_back(std::move(d));
  }
  rec.updates = r.count(t, "updates", where);
  rec.non_finite = r.count(t, "non_finite", where);
  rec.capped_by_memory = r.boolean(t, "capped_by_memory", where);
  const json& chunks = array_member(r, t, "chunks", where);
  if (chunks.size() != (rec.shape.num_chains - 1) / rec.shape.chunk_size + 1)
    r.fail(where + "chunks", "one entry per chunk of chains");
  for (std::size_t j = 0; j < chunks.size(); ++j)
    rec.chunks.push_back(r.bytes(chunks[j], fmt::format("{}chunks[{}]", where, j)));
  return rec;
}

// --- SMC records (smc/smc_journal.hpp)

json smc_json(const SmcRecord& t) {
  return {{"num_particles", t.shape.num_particles},
          {"dim", t.shape.dim},
          {"chunk_size", t.shape.chunk_size},
          {"temperatures", t.temperatures},
          {"temperature", hex_of(std::vector<double>{t.temperature})},
          {"state", hex_of_bytes(t.state)}};
}

SmcRecord read_smc(const Reader& r, const json& t, std::size_t i) {
  const std::string where = fmt::format("smc_runs[{}].", i);
  if (!t.is_object()) r.fail(fmt::format("smc_runs[{}]", i), "an object");
  SmcRecord rec;
  rec.shape.num_particles = r.count(t, "num_particles", where);
  const std::uint64_t dim = r.count(t, "dim", where);
  rec.shape.chunk_size = r.count(t, "chunk_size", where);
  if (rec.shape.num_particles < 2 || dim > (1u << 30) || rec.shape.chunk_size < 1)
    r.fail(where + "num_particles",
           "at least 2 particles of dimension 0 to 2^30 in chunks of at least 1");
  rec.shape.dim = static_cast<int>(dim);
  rec.temperatures = r.count(t, "temperatures", where);
  rec.temperature = r.number(t, "temperature", where);
  if (!(rec.temperature >= 0.0 && rec.temperature <= 1.0))
    r.fail(where + "temperature", "a temperature in [0, 1]");
  rec.state = r.bytes(r.member(t, "state", where), where + "state");
  return rec;
}

// --- training records (`logz train rbm`)

json matrix_json(const Eigen::MatrixXd& m) {
  return {{"rows", m.rows()},
          {"cols", m.cols()},
          {"data", hex_of(std::vector<double>(m.data(), m.data() + m.size()))}};
}

Eigen::MatrixXd read_matrix(const Reader& r, const json& o, const std::string& key,
                            const std::string& where) {
  const std::string w = where + key + ".";
  const json& m = object_member(r, o, key, where);
  const std::uint64_t rows = r.count(m, "rows", w), cols = r.count(m, "cols", w);
  const std::vector<double> data = r.doubles(m, "data", w);
  if (rows > (1u << 30) || cols > (1u << 30) || rows * cols != data.size())
    r.fail(w + "data", "rows x cols numbers");
  return Eigen::Map<const Eigen::MatrixXd>(data.data(), static_cast<Eigen::Index>(rows),
                                           static_cast<Eigen::Index>(cols));
}

Eigen::VectorXd read_vector(const Reader& r, const json& o, const std::string& key,
                            const std::string& where) {
  const Eigen::MatrixXd m = read_matrix(r, o, key, where);
  if (m.cols() != 1) r.fail(where + key, "one column");
  return m.col(0);
}

json parameters_json(const RbmParameters& p) {
  return {{"W", matrix_json(p.W)}, {"a", matrix_json(p.a)}, {"b", matrix_json(p.b)}};
}

RbmParameters read_parameters(const Reader& r, const json& o, const std::string& key,
                              const std::string& where) {
  const json& p = object_member(r, o, key, where);
  const std::string w = where + key + ".";
  RbmParameters out;
  out.W = read_matrix(r, p, "W", w);
  out.a = read_vector(r, p, "a", w);
  out.b = read_vector(r, p, "b", w);
  if (out.a.size() != out.W.rows() || out.b.size() != out.W.cols())
    r.fail(w + "W", "a of W's rows and b of its columns");
  return out;
}

json training_json(const TrainingRecord& t) {
  const RbmTrainerState& s = t.trainer;
  json history = json::array();
  for (const auto& e : s.history)
    history.push_back({{"epoch", e.epoch},
                       {"values", hex_of({e.reconstruction_error, e.validation_reconstruction_error,
                                          e.free_energy_gap, e.seconds})}});
  json out = {{"epochs_done", s.epochs_done},
              {"updates", s.updates},
              {"parameters", parameters_json(s.rbm)},
              {"dW", matrix_json(s.dW)},
              {"da", matrix_json(s.da)},
              {"db", matrix_json(s.db)},
              {"persistent", matrix_json(s.persistent)},
              {"history", history},
              {"history_csv", t.history_csv},
              {"monitor", nullptr}};
  if (const auto& m = t.monitor) {
    json tracker = nullptr;
    if (const auto& k = m->tracker)
      tracker = {{"parameters", parameters_json(k->parameters)},
                 {"chains", chains_json(k->chains)},
                 {"log_z_hat", hex_of(k->log_z_hat)},
                 {"numbers", hex_of({k->deviation, k->seconds})},
                 {"initial_iterations", k->initial_iterations},
                 {"steps", k->steps}};
    out["monitor"] = {
        {"tracker", tracker},
        {"csv", m->csv},
        {"seconds", hex_of({m->training_seconds, m->checks_seconds, m->last_tracker_seconds})},
        {"updates", m->updates}};
  }
  return out;
}

TrainingRecord read_training(const Reader& r, const json& t) {
  const std::string w = "training.";
  if (!t.is_object()) r.fail("training", "an object or null");
  TrainingRecord rec;
  RbmTrainerState& s = rec.trainer;
  const std::uint64_t epochs = r.count(t, "epochs_done", w), updates = r.count(t, "updates", w);
  if (epochs > (1u << 30) || updates > std::numeric_limits<std::uint32_t>::max())
    r.fail(w + "epochs_done", "at most 2^30 epochs and 2^32 updates");
  s.epochs_done = static_cast<int>(epochs);
  s.updates = static_cast<std::uint32_t>(updates);
  s.rbm = read_parameters(r, t, "parameters", w);
  s.dW = read_matrix(r, t, "dW", w);
  s.da = read_vector(r, t, "da", w);
  s.db = read_vector(r, t, "db", w);
  s.persistent = read_matrix(r, t, "persistent", w);
  const json& history = array_member(r, t, "history", w);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const std::string wh = fmt::format("{}history[{}].", w, i);
    if (!history[i].is_object()) r.fail(wh, "an object");
    const std::vector<double> v = r.doubles(history[i], "values", wh);
    if (v.size() != 4) r.fail(wh + "values", "4 numbers");
    const std::uint64_t epoch = r.count(history[i], "epoch", wh);
    if (epoch > (1u << 30)) r.fail(wh + "epoch", "at most 2^30");
    RbmEpochStats e;
    e.epoch = static_cast<int>(epoch);
    e.reconstruction_error = v[0], e.validation_reconstruction_error = v[1],
    e.free_energy_gap = v[2], e.seconds = v[3];
    s.history.push_back(e);
  }
  rec.history_csv = r.string(t, "history_csv", w);
  const json& monitor = r.member(t, "monitor", w);
  if (!monitor.is_null()) {
    const std::string wm = w + "monitor.";
    if (!monitor.is_object()) r.fail(wm, "an object or null");
    RbmMonitorState m;
    m.csv = r.string(monitor, "csv", wm);
    const std::vector<double> seconds = r.doubles(monitor, "seconds", wm);
    if (seconds.size() != 3) r.fail(wm + "seconds", "3 numbers");
    m.training_seconds = seconds[0], m.checks_seconds = seconds[1],
    m.last_tracker_seconds = seconds[2];
    m.updates = r.count(monitor, "updates", wm);
    const json& tracker = r.member(monitor, "tracker", wm);
    if (!tracker.is_null()) {
      const std::string wt = wm + "tracker.";
      if (!tracker.is_object()) r.fail(wt, "an object or null");
      RbmLogZTrackerState k;
      k.parameters = read_parameters(r, tracker, "parameters", wt);
      k.log_z_hat = r.doubles(tracker, "log_z_hat", wt);
      if (k.log_z_hat.size() < 2) r.fail(wt + "log_z_hat", "one number per level, 2 or more");
      k.chains = read_chains(r, object_member(r, tracker, "chains", wt), wt + "chains.",
                             k.log_z_hat.size());
      const std::vector<double> numbers = r.doubles(tracker, "numbers", wt);
      if (numbers.size() != 2) r.fail(wt + "numbers", "2 numbers");
      k.deviation = numbers[0], k.seconds = numbers[1];
      const std::uint64_t iterations = r.count(tracker, "initial_iterations", wt);
      if (iterations > (1u << 30)) r.fail(wt + "initial_iterations", "at most 2^30");
      k.initial_iterations = static_cast<int>(iterations);
      k.steps = r.count(tracker, "steps", wt);
      m.tracker = std::move(k);
    }
    rec.monitor = std::move(m);
  }
  return rec;
}

json files_json(const std::vector<FileFingerprint>& files) {
  json out = json::array();
  for (const auto& f : files)
    out.push_back({{"path", f.path}, {"size", f.size}, {"sha256", f.sha256}});
  return out;
}

std::vector<FileFingerprint> read_files(const Reader& r, const json& files) {
  if (!files.is_array()) r.fail("files_read", "an array");
  std::vector<FileFingerprint> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = fmt::format("files_read[{}].", i);
    if (!files[i].is_object()) r.fail(where, "an object");
    FileFingerprint f{r.string(files[i], "path", where), r.count(files[i], "size", where),
                      r.string(files[i], "sha256", where)};
    if (f.sha256.size() != 64 ||
        !std::all_of(f.sha256.begin(), f.sha256.end(), [](char c) { return hex_digit(c) >= 0; }))
      r.fail(where + "sha256", "64 lower-case hex digits");
    out.push_back(std::move(f));
  }
  return out;
}

std::uint64_t fnv1a(std::uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return (h ^ 0xffu) * 1099511628211ull;  // a separator no text byte equals after the xor
}

// A phase with no chunk done.
AnnealPhaseRecord not_begun(const AnnealPhaseShape& shape) {
  return {.shape = shape,
          .energy_sum = std::vector<double>(shape.num_temperatures, 0.0),
          .attempted = std::vector<std::uint64_t>(shape.num_temperatures, 0),
          .accepted = std::vector<std::uint64_t>(shape.num_temperatures, 0)};
}

}  // namespace

// ---------------------------------------------------------------- CheckpointedConfig

CheckpointedConfig CheckpointedConfig::from_file(const std::string& path,
                                                 std::vector<std::string> sets,
                                                 std::optional<std::uint64_t> seed,
                                                 std::optional<int> threads) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path))
    throw InputError(fmt::format("{}: expected a readable config file", path));
  std::ostringstream s;
  s << in.rdbuf();
  return {s.str(), fs::absolute(path).lexically_normal().string(), std::move(sets), seed, threads};
}

Config CheckpointedConfig::load() const {
  Config c = Config::from_toml(text, source);
  for (const auto& s : sets) c.set(s);
  if (seed) c.set("run", "seed", *seed);
  if (threads) c.set("run", "threads", *threads);
  return c;
}

std::string CheckpointedConfig::hash() const {
  std::uint64_t h = 14695981039346656037ull;
  h = fnv1a(h, text);
  h = fnv1a(h, source);
  for (const auto& s : sets) h = fnv1a(h, s);
  h = fnv1a(h, seed ? std::to_string(*seed) : "-");
  h = fnv1a(h, command);
  return fmt::format("{:016x}", h);
}

// ---------------------------------------------------------------- the file

std::string checkpoint_text(const CheckpointContents& contents) {
  const CheckpointedConfig& config = contents.config;
  json phase_list = json::array(), tempering_list = json::array(), pt_list = json::array(),
       smc_list = json::array();
  for (const auto& t : contents.temperings) tempering_list.push_back(tempering_json(t));
  for (const auto& t : contents.pt_runs) pt_list.push_back(pt_json(t));
  for (const auto& t : contents.smc_runs) smc_list.push_back(smc_json(t));
  for (const auto& p : contents.phases)
    phase_list.push_back({{"num_paths", p.shape.num_paths},
                          {"chunk_size", p.shape.chunk_size},
                          {"num_chunks", p.shape.num_chunks},
                          {"num_temperatures", p.shape.num_temperatures},
                          {"chunks_done", p.chunks_done},
                          {"works", hex_of(p.works)},
                          {"energy_sum", hex_of(p.energy_sum)},
                          {"attempted", p.attempted},
                          {"accepted", p.accepted}});
  const json body = {
      {"logz_version", version()},
      {"config",
       {{"text", config.text},
        {"source", config.source},
        {"sets", config.sets},
        {"seed", config.seed ? json(*config.seed) : json(nullptr)},
        {"threads", config.threads ? json(*config.threads) : json(nullptr)},
        {"command", config.command}}},
      {"config_hash", config.hash()},
      {"phases", std::move(phase_list)},
      {"tempering_runs", std::move(tempering_list)},
      {"pt_runs", std::move(pt_list)},
      {"smc_runs", std::move(smc_list)},
      {"training", contents.training ? training_json(*contents.training) : json(nullptr)},
      {"files_read", files_json(contents.files)}};
  std::string text;
  try {
    text = body.dump(1);
  } catch (const json::type_error&) {
    throw InputError(
        fmt::format("{}: the config and its --set overrides: expected UTF-8 text", config.source));
  }
  return fmt::format("{} {} {:08x} {}\n", kMagic, kFormat, crc32_of(text), text.size()) + text;
}

CheckpointContents parse_checkpoint(const std::string& text, const std::string& name) {
  const Reader r{name};
  const auto eol = text.find('\n');
  const std::string first = text.substr(0, std::min<std::size_t>(eol, 200));
  std::istringstream head(first);
  std::string magic, crc_hex, extra;
  int format = 0;
  std::size_t bytes = 0;
  if (eol == std::string::npos || !(head >> magic >> format >> crc_hex >> bytes) ||
      magic != kMagic || (head >> extra) || crc_hex.size() != 8)
    throw InputError(
        fmt::format("{}: expected a logz checkpoint (a first line \"{} {} CRC32 BYTES\")", name,
                    kMagic, kFormat));
  if (format != kFormat)
    throw InputError(
        fmt::format("{}: checkpoint format {}: expected format {}", name, format, kFormat));
  const std::string body = text.substr(eol + 1);
  if (body.size() != bytes)
    throw InputError(
        fmt::format("{}: expected {} bytes after the first line, found {} (a truncated or extended "
                    "checkpoint)",
                    name, bytes, body.size()));
  if (fmt::format("{:08x}", crc32_of(body)) != crc_hex)
    throw InputError(
        fmt::format("{}: expected CRC-32 {} of the checkpoint's contents (the file is corrupted)",
                    name, crc_hex));
  json doc;
  try {
    doc = json::parse(body, nullptr, true, false);
  } catch (const json::exception&) {
    throw InputError(fmt::format("{}: expected the checkpoint's JSON after its first line", name));
  }
  if (!doc.is_object()) r.fail("contents", "a JSON object");
  const std::string written_by = r.string(doc, "logz_version");
  if (written_by != version())
    throw InputError(fmt::format(
        "{}: written by logz {}: expected one of this logz, {} (resume with the logz that "
        "wrote it)",
        name, written_by, version()));
  CheckpointContents out;
  const json& c = r.member(doc, "config", "");
  if (!c.is_object()) r.fail("config", "an object");
  out.config.text = r.string(c, "text", "config.");
  out.config.source = r.string(c, "source", "config.");
  const json& sets = r.member(c, "sets", "config.");
  if (!sets.is_array()) r.fail("config.sets", "an array of strings");
  for (const auto& s : sets) {
    if (!s.is_string()) r.fail("config.sets", "an array of strings");
    out.config.sets.push_back(s.get<std::string>());
  }
  if (const json& seed = r.member(c, "seed", "config."); !seed.is_null())
    out.config.seed = r.count(c, "seed", "config.");
  if (const json& threads = r.member(c, "threads", "config."); !threads.is_null()) {
    if (!threads.is_number_unsigned() || threads.get<std::uint64_t>() > 4096)
      r.fail("config.threads", "null or a whole number from 0 to 4096");
    out.config.threads = static_cast<int>(threads.get<std::uint64_t>());
  }
  out.config.command = r.string(c, "command", "config.");
  if (r.string(doc, "config_hash") != out.config.hash())
    throw InputError(
        fmt::format("{}: config_hash: expected the hash of the checkpoint's config, {} (the config "
                    "was edited)",
                    name, out.config.hash()));
  const json& phases = r.member(doc, "phases", "");
  if (!phases.is_array()) r.fail("phases", "an array");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    out.phases.push_back(read_phase(r, phases[i], i));
    // Every phase draws its own streams: two with the same works are one phase copied.
    for (std::size_t j = 0; j < i; ++j)
      if (!out.phases[i].works.empty() && out.phases[i].works == out.phases[j].works)
        r.fail(fmt::format("phases[{}].works", i),
               fmt::format("works of their own, not a copy of phases[{}]'s", j));
  }
  const json& temperings = array_member(r, doc, "tempering_runs", "");
  for (std::size_t i = 0; i < temperings.size(); ++i)
    out.temperings.push_back(read_tempering(r, temperings[i], i));
  if (const auto pt = doc.find("pt_runs"); pt != doc.end()) {  // absent: from before the key
    if (!pt->is_array()) r.fail("pt_runs", "an array");
    for (std::size_t i = 0; i < pt->size(); ++i) out.pt_runs.push_back(read_pt(r, (*pt)[i], i));
  }
  if (const auto smc = doc.find("smc_runs"); smc != doc.end()) {  // absent: from before the key
    if (!smc->is_array()) r.fail("smc_runs", "an array");
    for (std::size_t i = 0; i < smc->size(); ++i) out.smc_runs.push_back(read_smc(r, (*smc)[i], i));
  }
  if (const json& training = r.member(doc, "training", ""); !training.is_null())
    out.training = read_training(r, training);
  if (const auto files = doc.find("files_read"); files != doc.end())
    out.files = read_files(r, *files);
  return out;
}

// ---------------------------------------------------------------- RunCheckpoint

RunCheckpoint::RunCheckpoint(std::string path, CheckpointedConfig config, double every_seconds)
    : path_(std::move(path)),
      config_(std::move(config)),
      every_seconds_(every_seconds),
      last_save_(Clock::now()),
      last_record_(last_save_),
      warn_([](const std::string& line) { std::cerr << line << '\n'; }) {}

RunCheckpoint RunCheckpoint::read(const std::string& path, double every_seconds,
                                  const std::string& command) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path))
    throw InputError(fmt::format("{}: expected a readable checkpoint file", path));
  std::ostringstream s;
  s << in.rdbuf();
  CheckpointContents contents = parse_checkpoint(s.str(), path);
  if (contents.config.command != command)
    throw InputError(fmt::format(
        "{}: a checkpoint of logz {}: expected one of logz {} (resume it with logz {} --resume)",
        path, contents.config.command, command, contents.config.command));
  RunCheckpoint c(path, std::move(contents.config), every_seconds);
  c.training_ = std::move(contents.training);
  c.phases_ = std::move(contents.phases);
  c.temperings_ = std::move(contents.temperings);
  c.pt_runs_ = std::move(contents.pt_runs);
  c.smc_runs_ = std::move(contents.smc_runs);
  c.files_ = std::make_shared<FilesRead>(std::move(contents.files));
  return c;
}

std::size_t RunCheckpoint::num_complete_phases() const {
  return static_cast<std::size_t>(
      std::count_if(phases_.begin(), phases_.end(), [](const auto& p) { return p.complete(); }));
}

void RunCheckpoint::save() {
  const auto start = Clock::now();
  if (writes_)
    io::write_text_file(path_,
                        checkpoint_text({config_, phases_, temperings_, pt_runs_, smc_runs_,
                                         training_, files_->files()}),
                        io::OutputKind::checkpoint);
  last_save_ = Clock::now();
  save_seconds_ = std::chrono::duration<double>(last_save_ - start).count();
  changed_ = false;
}

namespace {

// The least time between saves (or records) that took `cost` seconds each: `every`, or ten times
// the cost where that is longer and the cost is noticeable (over a tenth of a second). Every 0
// (--checkpoint-every 0) is every chance, whatever it costs: what was asked for.
double spacing(double every, double cost) {
  return every > 0.0 && cost > 0.1 ? std::max(every, 10.0 * cost) : every;
}

}  // namespace

// A save that fails (a full disk, a lost NFS server) leaves the run and the previous checkpoint
// as they were; the first failure is said, and the first success after it, then no more.
bool RunCheckpoint::save_or_warn() {
  if (!changed_) return true;  // the file holds this state: a stop says so at once
  try {
    save();
  } catch (const InputError& e) {
    if (failed_saves_++ == 0 && !warned_)
      warn_(fmt::format(
          "logz: checkpoint not saved; the run goes on, tries again when the next save is due and "
          "keeps the last one saved: {}",
          e.what()));
    last_save_ = Clock::now();
    return false;
  }
  if (failed_saves_ > 0 && !warned_)
    warn_(fmt::format(
        "logz: checkpoint {} saved again after {} failed save{} (later failures are not reported)",
        path_, failed_saves_, failed_saves_ == 1 ? "" : "s"));
  warned_ = warned_ || failed_saves_ > 0;
  failed_saves_ = 0;
  return true;
}

void RunCheckpoint::lock() {
  if (lock_) return;
  io::check_output_file(
      path_, io::OutputKind::checkpoint);  // --checkpoint /dev/null: no lock file in /dev
  const std::string name = path_ + ".lock";
  const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st {};
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    throw InputError(
        fmt::format("{}: expected a regular file (the checkpoint's lock) or no file", name));
  }
  if (fd < 0)
    throw InputError(
        fmt::format("{}: expected a lock file beside the checkpoint that can be opened ({})", name,
                    std::strerror(errno)));
  lock_ = std::shared_ptr<const int>(new int(fd),
                                     [](const int* d) {  // the lock goes with the descriptor
                                       ::close(*d);
                                       delete d;
                                     });
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    lock_.reset();
    throw InputError(fmt::format(
        "{}: in use by another logz run{}: expected a checkpoint no other run saves to", path_,
        n > 0 ? fmt::format(" (process {})", std::string(pid, static_cast<std::size_t>(n))) : ""));
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd, 0) == 0) (void)::pwrite(fd, pid.data(), pid.size(), 0);
  // Holding the lock, no other run writes this checkpoint: temporary files left by a run killed
  // while saving (PATH.tmp-XXXXXX, io/output_file.hpp) are stale.
  const fs::path file(path_);
  const std::string stale = file.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& entry :
       fs::directory_iterator(file.parent_path().empty() ? "." : file.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == stale.size() + 6 && name.starts_with(stale) && entry.is_regular_file(ec) &&
        !entry.is_symlink(ec))
      fs::remove(entry.path(), ec);
  }
}

bool RunCheckpoint::due() const {
  return std::chrono::duration<double>(Clock::now() - last_save_).count() >=
         spacing(every_seconds_, save_seconds_);
}

const AnnealPhaseRecord* RunCheckpoint::begin_phase(const AnnealPhaseShape& shape, bool resumable) {
  const std::size_t i = next_phase_++;
  changed_ = true;
  if (i == phases_.size()) {
    phases_.push_back(not_begun(shape));
    return nullptr;
  }
  AnnealPhaseRecord& saved = phases_[i];
  if (!(saved.shape == shape))
    throw InputError(fmt::format(
        "{}: phase {} of the run: expected {} paths in chunks of {} over {} temperatures, as "
        "the checkpoint's config gives, found {} in chunks of {} over {}",
        path_, i + 1, shape.num_paths, shape.chunk_size, shape.num_temperatures,
        saved.shape.num_paths, saved.shape.chunk_size, saved.shape.num_temperatures));
  if (!resumable) {  // run again whole: it must give its end states to the next phase
    saved = not_begun(shape);
    return nullptr;
  }
  return &saved;
}

void RunCheckpoint::merged(const AnnealPhaseView& view) {
  if (!due()) return;
  phases_[next_phase_ - 1] = AnnealPhaseRecord::of(view);
  changed_ = true;
  save_or_warn();
}

void RunCheckpoint::end_phase(const AnnealPhaseView& view) {
  phases_[next_phase_ - 1] = AnnealPhaseRecord::of(view);
  changed_ = true;
}

}  // namespace logz

namespace logz {

std::string RunCheckpoint::progress() const {
  std::vector<std::string> parts;
  if (!phases_.empty())
    parts.push_back(fmt::format("{} of {} annealing phases begun are complete",
                                num_complete_phases(), phases_.size()));
  for (std::size_t i = 0; i < temperings_.size(); ++i) {
    const TemperingRecord& t = temperings_[i];
    const std::string stage =
        t.stage == TemperingStage::initialization
            ? (t.shape.initialization == "wang_landau"
                   ? fmt::format("Wang-Landau, {} sweeps", t.wang_landau.sweeps)
                   : fmt::format("initial iterations, {} done", t.initial.iterations))
        : t.stage == TemperingStage::final_run
            ? fmt::format("final run, {} of {} sweeps", t.final_run.sweeps_done, t.final_run.sweeps)
            : std::string("complete");
    parts.push_back(fmt::format("tempering run {}: {}", i + 1, stage));
  }
  for (std::size_t i = 0; i < pt_runs_.size(); ++i) {
    const PtRecord& t = pt_runs_[i];
    parts.push_back(fmt::format("parallel tempering run {}: round {} of {}, {} of its {} scans",
                                i + 1, t.round, t.shape.rounds, t.scans_done,
                                std::size_t{1} << t.round));
  }
  for (std::size_t i = 0; i < smc_runs_.size(); ++i) {
    const SmcRecord& t = smc_runs_[i];
    const char* what = t.shape.dim == 0 ? "population annealing run" : "SMC run";
    parts.push_back(t.temperature >= 1.0 ? fmt::format("{} {}: complete", what, i + 1)
                                         : fmt::format("{} {}: {} temperatures, t = {:.4g}", what,
                                                       i + 1, t.temperatures, t.temperature));
  }
  if (training_)
    parts.push_back(fmt::format("{} epoch{} of training complete", training_->trainer.epochs_done,
                                training_->trainer.epochs_done == 1 ? "" : "s"));
  if (parts.empty()) return "nothing complete yet";
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += "; " + parts[i];
  return out;
}

namespace {

// What the run being begun finds: nullptr for a new run (pushed with its shape), else its saved
// record, whose shape must be the run's; `describe` words a shape, `what` names the run.
template <class Record, class Shape, class Describe>
const Record* begin_run(std::vector<Record>& runs, std::size_t& next, const Shape& shape,
                        const std::string& path, std::string_view what, Describe describe) {
  const std::size_t i = next++;
  if (i == runs.size()) {
    runs.push_back({.shape = shape});
    return nullptr;
  }
  const Record& saved = runs[i];
  if (!(saved.shape == shape))
    throw InputError(
        fmt::format("{}: {} {}: expected {}, as the checkpoint's config gives, found {}", path,
                    what, i + 1, describe(shape), describe(saved.shape)));
  return &saved;
}

}  // namespace

const TemperingRecord* RunCheckpoint::begin_tempering(const TemperingShape& shape) {
  last_record_ = Clock::now();
  changed_ = true;
  return begin_run(temperings_, next_tempering_, shape, path_, "tempering run",
                   [](const TemperingShape& s) {
                     return fmt::format(
                         "{} chains in chunks of {} over {} levels, {} sweeps, initialization "
                         "\"{}\"",
                         s.num_chains, s.chunk_size, s.num_levels, s.num_sweeps, s.initialization);
                   });
}

// A record at least every second (a stop loses little) and whenever a checkpoint is due.
bool RunCheckpoint::wants_record() const {
  const auto now = Clock::now();
  const bool wants = due() || std::chrono::duration<double>(now - last_record_).count() >=
                                  spacing(1.0, record_seconds_);
  if (wants) asked_ = now;
  return wants;
}

void RunCheckpoint::took_record() {
  last_record_ = Clock::now();
  if (asked_) record_seconds_ = std::chrono::duration<double>(last_record_ - *asked_).count();
  asked_.reset();
}

void RunCheckpoint::record_training(TrainingRecord record) {
  training_ = std::move(record);
  changed_ = true;
  if (due()) save_or_warn();
}

void RunCheckpoint::record(TemperingRecord record) {
  temperings_[next_tempering_ - 1] = std::move(record);
  changed_ = true;
  took_record();
  if (due()) save_or_warn();
}

const PtRecord* RunCheckpoint::begin_pt(const PtShape& shape) {
  last_record_ = Clock::now();
  changed_ = true;
  return begin_run(pt_runs_, next_pt_, shape, path_, "parallel tempering run",
                   [](const PtShape& s) {
                     return fmt::format("{} chains in chunks of {} over {} rounds", s.num_chains,
                                        s.chunk_size, s.rounds);
                   });
}

void RunCheckpoint::record(PtRecord record) {
  pt_runs_[next_pt_ - 1] = std::move(record);
  changed_ = true;
  took_record();
  if (due()) save_or_warn();
}

const SmcRecord* RunCheckpoint::begin_smc(const SmcShape& shape) {
  last_record_ = Clock::now();
  changed_ = true;
  // Population annealing's replicas are recorded with dim 0 (smc/population_state.hpp).
  const SmcRecord* saved = begin_run(
      smc_runs_, next_smc_, shape, path_, shape.dim == 0 ? "population annealing run" : "SMC run",
      [](const SmcShape& s) {
        return s.dim == 0
                   ? fmt::format("{} replicas in chunks of {}", s.num_particles, s.chunk_size)
                   : fmt::format("{} particles in {} dimensions in chunks of {}", s.num_particles,
                                 s.dim, s.chunk_size);
      });
  // A run begun but not recorded yet (stopped before its first record) starts afresh.
  return saved && !saved->state.empty() ? saved : nullptr;
}

void RunCheckpoint::record(SmcRecord record) {
  smc_runs_[next_smc_ - 1] = std::move(record);
  changed_ = true;
  took_record();
  if (due()) save_or_warn();
}

}  // namespace logz
