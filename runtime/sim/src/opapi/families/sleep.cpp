// The sleep family: aclnnSleep (torch.npu._sleep) holds its stream for `cycles` device clock cycles,
// as the device's busy-spin on its SYS_CNT counter does: the stream's worker waits cycles / 1.65 GHz
// (the page's Ascend 950 clock) before the stream runs its next work, so that work queued behind it
// waits and an event recorded after it completes later, which is what frameworks' stream tests use it
// for. cycles must be positive (the page's 561002); a sleep past the AICore timeout (18 minutes, the
// page's 1.782e12 cycles) faults at once, naming it, where the device would time out.
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "opapi/families/family.h"

namespace aclsim {
namespace {

constexpr double kCyclesPerSecond = 1.65e9;
constexpr double kTimeoutSeconds = 18 * 60;

class SleepWork final : public ExecutorWork {
 public:
  SleepWork(const char* api, int64_t cycles) : api_(api), cycles_(cycles) {}

  aclnnStatus Run(aclrtStream) override {
    const double seconds = static_cast<double>(cycles_) / kCyclesPerSecond;
    if (seconds > kTimeoutSeconds) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": cycles " + std::to_string(cycles_) +
                                       " outlast the AICore timeout of 18 minutes at 1.65 GHz (the device times out)");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return ACLNN_SUCCESS;
  }

 private:
  const char* api_;
  int64_t cycles_;
};

}  // namespace

aclnnStatus PlanSleep(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int64_t cycles = RoleInt(call, family, SleepFamily::Role::kCycles, 0);
  if (cycles <= 0) {
    return RejectParam(call, family, SleepFamily::Role::kCycles, ACLNN_ERR_INNER_TILING_ERROR,
                       std::to_string(cycles) + " is not positive");
  }
  *work = new SleepWork(call.spec.name, cycles);
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
