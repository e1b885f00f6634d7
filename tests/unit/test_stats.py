"""Statistics across repeats, checked against numpy and scipy references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairbench.analysis import tdist
from pairbench.analysis.outliers import (
    MAD_SCALE,
    OutlierMethod,
    OutlierPolicy,
    find_outliers,
)
from pairbench.analysis.stats import StatsError, describe, welch

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is the test reference")


# --- the t distribution ------------------------------------------------------------------

QUANTILES = (0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 1 - 1e-9, 0.025, 1e-6, 0.3)


@pytest.mark.parametrize("df", [*range(1, 31), 40, 50, 60, 80, 100, 120, 200, 500, 999, 1000])
def test_t_quantile_matches_scipy(df: int) -> None:
    for q in QUANTILES:
        expected = scipy_stats.t.ppf(q, df)
        assert tdist.t_ppf(q, df) == pytest.approx(expected, rel=1e-10, abs=1e-12), q


def test_t_quantile_every_df_up_to_1000() -> None:
    for df in range(1, 1001):
        assert tdist.t_critical(0.95, df) == pytest.approx(
            scipy_stats.t.ppf(0.975, df), rel=1e-10
        ), df


@pytest.mark.parametrize("df", [1.5, 2.7, 3.3, 17.25, 1234.5, 1e4, 1e5, 1e6, 2e6, 1e8, 1e9])
def test_t_quantile_fractional_and_huge_df(df: float) -> None:
    for q in QUANTILES:
        assert tdist.t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9), q


def test_t_quantile_of_infinite_df_is_normal() -> None:
    assert tdist.t_ppf(0.975, math.inf) == pytest.approx(scipy_stats.norm.ppf(0.975), rel=1e-12)
    assert tdist.norm_ppf(1e-10) == pytest.approx(scipy_stats.norm.ppf(1e-10), rel=1e-12)


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7.3, 10, 30, 100, 1000, 1e4, 1e6, 3e7])
def test_t_cdf_and_tails_match_scipy(df: float) -> None:
    for t in (-50.0, -3.0, -1.0, -1e-3, 0.0, 0.5, 2.0, 5.0, 30.0, 1e3):
        assert tdist.t_cdf(t, df) == pytest.approx(scipy_stats.t.cdf(t, df), rel=1e-9, abs=1e-15)
        assert tdist.t_sf(t, df) == pytest.approx(scipy_stats.t.sf(t, df), rel=1e-9, abs=1e-15)
        assert tdist.t_two_sided_p(t, df) == pytest.approx(
            2 * scipy_stats.t.sf(abs(t), df), rel=1e-9, abs=1e-15
        )


def test_t_cdf_of_one_df_is_cauchy_exactly() -> None:
    for t in (1e-8, 0.3, 1.0, 12.7, 1e6):
        assert tdist.t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, rel=1e-13)


def test_quantile_and_cdf_invert_each_other() -> None:
    for df in (1, 2, 5, 29.5, 300):
        for q in (0.01, 0.2, 0.7, 0.999):
            assert tdist.t_cdf(tdist.t_ppf(q, df), df) == pytest.approx(q, rel=1e-12)


def test_betainc_matches_scipy() -> None:
    special = pytest.importorskip("scipy.special")
    for a, b, x in ((0.5, 0.5, 0.3), (2.0, 3.0, 0.9), (50.0, 0.5, 0.999), (1e3, 2.5, 0.998)):
        assert tdist.betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-12)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        tdist.t_ppf(1.0, 3)
    with pytest.raises(ValueError):
        tdist.t_ppf(0.5, 0)
    with pytest.raises(ValueError):
        tdist.t_cdf(1.0, math.nan)
    with pytest.raises(ValueError):
        tdist.t_critical(95, 3)


# --- describe ----------------------------------------------------------------------------


def _reference(values: list[float], level: float = 0.95) -> tuple[float, float, float, float]:
    x = np.asarray(values)
    mean, sd = float(np.mean(x)), float(np.std(x, ddof=1))
    low, high = scipy_stats.t.interval(level, len(x) - 1, loc=mean, scale=sd / math.sqrt(len(x)))
    return mean, sd, float(low), float(high)


@pytest.mark.parametrize(
    "values",
    [
        [9.41e9, 9.38e9],  # n = 2
        [71.45, 70.79, 72.1],
        [5015.0, 4999.0, 4992.0, 4989.0, 5000.0, 4989.0, 4990.0],
        list(np.random.default_rng(7).normal(100.0, 15.0, 40)),
    ],
)
def test_describe_matches_numpy_and_scipy(values: list[float]) -> None:
    st = describe(values)
    mean, sd, low, high = _reference(values)
    assert st.n == len(values)
    assert st.mean == pytest.approx(mean, rel=1e-14)
    assert st.median == pytest.approx(float(np.median(values)), rel=1e-14)
    assert st.stddev == pytest.approx(sd, rel=1e-12)
    assert st.cv == pytest.approx(sd / abs(mean), rel=1e-12)
    assert st.ci is not None
    assert st.ci.low == pytest.approx(low, rel=1e-10)
    assert st.ci.high == pytest.approx(high, rel=1e-10)
    assert st.ci.level == 0.95
    assert (st.minimum, st.maximum) == (min(values), max(values))


def test_describe_other_confidence_levels() -> None:
    values = [3.0, 4.5, 4.0, 5.5, 3.5]
    st = describe(values, confidence=0.99)
    _, _, low, high = _reference(values, 0.99)
    assert st.ci is not None
    assert (st.ci.low, st.ci.high) == (pytest.approx(low), pytest.approx(high))


def test_one_run_has_no_spread_and_no_interval() -> None:
    st = describe([9.79e9])
    assert (st.n, st.mean, st.median, st.minimum, st.maximum) == (1, 9.79e9, 9.79e9, 9.79e9, 9.79e9)
    assert st.stddev is None and st.cv is None and st.ci is None
    assert "no confidence interval" in st.note


def test_identical_values_are_exact() -> None:
    st = describe([0.1, 0.1, 0.1])
    assert st.mean == 0.1 and st.median == 0.1  # no 0.10000000000000002 from a sum
    assert st.stddev == 0.0 and st.cv == 0.0
    assert st.ci is not None and st.ci.low == st.ci.high == 0.1
    assert "identical" in st.note


def test_zero_mean_has_no_cv() -> None:
    assert describe([-1.0, 1.0]).cv is None


@pytest.mark.parametrize("bad", [[1.0, math.nan], [math.inf, 2.0], [], [[1.0, 2.0]]])
def test_nan_infinite_empty_are_refused(bad: list[float]) -> None:
    with pytest.raises(StatsError):
        describe(bad)


def test_nan_error_names_the_position() -> None:
    with pytest.raises(StatsError, match=r"#1 = nan.*finite numbers only"):
        describe([1.0, math.nan, 3.0])


# --- Welch -------------------------------------------------------------------------------

WELCH_CASES = [
    ([71.45, 70.9, 72.3], [70.79, 71.2, 70.1]),
    ([197.06, 201.5, 190.2, 199.9], [70.79, 71.2, 70.1]),
    ([9.79, 9.80], [8.27, 8.30, 8.21, 8.25, 8.33]),  # n = 2 against n = 5
    ([5.0, 5.0, 5.0], [4.0, 4.5, 5.5]),  # one group without variance
]


@pytest.mark.filterwarnings("ignore:Precision loss occurred")  # scipy on [5, 5, 5]
@pytest.mark.parametrize(("a", "b"), WELCH_CASES)
def test_welch_matches_scipy(a: list[float], b: list[float]) -> None:
    result = welch(a, b)
    ref = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert result.difference == pytest.approx(np.mean(a) - np.mean(b), rel=1e-12)
    assert result.relative == pytest.approx((np.mean(a) - np.mean(b)) / np.mean(b), rel=1e-12)
    assert result.t == pytest.approx(ref.statistic, rel=1e-10)
    assert result.df == pytest.approx(ref.df, rel=1e-10)
    assert result.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.95)
    assert result.ci is not None
    assert result.ci.low == pytest.approx(ci.low, rel=1e-9)
    assert result.ci.high == pytest.approx(ci.high, rel=1e-9)


def test_welch_needs_two_runs_per_group() -> None:
    result = welch([9.0], [8.0, 8.5])
    assert result.difference == pytest.approx(0.75)
    assert result.p_value is None and result.ci is None and result.t is None
    assert "≥ 2 runs" in result.note


def test_welch_without_any_variance_says_so() -> None:
    result = welch([5.0, 5.0], [4.0, 4.0])
    assert result.difference == 1.0 and result.relative == 0.25
    assert result.p_value is None and "neither group varies" in result.note


def test_welch_refuses_nan() -> None:
    with pytest.raises(StatsError, match="group B"):
        welch([1.0, 2.0], [1.0, math.nan])


# --- outlier policies --------------------------------------------------------------------


def test_policy_parsing_and_text() -> None:
    assert OutlierPolicy.parse("none") == OutlierPolicy()
    assert OutlierPolicy.parse("iqr") == OutlierPolicy(OutlierMethod.IQR, 1.5)
    assert OutlierPolicy.parse("MAD") == OutlierPolicy(OutlierMethod.MAD, 3.0)
    assert OutlierPolicy.parse("mad:2.5") == OutlierPolicy(OutlierMethod.MAD, 2.5)
    assert str(OutlierPolicy.parse("iqr:3")) == "iqr:3"
    for bad in ("zscore", "mad:x", "mad:-1", "iqr:nan", "none:2"):
        with pytest.raises(ValueError):
            OutlierPolicy.parse(bad)


# Five repeats of a throughput test where one launch landed on a busy host (field report:
# "we discarded individual results, markedly different from the general picture").
REPEATS = [941.0, 938.0, 944.0, 610.0, 940.0, 939.0]


def test_none_keeps_everything() -> None:
    result = find_outliers(REPEATS, OutlierPolicy())
    assert result.kept == tuple(range(6)) and result.discarded == ()


def test_iqr_discards_and_lists() -> None:
    result = find_outliers(REPEATS, OutlierPolicy.parse("iqr"))
    q1, q3 = np.percentile(REPEATS, [25, 75])
    assert result.low == pytest.approx(q1 - 1.5 * (q3 - q1))
    assert result.high == pytest.approx(q3 + 1.5 * (q3 - q1))
    assert [d.index for d in result.discarded] == [3]
    assert result.discarded[0].value == 610.0
    assert "below Q1 − 1.5×IQR" in result.discarded[0].reason
    assert result.kept == (0, 1, 2, 4, 5)


def test_mad_discards_and_lists_against_scipy_mad() -> None:
    result = find_outliers(REPEATS, OutlierPolicy.parse("mad"))
    mad = scipy_stats.median_abs_deviation(REPEATS, scale="normal")
    assert abs(MAD_SCALE - 1.482602218505602) < 1e-12
    med = float(np.median(REPEATS))
    assert result.low == pytest.approx(med - 3 * mad)
    assert result.high == pytest.approx(med + 3 * mad)
    assert [(d.index, d.value) for d in result.discarded] == [(3, 610.0)]
    assert "below median − 3×MAD" in result.discarded[0].reason


def test_k_changes_what_is_discarded() -> None:
    values = [10.0, 10.2, 9.9, 10.1, 10.8]
    assert find_outliers(values, OutlierPolicy.parse("mad:3")).discarded[0].index == 4
    assert find_outliers(values, OutlierPolicy.parse("mad:10")).discarded == ()


def test_high_outliers_too() -> None:
    result = find_outliers([5.0, 5.1, 4.9, 5.05, 9.0], OutlierPolicy.parse("iqr"))
    assert [d.index for d in result.discarded] == [4]
    assert "above Q3 + 1.5×IQR" in result.discarded[0].reason


@pytest.mark.parametrize("policy", ["iqr", "mad"])
def test_too_few_runs_or_no_spread_discards_nothing(policy: str) -> None:
    p = OutlierPolicy.parse(policy)
    two = find_outliers([1.0, 100.0], p)
    assert two.discarded == () and "fewer than 3" in two.note
    flat = find_outliers([5.0, 5.0, 5.0, 5.0, 9.0], p)
    assert flat.discarded == () and "nothing discarded" in flat.note


def test_outliers_refuse_nan() -> None:
    with pytest.raises(StatsError):
        find_outliers([1.0, math.nan, 2.0], OutlierPolicy.parse("iqr"))
