// The chips the simulator can stand in for, by the SoC names CANN uses (gen.ir.Soc, same order).
// The generated op entries index per-chip facts of their pages by this enum.
#ifndef ACLNN_SIM_SOC_H_
#define ACLNN_SIM_SOC_H_

#include <cstdint>

namespace aclsim {

enum class Soc : uint8_t {
  kAscend950,     // Ascend 950PR/Ascend 950DT
  kAscend910_93,  // Atlas A3 训练系列产品/Atlas A3 推理系列产品
  kAscend910B,    // Atlas A2 训练系列产品/Atlas 800I A2 推理产品/... (the default)
  kAscend910,     // Atlas 训练系列产品
  kAscend310P,    // Atlas 推理系列产品
  kAscend310B,    // Atlas 200I/500 A2 推理产品
  kKirinX90,      // Kirin X90 处理器系列产品
  kKirin9030,     // Kirin 9030 处理器系列产品
};

inline constexpr int kSocCount = 8;

inline constexpr const char* kSocNames[kSocCount] = {
    "Ascend950", "Ascend910_93", "Ascend910B", "Ascend910", "Ascend310P", "Ascend310B", "KirinX90", "Kirin9030",
};

inline const char* SocName(Soc soc) { return kSocNames[static_cast<int>(soc)]; }

}  // namespace aclsim

#endif  // ACLNN_SIM_SOC_H_
