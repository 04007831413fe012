// The one exception the mechanism loader throws: its message names the file and the entry (the
// reaction's index and equation, or the species and field), so that a bad input is found fast.
#pragma once

#include <stdexcept>
#include <string>

namespace dualjit::kinetics {

class MechanismError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dualjit::kinetics
