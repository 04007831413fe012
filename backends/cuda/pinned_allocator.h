// An allocator for host arrays that are copied to and from the GPU every round of a solver:
// page-locked (host_alloc_pinned) when constructed with pinned = true, ordinary memory
// otherwise, so that one container type serves the device and the CPU-only paths.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/cuda/driver.h"

namespace dualjit::cuda {

template <class T>
class PinnedAllocator {
 public:
  using value_type = T;

  explicit PinnedAllocator(bool pinned = false) : pinned_(pinned) {}
  template <class U>
  PinnedAllocator(const PinnedAllocator<U>& other) : pinned_(other.pinned()) {}

  T* allocate(std::size_t n) {
    if (!pinned_) return std::allocator<T>().allocate(n);
    return static_cast<T*>(host_alloc_pinned(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (pinned_)
      host_free_pinned(p);
    else
      std::allocator<T>().deallocate(p, n);
  }
  bool pinned() const { return pinned_; }

  template <class U>
  bool operator==(const PinnedAllocator<U>& other) const {
    return pinned_ == other.pinned();
  }

 private:
  bool pinned_;
};

}  // namespace dualjit::cuda
