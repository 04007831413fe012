# The names dualjit's targets and headers have for other projects, the same whether they use
# the installed package (find_package) or the source tree (add_subdirectory):
#   dualjit::dualjit      everything below
#   dualjit::dsl, dualjit::jit, dualjit::cuda, dualjit::cpu, dualjit::mesh, dualjit::assembly,
#   dualjit::tuning, dualjit::solvers   one per folder
#   dualjit::registry     the problem registry, for plugins of the dualjit command
# Headers are included by their path in the source tree ("backends/assembly/problem.h"); once
# installed they live under <prefix>/include/dualjit, so that generic folder names such as dsl/
# or tools/ do not land in <prefix>/include itself.
include(GNUInstallDirs)
set(DUALJIT_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/dualjit)

# dualjit_<x> is exported as dualjit::<x> (dualjit as dualjit::dualjit), with an alias of the
# same name in the build tree.
function(dualjit_package_names target)
  string(REGEX REPLACE "^dualjit_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  add_library(dualjit::${export_name} ALIAS ${target})
endfunction()
