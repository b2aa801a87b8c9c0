// The draws of one kernel step in which every particle of a batch takes, from its own stream
// random.stream(p), one uniform and n normals: exactly the numbers uniform() and
// fill_normal() of that stream give in that order (or the normals first), for all particles
// in one call, so that the bits and the normals are made in bulk.
#pragma once

#include <cstddef>
#include <span>

#include "logz/random/philox.hpp"

namespace logz {

enum class DrawOrder { uniform_first, normals_first };

// How the normals are made: `double` from 64 bits each (two uniforms of 53 bits a pair),
// `single` from 32 (a pair from two 32-bit words, Box-Muller in float, then widened).
enum class NormalPrecision { double_, single };

// Particle p (p < uniforms.size()) gets uniforms[p] and the normals normals[p * stride ..
// p * stride + n).
void draw_uniform_and_normals(const BatchRandom& random, DrawOrder order,
                              std::span<double> uniforms, double* normals, std::size_t n,
                              std::size_t stride,
                              NormalPrecision precision = NormalPrecision::double_);

}  // namespace logz
