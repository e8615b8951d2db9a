#pragma once
// <cuda_runtime.h> for the host emulators: the kernel headers that include it get the host stand-ins instead.
#include "../cuda_host.hpp"
