// Dense host vector kernels the solvers share (OpenMP where the length makes it worthwhile).
#pragma once

#include <span>
#include <vector>

namespace dualjit::solvers {

double dot(std::span<const double> a, std::span<const double> b);
double norm(std::span<const double> a);  // Euclidean
// y += a x
void axpy(double a, std::span<const double> x, std::span<double> y);
// Whether every entry is finite.
bool all_finite(std::span<const double> a);

}  // namespace dualjit::solvers
