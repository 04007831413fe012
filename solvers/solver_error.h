// The exception every solver throws: the message names the solver, the iteration or the DOF.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dualjit::solvers {

class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A factorization met a non-positive pivot (or Eigen reported a numerical failure): the matrix
// is not positive definite. dof() is the DOF of the first offending pivot, -1 when unknown.
class NotPositiveDefiniteError : public SolverError {
 public:
  NotPositiveDefiniteError(const std::string& what, int64_t dof) : SolverError(what), dof_(dof) {}
  int64_t dof() const { return dof_; }

 private:
  int64_t dof_;
};

}  // namespace dualjit::solvers
