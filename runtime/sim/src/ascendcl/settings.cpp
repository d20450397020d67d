// libascendcl: the simulator's settings (see ascendcl/settings.h).
#include "ascendcl/settings.h"

#include "aclnn_sim.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace aclsim {
namespace {

constexpr int kMaxThreads = 256;

bool Digits(const std::string& text) {
  return !text.empty() && text.size() <= 19 && text.find_first_not_of("0123456789") == std::string::npos;
}

// "0"/"1" (or unset/empty: `fallback`).
bool ReadFlag(const char* name, bool fallback, std::string* error) {
  const char* value = std::getenv(name);
  if (!value || !*value) return fallback;
  const std::string text = value;
  if (text == "0" || text == "1") return text == "1";
  if (error->empty()) *error = std::string(name) + "=" + text + " is not 0 or 1";
  return fallback;
}

// Bytes: digits with an optional K, M, G or T (powers of 1024; "KiB", "KB" and lower case too).
bool ParseSize(const std::string& text, uint64_t* bytes) {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  const std::string number = text.substr(0, end);
  std::string suffix = text.substr(end);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!Digits(number)) return false;
  int shift = 0;
  if (!suffix.empty()) {
    const std::string units = "KMGT";
    const size_t unit = units.find(suffix[0]);
    const std::string rest = suffix.substr(1);
    if (unit == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) return false;
    shift = 10 * static_cast<int>(unit + 1);
  }
  const uint64_t value = std::strtoull(number.c_str(), nullptr, 10);
  if (value == 0 || (shift && value > (~uint64_t{0} >> shift))) return false;
  *bytes = value << shift;
  return true;
}

void ReadFaults(SimSettings* s) {
  const char* value = std::getenv("ACLNN_SIM_FAULT");
  if (!value || !*value) return;
  const std::string text = value;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = item.find(':');
    auto target = std::make_unique<FaultTarget>();
    target->api = item.substr(0, colon);
    const bool named = target->api.size() > 5 && target->api.compare(0, 5, "aclnn") == 0 &&
                       target->api.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                           std::string::npos;
    bool launch_ok = true;
    if (colon != std::string::npos) {
      const std::string launch = item.substr(colon + 1);
      launch_ok = Digits(launch) && (target->launch = std::strtoull(launch.c_str(), nullptr, 10)) >= 1;
    }
    if (!named || !launch_ok) {
      if (s->error.empty()) {
        s->error = "ACLNN_SIM_FAULT=" + text + ": '" + item +
                   "' is not aclnnXxx or aclnnXxx:N (N >= 1, the launch of that API that fails)";
      }
      s->faults.clear();
      return;
    }
    s->faults.push_back(std::move(target));
    if (comma == std::string::npos) return;
    start = comma + 1;
  }
}

SimSettings* Read() {
  auto* s = new SimSettings();
  s->synchronous = ReadFlag("ACLNN_SIM_SYNC", false, &s->error);
  s->log = ReadFlag("ACLNN_SIM_LOG", false, &s->error);
  s->onednn = ReadFlag("ACLNN_SIM_ONEDNN", true, &s->error);
  ReadFaults(s);
  if (const char* value = std::getenv("ACLNN_SIM_DEVICE_MEMORY"); value && *value) {
    uint64_t bytes = 0;
    if (ParseSize(value, &bytes)) {
      s->device_memory = bytes;
    } else if (s->error.empty()) {
      s->error = std::string("ACLNN_SIM_DEVICE_MEMORY=") + value +
                 " is not a positive size in bytes (digits, optionally with K, M, G or T: 16G, 512M)";
    }
  }
  if (const char* value = std::getenv("ACLNN_SIM_THREADS"); value && *value) {
    const std::string text = value;
    const long threads = Digits(text) ? std::strtol(text.c_str(), nullptr, 10) : 0;
    if (threads >= 1 && threads <= kMaxThreads) {
      s->threads = static_cast<int>(threads);
    } else if (s->error.empty()) {
      s->error = "ACLNN_SIM_THREADS=" + text + " is not a thread count in [1, " + std::to_string(kMaxThreads) + "]";
    }
  }
  if (const char* value = std::getenv("ACLNN_SIM_ISA"); value && *value) {
    const std::string text = value;
    if (text == "auto") s->isa = Isa::kAuto;
    else if (text == "baseline") s->isa = Isa::kBaseline;
    else if (text == "avx2") s->isa = Isa::kAvx2;
    else if (text == "avx512") s->isa = Isa::kAvx512;
    else if (s->error.empty()) s->error = "ACLNN_SIM_ISA=" + text + " is not auto, baseline, avx2 or avx512";
  }
  if (const char* value = std::getenv("ACLNN_SIM_STALL_MS"); value && *value) {
    const std::string text = value;
    constexpr int64_t kDay = 86400000;
    const int64_t ms = Digits(text) && text.size() <= 9 ? std::strtoll(text.c_str(), nullptr, 10) : 0;
    if (ms >= 1 && ms <= kDay) {
      s->stall_ms = ms;
    } else if (s->error.empty()) {
      s->error = "ACLNN_SIM_STALL_MS=" + text + " is not a number of milliseconds in [1, 86400000]";
    }
  }
  if (const char* value = std::getenv("ACLNN_SIM_CANN_VERSION"); value && *value) {
    if (CannVersionParts(value, nullptr)) s->cann_version = value;
    else if (s->error.empty()) {
      s->error = std::string("ACLNN_SIM_CANN_VERSION=") + value +
                 " is not a CANN release (major.minor.release[.patch], the release a number or RCn: 9.0.0, 8.3.RC1)";
    }
  }
  return s;
}

}  // namespace

bool CannVersionParts(const std::string& version, std::vector<std::string>* parts) {
  std::vector<std::string> split;
  size_t start = 0;
  for (size_t dot; (dot = version.find('.', start)) != std::string::npos; start = dot + 1) {
    split.push_back(version.substr(start, dot - start));
  }
  split.push_back(version.substr(start));
  if (split.size() < 3 || split.size() > 4 || !Digits(split[0]) || !Digits(split[1])) return false;
  const std::string& release = split[2];
  const bool candidate = release.size() > 2 && release.compare(0, 2, "RC") == 0 && Digits(release.substr(2));
  if (!Digits(release) && !candidate) return false;
  if (split.size() == 4 &&
      (split[3].empty() || split[3].find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") !=
                               std::string::npos)) {
    return false;
  }
  if (split.size() == 3) split.push_back("");
  if (parts) *parts = split;
  return true;
}

const SimSettings& Settings() {
  static const SimSettings* settings = Read();  // never destroyed: read by kernels during exit
  return *settings;
}

namespace {

// The widest path this CPU runs: AVX-512 (F, BW, VL, with the AVX2 set) or AVX2 with FMA and F16C.
Isa WidestPath() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl")) {
    return Isa::kAvx512;
  }
  return avx2 ? Isa::kAvx2 : Isa::kBaseline;
#else
  return Isa::kBaseline;
#endif
}

}  // namespace

Isa KernelPath() {
  static const Isa path = [] {
    const Isa widest = WidestPath(), asked = Settings().isa;
    if (asked == Isa::kAuto) return widest;
    return static_cast<int>(asked) <= static_cast<int>(widest) ? asked : widest;
  }();
  return path;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto: return "auto";
    case Isa::kBaseline: return "baseline";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
  }
  return "?";
}

namespace {

std::mutex g_engine_paths_mutex;
EnginePath* g_engine_paths = nullptr;  // every dispatch site registered so far, newest first

}  // namespace

EnginePath::EnginePath(const char* source, const char* variant) : source_(source), variant_(variant) {
  std::lock_guard<std::mutex> lock(g_engine_paths_mutex);
  next_ = g_engine_paths;
  g_engine_paths = this;
}

std::string EnginePath::Report() {
  std::map<std::string, std::string> taken;  // by engine name: sorted, one entry per engine
  {
    std::lock_guard<std::mutex> lock(g_engine_paths_mutex);
    for (const EnginePath* site = g_engine_paths; site; site = site->next_) {
      const Isa path = static_cast<Isa>(site->taken_.load(std::memory_order_relaxed));
      const char* route = site->route_.load(std::memory_order_relaxed);
      if (path == Isa::kAuto && route == nullptr) continue;
      const std::string took = route ? route : IsaName(path);
      std::string name = site->source_;
      name = name.substr(name.find_last_of('/') + 1);
      name = name.substr(0, name.find('.'));
      if (site->variant_) name += std::string(".") + site->variant_;
      std::string& entry = taken[name];
      // The sites of one engine all dispatch on KernelPath(): two names would be a defect, shown.
      if (entry.empty()) entry = took;
      else if (entry != took) entry += "+" + took;
    }
  }
  std::string text;
  for (const auto& [name, path] : taken) text += (text.empty() ? "" : ",") + name + "=" + path;
  return text;
}

}  // namespace aclsim

extern "C" __attribute__((visibility("default"))) const char* aclsimKernelPath(void) {
  return aclsim::IsaName(aclsim::KernelPath());
}

extern "C" __attribute__((visibility("default"))) const char* aclsimEnginePaths(void) {
  thread_local std::string text;
  text = aclsim::EnginePath::Report();
  return text.c_str();
}
