#include "solvers/vector_space.h"

#include <cmath>
#include <string>

#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

Vector::Vector(std::vector<double> host) : host_(std::move(host)), n_(int64_t(host_.size())) {}

Vector::Vector(cuda::DeviceBuffer device, int64_t n) : device_(std::move(device)), n_(n) {
  if (device_.bytes() < size_t(n) * sizeof(double)) {
    throw SolverError("Vector: a device buffer of " + std::to_string(device_.bytes()) +
                      " bytes cannot hold " + std::to_string(n) + " doubles");
  }
}

double* Vector::data() {
  return on_device() ? reinterpret_cast<double*>(device_.get()) : host_.data();
}

const double* Vector::data() const {
  return on_device() ? reinterpret_cast<const double*>(device_.get()) : host_.data();
}

std::span<double> Vector::host() {
  if (on_device()) throw SolverError("Vector: host() of a vector in device memory");
  return host_;
}

std::span<const double> Vector::host() const {
  if (on_device()) throw SolverError("Vector: host() of a vector in device memory");
  return host_;
}

void VectorSpace::axpby(double a, const Vector& x, double b, Vector& y) const {
  const Vector* terms[] = {&x};
  const double c[] = {a};
  combine(c, terms, b, y);
}

void VectorSpace::add_scaled(const Vector& x, double a, const Vector& d, Vector& out) const {
  const Vector* terms[] = {&x, &d};
  const double c[] = {1.0, a};
  combine(c, terms, 0.0, out);
}

double VectorSpace::dot(const Vector& a, const Vector& b) const {
  const Vector* pa = &a;
  const Vector* pb = &b;
  return dots({&pa, 1}, {&pb, 1})[0];
}

double VectorSpace::norm(const Vector& v) const {
  return std::sqrt(dot(v, v));
}

Vector VectorSpace::clone(const Vector& x) const {
  Vector y = zeros(x.size());
  copy(x, y);
  return y;
}

namespace {

void check_sizes(const Vector& a, const Vector& b, const char* op) {
  if (a.size() != b.size()) {
    throw SolverError(std::string("VectorSpace::") + op + ": sizes " + std::to_string(a.size()) +
                      " and " + std::to_string(b.size()));
  }
}

class HostSpace final : public VectorSpace {
 public:
  bool on_device() const override { return false; }
  Vector zeros(int64_t n) const override { return Vector(std::vector<double>(n, 0.0)); }
  Vector from_host(std::span<const double> v) const override {
    return Vector(std::vector<double>(v.begin(), v.end()));
  }
  std::vector<double> to_host(const Vector& v) const override {
    return {v.host().begin(), v.host().end()};
  }
  void copy(const Vector& x, Vector& y) const override {
    check_sizes(x, y, "copy");
    std::copy(x.host().begin(), x.host().end(), y.host().begin());
  }
  std::vector<double> dots(std::span<const Vector* const> a,
                           std::span<const Vector* const> b) const override {
    if (a.size() != b.size()) throw SolverError("VectorSpace::dots: unequal lists");
    std::vector<double> out(a.size());
    for (size_t k = 0; k < a.size(); ++k) {
      check_sizes(*a[k], *b[k], "dots");
      out[k] = solvers::dot(a[k]->host(), b[k]->host());
    }
    return out;
  }
  void combine(std::span<const double> c, std::span<const Vector* const> x, double c_y,
               Vector& y) const override {
    if (c.size() != x.size()) throw SolverError("VectorSpace::combine: unequal lists");
    for (const Vector* v : x) check_sizes(*v, y, "combine");
    const int64_t n = y.size();
    double* ys = y.data();
    std::vector<const double*> xs;
    for (const Vector* v : x) xs.push_back(v->data());
#pragma omp parallel for if (n > (1 << 14))
    for (int64_t i = 0; i < n; ++i) {
      double v = c_y == 0.0 ? 0.0 : c_y * ys[i];
      for (size_t k = 0; k < xs.size(); ++k) v += c[k] * xs[k][i];
      ys[i] = v;
    }
  }
  void apply_mask(const Vector& mask, Vector& v) const override {
    check_sizes(mask, v, "apply_mask");
    const int64_t n = v.size();
    const double* m = mask.data();
    double* vs = v.data();
    for (int64_t i = 0; i < n; ++i) {
      if (m[i] == 0.0) vs[i] = 0.0;
    }
  }
};

}  // namespace

const VectorSpace& host_space() {
  static const HostSpace space;
  return space;
}

}  // namespace dualjit::solvers
