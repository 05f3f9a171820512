# Cross-compiles the profiler for 64-bit Windows with Debian's mingw-w64, POSIX threads flavour
# (std::thread and std::mutex need it; the win32 flavour lacks them in GCC 12).
#   cmake -S native-profiler -B native-profiler/build-windows \
#         -DCMAKE_TOOLCHAIN_FILE=native-profiler/cmake/mingw-w64-x86_64.cmake
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CLRSCOPE_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${CLRSCOPE_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${CLRSCOPE_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${CLRSCOPE_MINGW_TRIPLE}-windres)

# Headers and libraries come from the mingw sysroot only, programs from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${CLRSCOPE_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
