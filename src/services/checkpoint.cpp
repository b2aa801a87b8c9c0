#include "logz/services/checkpoint.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "logz/core/error.hpp"
#include "logz/io/text_file.hpp"
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
  std::string string(const json& object, const std::string& key, const std::string& where = "") const {
    const json& v = member(object, key, where);
    if (!v.is_string()) fail(where + key, "a string");
    return v.get<std::string>();
  }
  std::uint64_t count(const json& object, const std::string& key, const std::string& where = "") const {
    const json& v = member(object, key, where);
    if (!v.is_number_unsigned()) fail(where + key, "a whole number >= 0");
    return v.get<std::uint64_t>();
  }
  std::vector<double> doubles(const json& object, const std::string& key, const std::string& where) const {
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
  std::vector<std::uint64_t> counts(const json& object, const std::string& key, const std::string& where) const {
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
  if (rec.works.size() != paths_done) r.fail(where + "works", fmt::format("{} works, those of the chunks done", paths_done));
  rec.energy_sum = r.doubles(p, "energy_sum", where);
  rec.attempted = r.counts(p, "attempted", where);
  rec.accepted = r.counts(p, "accepted", where);
  if (rec.energy_sum.size() != s.num_temperatures || rec.attempted.size() != s.num_temperatures ||
      rec.accepted.size() != s.num_temperatures)
    r.fail(where + "energy_sum", "one sum per temperature in energy_sum, attempted and accepted");
  return rec;
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

CheckpointedConfig CheckpointedConfig::from_file(const std::string& path, std::vector<std::string> sets,
                                                 std::optional<std::uint64_t> seed, std::optional<int> threads) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) throw InputError(fmt::format("{}: expected a readable config file", path));
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
  return fmt::format("{:016x}", h);
}

// ---------------------------------------------------------------- the file

std::string checkpoint_text(const CheckpointedConfig& config, const std::vector<AnnealPhaseRecord>& phases) {
  json phase_list = json::array();
  for (const auto& p : phases)
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
        {"threads", config.threads ? json(*config.threads) : json(nullptr)}}},
      {"config_hash", config.hash()},
      {"phases", std::move(phase_list)}};
  std::string text;
  try {
    text = body.dump(1);
  } catch (const json::type_error&) {
    throw InputError(fmt::format("{}: the config and its --set overrides: expected UTF-8 text", config.source));
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
  if (eol == std::string::npos || !(head >> magic >> format >> crc_hex >> bytes) || magic != kMagic ||
      (head >> extra) || crc_hex.size() != 8)
    throw InputError(fmt::format("{}: expected a logz checkpoint (a first line \"{} {} CRC32 BYTES\")", name, kMagic, kFormat));
  if (format != kFormat)
    throw InputError(fmt::format("{}: checkpoint format {}: expected format {}", name, format, kFormat));
  const std::string body = text.substr(eol + 1);
  if (body.size() != bytes)
    throw InputError(fmt::format("{}: expected {} bytes after the first line, found {} (a truncated or extended "
                                 "checkpoint)", name, bytes, body.size()));
  if (fmt::format("{:08x}", crc32_of(body)) != crc_hex)
    throw InputError(fmt::format("{}: expected CRC-32 {} of the checkpoint's contents (the file is corrupted)", name,
                                 crc_hex));
  json doc;
  try {
    doc = json::parse(body, nullptr, true, false);
  } catch (const json::exception&) {
    throw InputError(fmt::format("{}: expected the checkpoint's JSON after its first line", name));
  }
  if (!doc.is_object()) r.fail("contents", "a JSON object");
  const std::string written_by = r.string(doc, "logz_version");
  if (written_by != version())
    throw InputError(fmt::format("{}: written by logz {}: expected one of this logz, {} (resume with the logz that "
                                 "wrote it)", name, written_by, version()));
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
  if (const json& seed = r.member(c, "seed", "config."); !seed.is_null()) out.config.seed = r.count(c, "seed", "config.");
  if (const json& threads = r.member(c, "threads", "config."); !threads.is_null()) {
    if (!threads.is_number_unsigned() || threads.get<std::uint64_t>() > 4096)
      r.fail("config.threads", "null or a whole number from 0 to 4096");
    out.config.threads = static_cast<int>(threads.get<std::uint64_t>());
  }
  if (r.string(doc, "config_hash") != out.config.hash())
    throw InputError(fmt::format("{}: config_hash: expected the hash of the checkpoint's config, {} (the config "
                                 "was edited)", name, out.config.hash()));
  const json& phases = r.member(doc, "phases", "");
  if (!phases.is_array()) r.fail("phases", "an array");
  for (std::size_t i = 0; i < phases.size(); ++i) out.phases.push_back(read_phase(r, phases[i], i));
  return out;
}

// ---------------------------------------------------------------- RunCheckpoint

RunCheckpoint::RunCheckpoint(std::string path, CheckpointedConfig config, double every_seconds)
    : path_(std::move(path)), config_(std::move(config)), every_seconds_(every_seconds), last_save_(Clock::now()) {}

RunCheckpoint RunCheckpoint::read(const std::string& path, double every_seconds) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) throw InputError(fmt::format("{}: expected a readable checkpoint file", path));
  std::ostringstream s;
  s << in.rdbuf();
  CheckpointContents contents = parse_checkpoint(s.str(), path);
  RunCheckpoint c(path, std::move(contents.config), every_seconds);
  c.phases_ = std::move(contents.phases);
  return c;
}

std::size_t RunCheckpoint::num_complete_phases() const {
  return static_cast<std::size_t>(std::count_if(phases_.begin(), phases_.end(), [](const auto& p) { return p.complete(); }));
}

void RunCheckpoint::save() {
  io::write_text_file_atomically(path_, checkpoint_text(config_, phases_));
  last_save_ = Clock::now();
}

bool RunCheckpoint::due() const {
  return std::chrono::duration<double>(Clock::now() - last_save_).count() >= every_seconds_;
}

const AnnealPhaseRecord* RunCheckpoint::begin_phase(const AnnealPhaseShape& shape, bool resumable) {
  const std::size_t i = next_phase_++;
  if (i == phases_.size()) {
    phases_.push_back(not_begun(shape));
    return nullptr;
  }
  AnnealPhaseRecord& saved = phases_[i];
  if (!(saved.shape == shape))
    throw InputError(fmt::format("{}: phase {} of the run: expected {} paths in chunks of {} over {} temperatures, as "
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
  save();
}

void RunCheckpoint::end_phase(const AnnealPhaseView& view) { phases_[next_phase_ - 1] = AnnealPhaseRecord::of(view); }

}  // namespace logz
