# The downstream_package test: installs the build to a fresh prefix, then configures, builds and
# runs examples/downstream against that prefix alone, as another project would.
#   cmake -DBUILD_DIR=<dualjit build> -DSOURCE_DIR=<dualjit source> -DWORK_DIR=<scratch>
#         [-DGENERATOR=...] [-DCXX_COMPILER=...] [-DCXX_LAUNCHER=...] [-DCUDA_ROOT=...] -P <this>
cmake_minimum_required(VERSION 3.22)

foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "downstream_package: ${var} is not set")
  endif()
endforeach()

# Runs a command and stops the test with its output when it fails.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "downstream_package: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
# A fresh prefix: a header or target missing from the install must not be found in an old one.
file(REMOVE_RECURSE ${prefix} ${build})

run_step("install to ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The package must stand alone: no path into the source or build tree.
file(GLOB package_files ${prefix}/lib*/cmake/dualjit/*.cmake)
if(NOT package_files)
  message(FATAL_ERROR "downstream_package: no CMake package under ${prefix}/lib*/cmake/dualjit")
endif()
foreach(f ${package_files})
  file(READ ${f} text)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "downstream_package: ${f} refers to ${tree}")
    endif()
  endforeach()
endforeach()

# CMAKE_FIND_USE_PACKAGE_REGISTRY and the source tree stay out of the search: only the prefix.
set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/downstream -B ${build}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(GENERATOR)
  list(APPEND configure -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(CXX_LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
if(CUDA_ROOT)
  list(APPEND configure -DCUDAToolkit_ROOT=${CUDA_ROOT})
endif()
run_step("configure examples/downstream" ${configure})
run_step("build examples/downstream" ${CMAKE_COMMAND} --build ${build})

execute_process(COMMAND ${build}/membrane_energy RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "downstream_package: membrane_energy failed (${rc})")
endif()
