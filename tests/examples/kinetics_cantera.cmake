# The ctest test kinetics_cantera (cmake -P): writes the kinetics references afresh with Cantera
# 3.2 (make_references.py and make_ignition_references.py --out OUT) and runs test_examples'
# comparisons against them (DUALJIT_KINETICS_REFERENCES=OUT). Without Cantera it fails, saying how to install it:
# passing would hide that nothing was compared with Cantera.
#   -DPYTHON=... -DSCRIPT=make_references.py -DOUT=dir -DTEST_EXE=test_examples -DBUILD_DIR=...
foreach(v PYTHON SCRIPT OUT TEST_EXE BUILD_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "kinetics_cantera: ${v} is not set")
  endif()
endforeach()
set(hint "install it with: tools/install-test-deps.sh ${BUILD_DIR} (Cantera 3.2 from PyPI into ${BUILD_DIR}/python; tools/bootstrap.sh test runs it)")
if(NOT EXISTS "${PYTHON}")
  message(FATAL_ERROR "kinetics_cantera: no Python with Cantera at ${PYTHON}; ${hint}")
endif()
execute_process(COMMAND "${PYTHON}" -c "import cantera; print(cantera.__version__)"
                RESULT_VARIABLE rc OUTPUT_VARIABLE version ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kinetics_cantera: ${PYTHON} cannot import cantera:\n${err}\n${hint}")
endif()
if(NOT version MATCHES "^3\\.2")
  message(FATAL_ERROR "kinetics_cantera: Cantera ${version} at ${PYTHON}, 3.2 expected; ${hint}")
endif()
message(STATUS "kinetics_cantera: Cantera ${version} (${PYTHON}) writes ${OUT}")
file(REMOVE_RECURSE "${OUT}")
# The rate references, then the ignition references its sibling script writes.
get_filename_component(script_dir "${SCRIPT}" DIRECTORY)
foreach(script "${SCRIPT}" "${script_dir}/make_ignition_references.py")
  execute_process(COMMAND "${PYTHON}" "${script}" --out "${OUT}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kinetics_cantera: ${script} failed (exit ${rc})")
  endif()
endforeach()
# Every test case that reads the references has "Cantera" in its name.
set(ENV{DUALJIT_KINETICS_REFERENCES} "${OUT}")
execute_process(COMMAND "${TEST_EXE}" --test-suite=kinetics --test-case=*Cantera*
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out ECHO_OUTPUT_VARIABLE
                ECHO_ERROR_VARIABLE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kinetics_cantera: the kinetics tests failed against Cantera ${version}'s references in ${OUT}")
endif()
# A filter that matched nothing would pass too.
if(NOT out MATCHES "test cases: +([0-9]+) \\| +([0-9]+) passed" OR CMAKE_MATCH_2 LESS 4)
  message(FATAL_ERROR "kinetics_cantera: fewer than 4 test cases ran: '*Cantera*' matched too few")
endif()
