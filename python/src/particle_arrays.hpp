// The particles a logz.Target's functions are handed: a read-only (P, d) numpy array that owns
// its memory, filled by one memcpy from logz's d x P positions (the same layout). User code may
// keep it, a row of it, a memoryview of it: it stays valid, with the values it had during the
// call, for as long as anything holds it. A target keeps a few such arrays and reuses one only
// when, after the call, nothing but logz refers to it (no reference, view, buffer or weak
// reference of the user's): the hot loop allocates nothing. Every method runs with the GIL
// held, which is what makes the pool safe from the drivers' threads.
#pragma once

#include <pybind11/numpy.h>

#include <Eigen/Core>
#include <vector>

namespace logz::python {

class ParticleArrays {
 public:
  ParticleArrays();
  ParticleArrays(const ParticleArrays&) =
      delete;  // its arrays are Python's: copied with the GIL only
  ParticleArrays& operator=(const ParticleArrays&) = delete;
  // A read-only (P, d) array holding X's d x P positions: a free one of that shape, or a new one.
  pybind11::array take(const Eigen::MatrixXd& X);
  // The array back after the call: kept for reuse if logz holds its only reference, else
  // dropped (the user's now).
  void give_back(pybind11::array a) noexcept;

 private:
  std::vector<pybind11::array> free_;  // oldest first
};

// One call's particles, given back to the pool when it goes out of scope: declare it before the
// answer of the call, so that an answer that is X itself (or a view of it) is gone by then.
class LentParticles {
 public:
  LentParticles(ParticleArrays& pool, const Eigen::MatrixXd& X)
      : pool_(pool), array_(pool.take(X)) {}
  ~LentParticles() { pool_.give_back(std::move(array_)); }
  LentParticles(const LentParticles&) = delete;
  LentParticles& operator=(const LentParticles&) = delete;
  const pybind11::array& array() const { return array_; }

 private:
  ParticleArrays& pool_;
  pybind11::array array_;
};

}  // namespace logz::python
