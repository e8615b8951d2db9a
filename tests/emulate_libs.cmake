# The CUDA-free libdct_app / libdct_cpu / libdct_core the host emulators link (tests/CMakeLists.txt, emulate:*):
# cmake -DSRC=<source dir> -DBIN=<build dir> -DGEN=<generator> -P emulate_libs.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G ${GEN} -DCMAKE_BUILD_TYPE=Release
                        -DDCTOOL_ENABLE_CUDA=OFF -DDCTOOL_BUILD_TESTS=OFF
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the CUDA-free build in ${BIN} failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --target dct_app dct_cpu dct_core
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the CPU libraries in ${BIN} failed")
endif()
