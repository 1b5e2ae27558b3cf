#pragma once
// Grow-only float storage viewed as a (rows, cols) row-major matrix. A forward pass asks
// for the same shapes again and again, so after the first call nothing is allocated (or
// touched for the first time: ~10 µs per 4 KiB page on these VMs). 64-byte aligned, as every
// Eigen heap allocation (EIGEN_MAX_ALIGN_BYTES=64, core/CMakeLists.txt). Use one per
// thread (thread_local), never shared.
#include "core/tensor.h"

namespace hs {

class Scratch {
public:
    Eigen::Map<Matrix> get(Eigen::Index rows, Eigen::Index cols) {
        if (data_.size() < rows * cols) data_.resize(rows * cols);
        return Eigen::Map<Matrix>(data_.data(), rows, cols);
    }

private:
    Eigen::VectorXf data_;
};

}  // namespace hs
