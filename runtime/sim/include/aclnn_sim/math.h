// Functions that semantics files' kernel expressions call where one C++ operator does not say
// what PyTorch (and the device) compute: the same formula for every compute type (float, double,
// int64_t), with integer arithmetic that is defined for every input (a zero divisor, INT64_MIN
// / -1: no undefined behaviour, the simulator runs under UBSan) and floating arithmetic that
// follows PyTorch's CPU kernels (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp) operation for
// operation, so that results are bit for bit PyTorch's where its own are exact.
//
// Every function is a template on the compute type T; `if constexpr` keeps the integral branch
// out of the floating instantiation and the other way round.
#ifndef ACLNN_SIM_MATH_H_
#define ACLNN_SIM_MATH_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace aclsim {

template <typename T>
inline constexpr bool kIntegral = std::is_integral<T>::value;

// |x| clearing the sign bit, as torch.abs: -0.0 and -NaN give +0.0 and +NaN (a comparison would
// let -NaN through). Integers wrap at the minimum, as PyTorch's do (-fwrapv).
template <typename T>
T Abs(T x) {
  if constexpr (kIntegral<T>) {
    return x < 0 ? T(T(0) - x) : x;
  } else {
    return std::fabs(x);
  }
}

// NaN in, NaN out (torch.maximum/minimum propagate NaN; std::max would not).
template <typename T>
T Maximum(T a, T b) {
  if constexpr (!kIntegral<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}

template <typename T>
T Minimum(T a, T b) {
  if constexpr (!kIntegral<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// A scalar the caller may pass as a null pointer (aclnnClamp's bounds: the page refuses only both
// null). A kernel can bound by it and nothing else: absent, the bound leaves the value as it is; any
// other use does not compile, so a kernel never computes with a value no one passed.
template <typename T>
struct OptionalScalar {
  bool present;
  T value;
};

template <typename T>
T Maximum(T a, OptionalScalar<T> b) {
  return b.present ? Maximum(a, b.value) : a;
}

template <typename T>
T Minimum(T a, OptionalScalar<T> b) {
  return b.present ? Minimum(a, b.value) : a;
}

// C's remainder with the sign of the dividend (torch.fmod). An integral zero divisor gives 0
// (PyTorch raises ZeroDivisionError on the CPU; a device answers something): never a trap.
template <typename T>
T Fmod(T a, T b) {
  if constexpr (kIntegral<T>) {
    if (b == 0 || b == -1) return 0;  // x % -1 is 0; INT64_MIN % -1 would trap
    return a % b;
  } else {
    return std::fmod(a, b);
  }
}

// Python's remainder, with the sign of the divisor (torch.remainder).
template <typename T>
T Remainder(T a, T b) {
  if constexpr (kIntegral<T>) {
    if (b == 0 || b == -1) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    T r = std::fmod(a, b);
    if (r != 0 && ((b < 0) != (r < 0))) r += b;
    return r;
  }
}

// Python's floor division (torch.floor_divide), as aten's div_floor: exact for integers (INT64_MIN
// // -1 wraps, a zero divisor gives 0), and for floating values the quotient of the exact
// difference a - fmod(a, b), rounded to the nearest integer so that it is not one off.
template <typename T>
T FloorDivide(T a, T b) {
  if constexpr (kIntegral<T>) {
    if (b == 0) return 0;
    if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
  } else {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += T(1);
    return floor_div;
  }
}

// a to the power b; integers by repeated squaring, wrapping as the device's integers do (a negative
// exponent gives 0 except for bases 1 and -1, as PyTorch's integer pow).
template <typename T>
T Pow(T a, T b) {
  if constexpr (kIntegral<T>) {
    using U = std::make_unsigned_t<T>;
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;
    }
    U result = 1, base = static_cast<U>(a);
    for (T e = b; e != 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  } else {
    return std::pow(a, b);
  }
}

// x * log(y), 0 where x is 0 (unless y is NaN): torch.xlogy.
template <typename T>
T Xlogy(T x, T y) {
  if (y != y) return y;
  if (x == 0) return T(0);
  return x * std::log(y);
}

// x * log1p(y), 0 where x is 0 (unless y is NaN): torch.special.xlog1py.
template <typename T>
T Xlog1py(T x, T y) {
  if (y != y) return y;
  if (x == 0) return T(0);
  return x * std::log1p(y);
}

// log(exp(a) + exp(b)) without overflow: torch.logaddexp.
template <typename T>
T LogAddExp(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  const T m = Maximum(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// log2(2^a + 2^b): torch.logaddexp2.
template <typename T>
T LogAddExp2(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  const T m = Maximum(a, b);
  constexpr T kInvLn2 = T(1.44269504088896340735992468100189214);
  return m + std::log1p(std::exp2(-std::abs(a - b))) * kInvLn2;
}

// self + weight * (end - self), from the nearer end, in one fused multiply-add as PyTorch's
// vectorised kernel (lerp_vec: fmadd(coeff, end - self, base)): the product is not rounded, so
// that (end - self) * (1 - weight) does not overflow where the result does not.
template <typename T>
T Lerp(T self, T end, T weight) {
  const bool small = std::abs(weight) < T(0.5);
  return std::fma(small ? weight : weight - T(1), end - self, small ? self : end);
}

// a + alpha * b (torch.add; torch.sub is a + (-alpha) * b): integers wrap; floating values in one
// fused multiply-add, as PyTorch's vectorised kernel (fmadd(b, alpha, a)): -8.5e37 + 1.2 * 3.4e38
// is 3.2e38, not the infinity of a rounded product.
template <typename T>
T AddScaled(T a, T alpha, T b) {
  if constexpr (kIntegral<T>) {
    return a + alpha * b;
  } else {
    return std::fma(alpha, b, a);
  }
}

// torch's _add_relu (aten add_clamp_kernel): a + alpha * b clamped to [0, the largest finite
// value] by comparisons, the lower bound first (std::max(0, r), then std::min(max, r)): NaN gives
// 0, not NaN as a relu of the sum would, and +inf the largest finite value.
template <typename T>
T AddRelu(T a, T alpha, T b) {
  T r = AddScaled(a, alpha, b);
  r = T(0) < r ? r : T(0);
  if constexpr (!kIntegral<T>) r = r < std::numeric_limits<T>::max() ? r : std::numeric_limits<T>::max();
  return r;
}

// self + value * t1 * t2 (torch.addcmul): integers wrap; floating values in one fused
// multiply-add, fma(value * t1, t2, self), as PyTorch's kernel is compiled (an overflowing
// product that the sum brings back is not inf).
template <typename T>
T Addcmul(T self, T value, T t1, T t2) {
  if constexpr (kIntegral<T>) {
    return self + value * t1 * t2;
  } else {
    return std::fma(value * t1, t2, self);
  }
}

template <typename T>
T IsFinite(T x) {
  if constexpr (kIntegral<T>) return T(1);
  else return std::isfinite(x) ? T(1) : T(0);
}

template <typename T>
T IsInf(T x) {
  if constexpr (kIntegral<T>) return T(0);
  else return std::isinf(x) ? T(1) : T(0);
}

// The sign bit, also of -0.0 and -NaN. Through copysign, not std::signbit: GCC 12 at -O3 fails
// with an internal compiler error ("unrecognizable insn", a V8SI shift of a V8SF subreg) when it
// vectorises std::signbit of floats widened from BFLOAT16 lanes (make corpus, aclnnSignbit).
template <typename T>
T Signbit(T x) {
  if constexpr (kIntegral<T>) return x < 0 ? T(1) : T(0);
  else return std::copysign(T(1), x) < T(0) ? T(1) : T(0);
}

// -1, 0 or 1 (NaN gives 0, as torch.sign).
template <typename T>
T Sign(T x) {
  return T((T(0) < x) - (x < T(0)));
}

// The inverse of erf (torch.erfinv), which the C library lacks: Giles' single-precision
// approximation ("Approximating the erfinv function", GPU Computing Gems, 2011), then two Newton
// steps on erf(x) - y in the compute type, as PyTorch's calc_erfinv corrects its own first guess;
// the approximation alone is 4e-7 relative, too coarse for DOUBLE. y = +-1 gives +-inf, |y| > 1
// and NaN give NaN.
template <typename T>
T Erfinv(T y) {
  if (y != y || std::fabs(y) > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (std::fabs(y) == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  double w = -std::log((1.0 - double(y)) * (1.0 + double(y)));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941}) {
      p = c + p * w;
    }
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682}) {
      p = c + p * w;
    }
  }
  T x = T(p * double(y));
  const T two_over_sqrt_pi = T(1.12837916709551257390);
  for (int step = 0; step < 2; ++step) {
    x -= (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  }
  return x;
}

// Bitwise and, or, xor of integers (BOOL's 0 and 1 give the logical operation). Their pages list
// integral and BOOL tensors only, which phase 1 holds them to; the floating instantiations every
// kernel gets are never called, and give NaN rather than a value that looks computed.
template <typename T>
T BitwiseAnd(T a, T b) {
  if constexpr (kIntegral<T>) return a & b;
  else return std::numeric_limits<T>::quiet_NaN();
}

template <typename T>
T BitwiseOr(T a, T b) {
  if constexpr (kIntegral<T>) return a | b;
  else return std::numeric_limits<T>::quiet_NaN();
}

template <typename T>
T BitwiseXor(T a, T b) {
  if constexpr (kIntegral<T>) return a ^ b;
  else return std::numeric_limits<T>::quiet_NaN();
}

// ~x of an integer; of BOOL (0 or 1 in the integral compute type) the logical not, which ~ is
// not (~1 is -2, stored as true). Floating instantiations: as BitwiseAnd's.
template <typename T>
T BitwiseNot(T x, bool is_bool) {
  if constexpr (kIntegral<T>) return is_bool ? T(x == 0) : T(~x);
  else return std::numeric_limits<T>::quiet_NaN();
}

// floor/ceil/trunc/round of an integer is the integer itself; of a floating value, `fn`'s.
template <typename T, typename Fn>
T Rounded(T x, Fn fn) {
  if constexpr (kIntegral<T>) return x;
  else return fn(x);
}

template <typename T> T Floor(T x) { return Rounded(x, [](T v) { return std::floor(v); }); }
template <typename T> T Ceil(T x) { return Rounded(x, [](T v) { return std::ceil(v); }); }
template <typename T> T Trunc(T x) { return Rounded(x, [](T v) { return std::trunc(v); }); }
// Half to even, as torch.round.
template <typename T> T Round(T x) { return Rounded(x, [](T v) { return std::nearbyint(v); }); }

// a / b rounded as aclnnDivMod's mode says: 0 the true quotient, 1 towards zero (torch.div's
// rounding_mode='trunc': trunc(a / b), as aten's div_trunc), 2 towards minus infinity ('floor',
// FloorDivide). Integers: a zero divisor gives 0 and INT64_MIN / -1 wraps, never a trap (PyTorch
// raises ZeroDivisionError); their mode 0 is refused in phase 1 (a semantics check).
template <typename T>
T DivRounded(T a, T b, int64_t mode) {
  if (mode == 2) return FloorDivide(a, b);
  if constexpr (kIntegral<T>) {
    if (b == 0) return 0;
    if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));
    return a / b;
  } else {
    return mode == 1 ? std::trunc(a / b) : a / b;
  }
}

// The greatest common divisor of |a| and |b| (torch.gcd: gcd(0, 0) is 0; |INT64_MIN| wraps to
// itself, as PyTorch's abs does). Floating instantiations: as BitwiseAnd's.
template <typename T>
T Gcd(T a, T b) {
  if constexpr (kIntegral<T>) {
    using U = std::make_unsigned_t<T>;
    U x = a < 0 ? U(0) - U(a) : U(a);
    U y = b < 0 ? U(0) - U(b) : U(b);
    while (y != 0) {
      const U r = x % y;
      x = y;
      y = r;
    }
    return static_cast<T>(x);
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

// a << b and a >> b in the 64-bit integral compute type, as PyTorch's bitwise shifts: a count
// that is negative or past the width shifts everything out (0; a right shift keeps the sign:
// a >> 63). The result stored in a narrower dtype is the narrow shift's (the bits shifted past
// its width are the ones the store drops, and a right shift of a value that fits is the same).
// `logical`: a UINT64 operand, whose values past INT64_MAX the compute type holds as negatives.
template <typename T>
T ShiftLeft(T a, T b) {
  if constexpr (kIntegral<T>) {
    using U = std::make_unsigned_t<T>;
    if (b < 0 || b >= T(8 * sizeof(T))) return 0;
    return static_cast<T>(static_cast<U>(a) << b);
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

template <typename T>
T ShiftRight(T a, T b, bool logical) {
  if constexpr (kIntegral<T>) {
    using U = std::make_unsigned_t<T>;
    constexpr T kWidth = T(8 * sizeof(T));
    if (logical) return (b < 0 || b >= kWidth) ? T(0) : static_cast<T>(static_cast<U>(a) >> b);
    return a >> ((b < 0 || b >= kWidth) ? kWidth - 1 : b);
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

// x rounded half to even at `decimals` digits after the point (before it when negative), as
// aten's round_decimals: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d. Integers are
// themselves (their nonzero decimals are refused in phase 1: a semantics check).
template <typename T>
T RoundDecimals(T x, int64_t decimals) {
  if constexpr (kIntegral<T>) {
    return x;
  } else {
    const T ten_pow = static_cast<T>(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)));
    return decimals < 0 ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow;
  }
}

// torch.isclose: a equals b, or both NaN with equal_nan, or |a - b| finite and at most
// atol + |rtol * b| (computed in the compute type, as PyTorch computes it in the tensors' dtype).
template <typename T>
T IsClose(T a, T b, double rtol, double atol, bool equal_nan) {
  if (a == b) return T(1);
  if constexpr (!kIntegral<T>) {
    if (equal_nan && a != a && b != b) return T(1);
  }
  if (rtol == 0 && atol == 0) return T(0);
  const T actual = Abs(a - b);
  const T allowed = static_cast<T>(atol) + Abs(static_cast<T>(rtol) * b);
  return T(IsFinite(actual) != T(0) && actual <= allowed);
}

// erf(x), inlined so that a loop over it vectorises without a call: GELU's erf form (aclnnGeluV2,
// aclnnGeluBackward, the families' gelu) spent most of its time in libmvec's erff, a call per vector
// (ATen inlines its own erf the same way). Float: a rational minimax fit, erf(a) = a P(a^2) / Q(a^2)
// on [0, 3.92] (beyond 3.92 erf rounds to 1), P and Q of degree 5 with positive coefficients (so
// neither cancels), fitted in float64 to 1.9e-8 relative error. Evaluated in float, its error against
// erf in float64 is at most 6.0 ulp over every float32 with FMA (the AVX2 and AVX-512 paths), 6.4
// without (the baseline path): 3.9 ulp below 0.5, an absolute 3.6e-7 near +-1, where the Horner
// steps' roundings add up (libmvec's erff: 4 ulp; ATen's: an absolute 1.5e-7); the simulator's C++
// tests check a dense sample (TestErf). NaN gives NaN, +-inf +-1, -0 -0. 16 float operations and a
// division, branch-free: in a gelu loop (one core of this Sapphire Rapids, 64K floats) 0.25 ns an
// element in 16 lanes and 0.44 in 8, against 0.59 and 0.63 with libmvec's erff; in SSE2 without
// FMA 1.17 against 1.03 (libmvec's SSE4.1 variant): the baseline path pays ~15% on this routine.
// Double keeps the library's erf (within 1 ulp).
template <typename T>
inline T Erf(T x) {
  if constexpr (std::is_same<T, float>::value) {
    const float a = std::fabs(x);
    const float c = a > 3.92f ? 3.92f : a;  // a NaN stays NaN (the comparison is false)
    const float s = c * c;
    const float p =
        ((((2.0502935613619485e-06f * s + 2.8486839355311905e-04f) * s + 3.7647753518264175e-03f) * s +
          5.274610438332794e-02f) * s + 1.9038618542186636e-01f) * s + 1.128379146364994f;
    const float q =
        ((((3.8093128450187704e-05f * s + 1.1623409648211366e-03f) * s + 1.4967513852261086e-02f) * s +
          1.1410078855090455e-01f) * s + 5.02058107770787e-01f) * s + 1.0f;
    const float r = c * p / q;
    return std::copysign(r > 1.0f ? 1.0f : r, x);
  } else {
    return std::erf(x);
  }
}

// The derivative of GELU times dy: the exact (erf) form, or the tanh approximation's, as aten's
// gelu_backward computes each.
template <typename T>
T GeluGrad(T dy, T x, bool tanh_form) {
  if (tanh_form) {
    const T beta = T(0.79788456080286535588);  // sqrt(2 / pi)
    const T kappa = T(0.044715);
    const T tanh_inner = std::tanh(beta * (x + kappa * x * x * x));
    const T left_derivative = T(0.5) * (T(1) + tanh_inner);
    const T right_derivative = T(0.5) * x * (T(1) - tanh_inner * tanh_inner) * beta * (T(1) + T(3) * kappa * x * x);
    return dy * (left_derivative + right_derivative);
  }
  const T cdf = T(0.5) * (T(1) + Erf(x * T(0.70710678118654752440)));
  const T pdf = std::exp(T(-0.5) * x * x) * T(0.39894228040143267794);  // 1 / sqrt(2 pi)
  return dy * (cdf + x * pdf);
}

// dy times the derivative of log(sigmoid(x)), 1 / (1 + e^x), as aten's log_sigmoid_backward
// computes it without overflow: from z = e^-|x|.
template <typename T>
T LogSigmoidGrad(T dy, T x) {
  const T z = std::exp(-Abs(x));
  return x < T(0) ? dy * (T(1) - z / (T(1) + z)) : dy * (z / (T(1) + z));
}

// `value` wherever `self` is: a fill's kernel names the filled tensor so that it, not the one
// value broadcast, is the output's shape.
template <typename T>
T Filled(T /*self*/, T value) {
  return value;
}

// A truth value as the kernel's 0 or 1 (comparisons and logical operators, whose result is BOOL).
template <typename T>
T Truth(bool value) {
  return value ? T(1) : T(0);
}

// The digamma function psi(x), as PyTorch's CPU kernel (calc_digamma): the reflection formula below
// zero (poles at the non-positive integers, -inf/+inf at -0/+0), the recurrence up to 10, then
// the asymptotic series; computed in double whatever T.
template <typename T>
T Digamma(T v) {
  double x = static_cast<double>(v);
  if (x == 0) return static_cast<T>(std::copysign(INFINITY, -x));
  if (x < 0) {
    if (x == std::trunc(x)) return static_cast<T>(NAN);
    double q;
    double r = std::modf(x, &q);
    const double pi = 3.14159265358979323846;
    return static_cast<T>(static_cast<double>(Digamma(1 - x)) - pi / std::tan(pi * r));
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return static_cast<T>(result + 2.25175258906672110764);
  static const double kA[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                              8.33333333333333333333E-2};
  double y = 0;
  if (x < 1.0e17) {
    double z = 1.0 / (x * x);
    double p = kA[0];
    for (int i = 1; i < 7; ++i) p = p * z + kA[i];
    y = z * p;
  }
  return static_cast<T>(result + std::log(x) - (0.5 / x) - y);
}

// The complex number re + im * i of two real parts (the values' real parts: result = "complex"
// computes aclnnComplex's real inputs in complex arithmetic); a real computation never reaches it
// (the result rule makes it complex) and gets re.
template <typename T>
struct IsStdComplex : std::false_type {};
template <typename Part>
struct IsStdComplex<std::complex<Part>> : std::true_type {};

template <typename T>
T MakeComplex(T re, T im) {
  if constexpr (IsStdComplex<T>::value) {
    return T(std::real(re), std::real(im));
  } else {
    (void)im;
    return re;
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_MATH_H_
