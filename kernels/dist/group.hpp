#pragma once
// One real-to-real transform of a 2-D or 3-D array over several GPUs of this process (core::dist::DeviceGroup;
// docs/distributed.md, "Several GPUs of one process"). Plain C++: app/registry.cpp makes it when CUDA is compiled in.
#include <functional>
#include <memory>
#include <vector>

#include "core/distributed.hpp"

namespace dct::cuda {

// Makes the plan of a local step on `device` (the caller binds the device and picks the backend); it must be a CUDA
// plan (kUnsupported otherwise).
using DevicePlanMaker = std::function<std::unique_ptr<core::Plan>(const core::TransformDesc& d, int device)>;

// `whole`: a kR2r descriptor of one 2-D or 3-D array (batch 1). Device devices[r] takes the part of rank r of
// devices.size() in core::dist::SlabTransform's decomposition: rows of axis 0 for the local step along axes 1 and 2,
// columns of axis 1 for axis 0. A device may be named twice (two parts on one GPU: the tests). Throws kUnsupported for
// more devices than rows of axis 0.
std::unique_ptr<core::dist::DeviceGroup> make_device_group(const core::TransformDesc& whole,
                                                           const std::vector<int>& devices,
                                                           const DevicePlanMaker& make);

}  // namespace dct::cuda
