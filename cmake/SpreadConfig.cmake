# SpreadConfig.cmake -- find_package(Spread) for projects built with Spread's compiler.
#
# Works from the repository (-DSpread_DIR=<repo>/cmake, binaries from scripts/build.sh in
# <repo>/target/release) and from an install prefix (scripts/install.sh PREFIX puts this file in
# PREFIX/lib/cmake/Spread; CMAKE_PREFIX_PATH=PREFIX or -DSpread_DIR=PREFIX/lib/cmake/Spread).
#
# Provides
#   Spread_C_COMPILER       path of spread-cc  (drop-in for clang-19 that lowers target spread)
#   Spread_CXX_COMPILER     path of spread-c++
#   Spread_CXX_FOUND        TRUE when spread-c++ exists
#   Spread_INCLUDE_DIR      directory holding spread.h
#   Spread_LIBRARY_DIR      directory holding libomptarget.so.19.1 (-> Spread's runtime)
#   Spread_RUNTIME_LIBRARY  libspread_rt.so (for LD_PRELOAD)
#   Spread_PASS_PLUGIN      libspread_pass.so
#   Spread_INFO_EXECUTABLE  spread-info
#   Spread_TOOLCHAIN_FILE   a toolchain file that makes spread-cc/spread-c++ the project's compilers
#   Spread::runtime         imported target: Spread's runtime (linked under libomptarget's
#                           SONAME, libomptarget.so.19.1) and the include directory of spread.h
#   spread_add_executable(<name> [WIN32|MACOSX_BUNDLE|EXCLUDE_FROM_ALL] <sources>...)
#                           add_executable() whose sources are compiled and linked by
#                           spread-cc/spread-c++, linked to Spread::runtime
#
# Two ways to compile with spread-cc:
#   1. The whole project: choose the compiler before project(), e.g.
#        cmake -DCMAKE_TOOLCHAIN_FILE=<repo>/cmake/SpreadToolchain.cmake ...
#      or -DCMAKE_C_COMPILER=<repo>/target/release/spread-cc; then spread_add_executable() is a
#      plain add_executable() + Spread::runtime.
#   2. Per target: spread_add_executable() with any clang- or gcc-compatible project compiler.
#      It sets the target's C/CXX_COMPILER_LAUNCHER and C/CXX_LINKER_LAUNCHER to
#      spread-launch, which replaces the project's compiler by spread-cc/spread-c++ on the command
#      line (Makefile and Ninja generators; CMake >= 3.21 for the linker launcher).
#
# Variables read: Spread_BINARY_DIR (repository layout only: where cargo put the binaries;
# default <repo>/target/release).

cmake_policy(PUSH)
cmake_policy(VERSION 3.16...3.28)

get_filename_component(_spread_here "${CMAKE_CURRENT_LIST_DIR}" REALPATH)

if(EXISTS "${_spread_here}/../runtime/include/spread.h")
  # repository: <repo>/cmake
  get_filename_component(_spread_root "${_spread_here}/.." ABSOLUTE)
  if(NOT Spread_BINARY_DIR)
    set(Spread_BINARY_DIR "${_spread_root}/target/release")
  endif()
  set(Spread_ROOT "${_spread_root}")
  set(_spread_bin "${Spread_BINARY_DIR}")
  set(Spread_INCLUDE_DIR "${_spread_root}/runtime/include")
  get_filename_component(Spread_LIBRARY_DIR "${Spread_BINARY_DIR}/../spread/lib" ABSOLUTE)
  set(Spread_RUNTIME_LIBRARY "${Spread_BINARY_DIR}/libspread_rt.so")
  set(Spread_PASS_PLUGIN "${Spread_BINARY_DIR}/libspread_pass.so")
  set(_spread_hint "run ${_spread_root}/scripts/build.sh")
else()
  # install prefix: <prefix>/lib/cmake/Spread
  get_filename_component(_spread_root "${_spread_here}/../../.." ABSOLUTE)
  set(Spread_ROOT "${_spread_root}")
  set(_spread_bin "${_spread_root}/bin")
  set(Spread_INCLUDE_DIR "${_spread_root}/include")
  set(Spread_LIBRARY_DIR "${_spread_root}/lib")
  set(Spread_RUNTIME_LIBRARY "${_spread_root}/lib/libspread_rt.so")
  set(Spread_PASS_PLUGIN "${_spread_root}/lib/libspread_pass.so")
  set(_spread_hint "reinstall with scripts/install.sh ${_spread_root}")
endif()

set(Spread_C_COMPILER "${_spread_bin}/spread-cc")
set(Spread_CXX_COMPILER "${_spread_bin}/spread-c++")
set(Spread_INFO_EXECUTABLE "${_spread_bin}/spread-info")
set(Spread_TOOLCHAIN_FILE "${_spread_here}/SpreadToolchain.cmake")
set(_spread_launcher "${_spread_here}/spread-launch")
set(_spread_libomptarget "${Spread_LIBRARY_DIR}/libomptarget.so.19.1")

set(_spread_missing "")
foreach(_spread_f IN ITEMS "${Spread_C_COMPILER}" "${_spread_libomptarget}"
                           "${Spread_INCLUDE_DIR}/spread.h" "${_spread_launcher}")
  if(NOT EXISTS "${_spread_f}")
    list(APPEND _spread_missing "${_spread_f}")
  endif()
endforeach()
if(EXISTS "${Spread_CXX_COMPILER}")
  set(Spread_CXX_FOUND TRUE)
else()
  set(Spread_CXX_FOUND FALSE)
endif()

if(_spread_missing)
  list(JOIN _spread_missing ", " _spread_missing)
  set(Spread_FOUND FALSE)
  set(Spread_NOT_FOUND_MESSAGE "Spread at ${_spread_root} is incomplete: missing ${_spread_missing} (${_spread_hint})")
else()
  if(NOT TARGET Spread::runtime)
    add_library(Spread::runtime SHARED IMPORTED)
    # Linked through its drop-in name: executables record libomptarget.so.19.1 (the runtime's
    # SONAME) and get Spread_LIBRARY_DIR in their build RPATH.
    set_target_properties(Spread::runtime PROPERTIES
      IMPORTED_LOCATION "${_spread_libomptarget}"
      IMPORTED_SONAME "libomptarget.so.19.1"
      INTERFACE_INCLUDE_DIRECTORIES "${Spread_INCLUDE_DIR}")
  endif()
  set(Spread_FOUND TRUE)
  # what spread_add_executable() needs, wherever it is called from
  set_property(GLOBAL PROPERTY SPREAD_C_COMPILER "${Spread_C_COMPILER}")
  set_property(GLOBAL PROPERTY SPREAD_CXX_COMPILER "${Spread_CXX_COMPILER}")
  set_property(GLOBAL PROPERTY SPREAD_CXX_FOUND "${Spread_CXX_FOUND}")
  set_property(GLOBAL PROPERTY SPREAD_LAUNCHER "${_spread_launcher}")
  set_property(GLOBAL PROPERTY SPREAD_TOOLCHAIN_FILE "${Spread_TOOLCHAIN_FILE}")
  if(NOT Spread_FIND_QUIETLY AND NOT _SPREAD_CONFIG_REPORTED)
    set(_SPREAD_CONFIG_REPORTED TRUE CACHE INTERNAL "")
    message(STATUS "Spread: ${Spread_C_COMPILER} (runtime in ${Spread_LIBRARY_DIR})")
  endif()
endif()

# Is `compiler` (a project compiler) already Spread's `spread_compiler`?
function(_spread_is_same out compiler spread_compiler)
  set(same FALSE)
  if(compiler AND EXISTS "${compiler}")
    get_filename_component(a "${compiler}" REALPATH)
    get_filename_component(b "${spread_compiler}" REALPATH)
    get_filename_component(an "${compiler}" NAME)
    get_filename_component(bn "${spread_compiler}" NAME)
    # spread-c++ may be a link to spread-cc: compare the names too
    if(a STREQUAL b AND an STREQUAL bn)
      set(same TRUE)
    endif()
  endif()
  set(${out} ${same} PARENT_SCOPE)
endfunction()

# spread_add_executable(<name> [add_executable options] <sources>...)
function(spread_add_executable name)
  get_property(launcher GLOBAL PROPERTY SPREAD_LAUNCHER)
  if(NOT launcher OR NOT TARGET Spread::runtime)
    message(FATAL_ERROR "spread_add_executable(${name}): find_package(Spread) did not succeed")
  endif()
  get_property(cxx_found GLOBAL PROPERTY SPREAD_CXX_FOUND)
  get_property(toolchain GLOBAL PROPERTY SPREAD_TOOLCHAIN_FILE)
  add_executable(${name} ${ARGN})
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(lang IN ITEMS C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    get_property(spread_compiler GLOBAL PROPERTY SPREAD_${lang}_COMPILER)
    _spread_is_same(same "${CMAKE_${lang}_COMPILER}" "${spread_compiler}")
    if(same)
      continue() # the project already compiles with spread-cc/spread-c++
    endif()
    if(lang STREQUAL "CXX" AND NOT cxx_found)
      # only an error if the target has C++ sources
      get_target_property(srcs ${name} SOURCES)
      foreach(src IN LISTS srcs)
        if(src MATCHES "\\.(cc|cpp|cxx|C|c\\+\\+)$")
          message(FATAL_ERROR "spread_add_executable(${name}): C++ source ${src} but ${spread_compiler} does not exist")
        endif()
      endforeach()
      continue()
    endif()
    if(NOT CMAKE_${lang}_COMPILER_ID MATCHES "Clang|GNU")
      message(WARNING "spread_add_executable(${name}): the project's ${lang} compiler is ${CMAKE_${lang}_COMPILER_ID}; its flags must suit clang-19, which ${spread_compiler} runs")
    endif()
    set_property(TARGET ${name} PROPERTY ${lang}_COMPILER_LAUNCHER "${launcher}" "${spread_compiler}")
    if(CMAKE_VERSION VERSION_LESS 3.21)
      message(FATAL_ERROR "spread_add_executable(${name}): CMake ${CMAKE_VERSION} has no ${lang}_LINKER_LAUNCHER (3.21+); set CMAKE_${lang}_COMPILER to ${spread_compiler} (or use -DCMAKE_TOOLCHAIN_FILE=${toolchain}) instead")
    endif()
    set_property(TARGET ${name} PROPERTY ${lang}_LINKER_LAUNCHER "${launcher}" "${spread_compiler}")
  endforeach()
  target_link_libraries(${name} PRIVATE Spread::runtime)
endfunction()

unset(_spread_f)
unset(_spread_missing)
unset(_spread_hint)
unset(_spread_bin)
cmake_policy(POP)
