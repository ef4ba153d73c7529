# Dependencies of the WebAssembly build (scripts/web.sh, Emscripten): the
# same Debian packages as the native build. nlohmann-json, CLI11, cpptoml and
# fmt (FMT_HEADER_ONLY) are used as headers; yaml-cpp is compiled from the
# sources of Debian's yaml-cpp package, which scripts/web.sh unpacks. The
# host's /usr/include is never on the include path (its libc headers would
# shadow Emscripten's): OCCAM_WEB_INCLUDE holds links to each library's
# header folder only.
#   OCCAM_WEB_INCLUDE      folder with nlohmann/, CLI/, fmt/, cpptoml.h
#   OCCAM_YAML_CPP_SOURCE  the unpacked yaml-cpp source (include/, src/)
foreach(var OCCAM_WEB_INCLUDE OCCAM_YAML_CPP_SOURCE)
  if(NOT ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "the WebAssembly build needs ${var} (run scripts/web.sh)")
  endif()
endforeach()

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${OCCAM_WEB_INCLUDE})
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${OCCAM_WEB_INCLUDE})
add_library(cpptoml INTERFACE IMPORTED)
target_include_directories(cpptoml INTERFACE ${OCCAM_WEB_INCLUDE})
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt INTERFACE ${OCCAM_WEB_INCLUDE})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(Threads::Threads INTERFACE IMPORTED)  # one thread: the planner runs inline

file(GLOB yaml_cpp_sources ${OCCAM_YAML_CPP_SOURCE}/src/*.cpp)
add_library(yaml-cpp STATIC ${yaml_cpp_sources})
target_include_directories(yaml-cpp SYSTEM PUBLIC ${OCCAM_YAML_CPP_SOURCE}/include)
