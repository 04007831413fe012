// Runs fn(0) .. fn(n - 1) on up to one thread per core (the caller's among them), taking
// indices in order as threads free up. The first exception, by index, is rethrown once every
// call has finished.
#pragma once

#include <cstddef>
#include <functional>

namespace dualjit::jit {

void parallel_for(size_t n, const std::function<void(size_t)>& fn);

}  // namespace dualjit::jit
