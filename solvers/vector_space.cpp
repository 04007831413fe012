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
#pragma omp parallel for if (n > (1 << 14))
    for (int64_t i = 0; i < n; ++i) {
      double v = c_y == 0.0 ? 0.0 : c_y * ys[i];
      for (size_t k = 0; k < x.size(); ++k) v += c[k] * x[k]->data()[i];
      ys[i] = v;
    }
  }
  void axpby(double a, const Vector& x, double b, Vector& y) const override {
    check_sizes(x, y, "axpby");
    const int64_t n = x.size();
    const double* xs = x.data();
    double* ys = y.data();
#pragma omp parallel for if (n > (1 << 14))
    for (int64_t i = 0; i < n; ++i) ys[i] = b == 0.0 ? a * xs[i] : a * xs[i] + b * ys[i];
  }
  void add_scaled(const Vector& x, double a, const Vector& d, Vector& out) const override {
    check_sizes(x, d, "add_scaled");
    check_sizes(x, out, "add_scaled");
    const int64_t n = x.size();
    const double *xs = x.data(), *ds = d.data();
    double* o = out.data();
#pragma omp parallel for if (n > (1 << 14))
    for (int64_t i = 0; i < n; ++i) o[i] = xs[i] + a * ds[i];
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
