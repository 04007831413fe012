// Drivers that assemble in place (jit/assembly_spec.h): the element-side code that adds a
// chunk's results into global residual and block-CSR arrays, and the entry points per
// strategy, for CUDA and for the host.
#pragma once

#include <string>

#include "jit/assembly_spec.h"
#include "jit/derivative_plan.h"
#include "jit/emit_driver.h"

namespace dualjit::jit {

// Throws std::invalid_argument when the kernel, plan and spec do not fit together (slot
// widths, modes, chunks not aligned with the vertices for GatherByColumn).
void check_assembly(const DriverSpec& spec, const DerivativePlan& plan, const AssemblySpec& a,
                    const std::string& kernel_name);

// Dynamic shared memory the CUDA entry launches with (the warp-specialised gather's staging;
// 0 for every other entry, whose shared arrays are static).
size_t assembly_dynamic_shared_bytes(const DriverSpec& spec, const AssemblySpec& a);

std::string emit_assembly_driver(const DriverSpec& spec, const DerivativePlan& plan,
                                 const AssemblySpec& a);
std::string emit_assembly_cuda_entry(const DriverSpec& spec, const AssemblySpec& a);
std::string emit_assembly_host_entry(const DriverSpec& spec, const AssemblySpec& a);

}  // namespace dualjit::jit
