"""Student's t and the normal distribution without scipy: CDF, two-sided p-values, quantiles.

The t CDF is the regularized incomplete beta function I_x(df/2, 1/2) at x = df / (df + t²),
computed by its continued fraction (modified Lentz, as in Numerical Recipes §6.4); the
quantile inverts it by Newton's method inside a bracket that bisection keeps honest. Tests
check both against scipy for df 1..1000, fractional df (Welch) and up to 1e9 (~1e-10 relative).
Beyond ``ASYMPTOTIC_DF`` degrees of freedom (where the continued fraction slows down)
both come from the normal distribution through the Cornish–Fisher expansion in 1/df.
"""

from __future__ import annotations

import functools
import math

# Above this many degrees of freedom, the normal distribution with the Cornish–Fisher
# expansion to 1/df²: its error (~4e-11 relative at 1e6, falling as 1/df³) is then below the
# continued fraction's (~2e-11 at 1e6, growing with df).
ASYMPTOTIC_DF = 1e6

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITERATIONS = 20_000


def _check_df(df: float) -> None:
    if not df > 0:  # NaN fails too; +inf is the normal distribution
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")


def betainc(a: float, b: float, x: float, y: float | None = None) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1.

    ``y`` is 1 − x when the caller knows it more precisely than ``1 - x`` would give.
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"betainc needs a, b > 0, got a={a!r}, b={b!r}")
    if math.isnan(x) or not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc needs 0 <= x <= 1, got {x!r}")
    y = 1.0 - x if y is None else y
    if x == 0.0:
        return 0.0
    if y == 0.0:
        return 1.0
    # ln x from y when x is near 1: with a large a, a * ln x would magnify x's rounding.
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def _log_beta(a: float, b: float) -> float:
    """ln B(a, b); for the t distribution's b = 1/2 and large a without lgamma's cancellation."""
    if b == 0.5 and a >= 100.0:
        return _LGAMMA_HALF - _log_gamma_ratio_half(a)
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


_LGAMMA_HALF = math.lgamma(0.5)


def _log_gamma_ratio_half(a: float) -> float:
    """ln(Γ(a + 1/2) / Γ(a)); by its asymptotic series from a = 100 (error < 1e-14)."""
    if a < 100.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    inv = 1.0 / a
    inv2 = inv * inv
    return 0.5 * math.log(a) - inv / 8.0 + inv * inv2 * (1.0 / 192.0 + inv2 / 640.0)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITERATIONS):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def norm_cdf(z: float) -> float:
    """The standard normal CDF."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def norm_sf(z: float) -> float:
    """The standard normal survival function 1 − CDF (precise in the upper tail)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def norm_pdf(z: float) -> float:
    """The standard normal density."""
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


# Acklam's rational approximation of the normal quantile (relative error < 1.2e-9), refined
# by one Halley step on erfc below.
_A = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
      -30.66479806614716, 2.506628277459239)  # fmt: skip
_B = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
      -13.28068155288572)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996, 3.754408661907416)


def norm_ppf(q: float) -> float:
    """The standard normal quantile: z with CDF(z) = q, for 0 < q < 1."""
    if math.isnan(q) or not 0.0 < q < 1.0:
        raise ValueError(f"a quantile needs 0 < q < 1, got {q!r}")
    low = 0.02425
    if q < low:
        r = math.sqrt(-2.0 * math.log(q))
        z = _tail(r)
    elif q > 1.0 - low:
        r = math.sqrt(-2.0 * math.log1p(-q))
        z = -_tail(r)
    else:
        r = q - 0.5
        s = r * r
        num = (((((_A[0] * s + _A[1]) * s + _A[2]) * s + _A[3]) * s + _A[4]) * s + _A[5]) * r
        den = ((((_B[0] * s + _B[1]) * s + _B[2]) * s + _B[3]) * s + _B[4]) * s + 1.0
        z = num / den
    # One Halley step against the exact CDF.
    err = norm_cdf(z) - q
    u = err * math.sqrt(2.0 * math.pi) * math.exp(0.5 * z * z)
    return z - u / (1.0 + 0.5 * z * u)


def _tail(r: float) -> float:
    num = ((((_C[0] * r + _C[1]) * r + _C[2]) * r + _C[3]) * r + _C[4]) * r + _C[5]
    den = (((_D[0] * r + _D[1]) * r + _D[2]) * r + _D[3]) * r + 1.0
    return num / den


def t_pdf(t: float, df: float) -> float:
    """Student's t density with ``df`` degrees of freedom."""
    _check_df(df)
    if df > ASYMPTOTIC_DF:
        return norm_pdf(_z_of_t(t, df))
    log_norm = _log_gamma_ratio_half(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def _z_of_t(t: float, df: float) -> float:
    """The normal deviate with the tail of t (the inverse Cornish–Fisher expansion, large df).

    Past |t| = 1000 the tail is below 1e-300 for any df > ``ASYMPTOTIC_DF``: ±inf stands in.
    """
    if abs(t) > 1e3:
        return math.copysign(math.inf, t)
    return t - (t**3 + t) / (4.0 * df) + (13 * t**5 + 8 * t**3 + 3 * t) / (96.0 * df * df)


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| ≥ |t|) for Student's t with ``df`` degrees of freedom (a two-sided p-value)."""
    _check_df(df)
    if math.isnan(t):
        raise ValueError("t is NaN")
    if math.isinf(t):
        return 0.0
    if df > ASYMPTOTIC_DF:
        return 2.0 * norm_sf(abs(_z_of_t(t, df)))
    t2 = t * t
    if t2 == 0.0:
        return 1.0
    return betainc(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))


def t_sf(t: float, df: float) -> float:
    """P(T > t): the upper tail of Student's t."""
    half = 0.5 * t_two_sided_p(t, df)
    return half if t >= 0 else 1.0 - half


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t): Student's t cumulative distribution function."""
    half = 0.5 * t_two_sided_p(t, df)
    return 1.0 - half if t >= 0 else half


def t_ppf(q: float, df: float) -> float:
    """The quantile of Student's t: the t with CDF(t) = q, for 0 < q < 1."""
    _check_df(df)
    if math.isnan(q) or not 0.0 < q < 1.0:
        raise ValueError(f"a quantile needs 0 < q < 1, got {q!r}")
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -_t_isf(q, df)
    return _t_isf(1.0 - q, df)


def _t_isf(p: float, df: float) -> float:
    """The t > 0 whose upper tail P(T > t) is ``p`` (0 < p < 0.5)."""
    z = -norm_ppf(p)
    guess = z + (z**3 + z) / (4.0 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96.0 * df * df)
    if df > ASYMPTOTIC_DF:
        return guess
    # The Cornish–Fisher value starts Newton; the bracket [lo, hi] has sf(lo) ≥ p ≥ sf(hi).
    lo, hi = 0.0, max(guess, z, 1e-3)
    while t_sf(hi, df) > p:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    t = min(max(guess, lo), hi)
    for _ in range(200):
        f = t_sf(t, df) - p  # decreasing in t
        if f > 0:
            lo = t
        else:
            hi = t
        step = f / t_pdf(t, df)  # Newton: t_new = t - (sf - p) / (-pdf)
        candidate = t + step
        if not lo < candidate < hi:
            candidate = 0.5 * (lo + hi)
        if abs(candidate - t) <= 1e-15 * max(1.0, abs(t)) or hi - lo <= 1e-15 * hi:
            return candidate
        t = candidate
    return t


@functools.lru_cache(maxsize=1024)
def t_critical(confidence: float, df: float) -> float:
    """The two-sided critical value: t such that P(|T| ≤ t) = ``confidence`` (cached: a
    campaign's grid asks for the same few values once per cell)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"a confidence level needs 0 < level < 1, got {confidence!r}")
    return _t_isf((1.0 - confidence) / 2.0, df)
