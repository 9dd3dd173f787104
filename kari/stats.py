"""Uncertainty of evaluation figures: Wilson intervals, seeded cluster bootstraps and McNemar's exact test.

Every figure kari compares is a mean over games. Games are the unit of resampling: a player that plays each
game several times (Fix20Q: 5 runs) contributes one *cluster* per game, and a bootstrap draws whole games.

* :func:`wilson` -- the Wilson score interval of a proportion (closed form; good coverage even near 0 or 1);
* :func:`bootstrap_ratio` -- the percentile interval of ``sum(num) / sum(den)`` over games drawn with
  replacement (a success rate, mean turns over solved games, a paired delta), from a seeded generator, so the
  same inputs and seed give the same interval on every machine;
* :func:`mcnemar_exact` -- McNemar's exact two-sided test of paired binary outcomes: under the null, the
  discordant pairs split as Binomial(b + c, 1/2), and p = min(1, 2 P(X <= min(b, c))).

>>> [round(x, 4) for x in wilson(8, 10)]
[0.4902, 0.9433]
>>> mcnemar_exact(1, 9) == 22 / 1024
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

LEVEL = 0.95
"""The confidence level of every interval kari reports."""

RESAMPLES = 10_000
"""Bootstrap resamples by default."""

_CHUNK = 2_000  # resamples drawn at once (bounds memory: CHUNK x games indices)


def z_value(level: float = LEVEL) -> float:
    """The two-sided standard normal quantile of ``level`` (1.96 for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(successes: float, n: float, level: float = LEVEL) -> tuple[float, float] | None:
    """The Wilson score interval ``(low, high)`` of ``successes / n`` (None when ``n`` is 0). ``successes``
    may be fractional (a success rate pooled over several runs per game, times the number of games)."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n], got {successes} of {n}")
    z = z_value(level)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact two-sided p-value for ``b`` and ``c`` discordant pairs (1.0 when there are none).

    Exact integer arithmetic: ``2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c)``, capped at 1."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be >= 0")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / (1 << n))


def bootstrap_ratio(num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray, *,
                    resamples: int = RESAMPLES, seed: int = 0, level: float = LEVEL) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``sum(num) / sum(den)``, drawing the clusters (games) with replacement.

    ``num[i]`` and ``den[i]`` are cluster i's numerator and denominator (a game's successes and runs; its turns
    over solved runs and the number of solved runs; its summed paired differences and pairs). Resamples whose
    denominator is 0 are left out. None when there is no cluster, no resample or no usable resample."""
    num_a, den_a = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if num_a.shape != den_a.shape or num_a.ndim != 1:
        raise ValueError("num and den must be 1-D and of equal length")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    clusters = len(num_a)
    if clusters == 0 or not den_a.sum() > 0:
        return None
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    done = 0
    while done < resamples:
        size = min(_CHUNK, resamples - done)
        draw = rng.integers(0, clusters, size=(size, clusters))
        top, bottom = num_a[draw].sum(axis=1), den_a[draw].sum(axis=1)
        keep = bottom > 0
        values.append(top[keep] / bottom[keep])
        done += size
    stats = np.concatenate(values)
    if stats.size == 0:
        return None
    alpha = (1 - level) / 2
    low, high = np.quantile(stats, [alpha, 1 - alpha])
    return float(low), float(high)


def excludes_zero(interval: tuple[float, float] | None) -> bool:
    """Does the interval lie wholly above or wholly below 0?"""
    return interval is not None and (interval[0] > 0 or interval[1] < 0)


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularised incomplete beta function I_x(a, b): P(X <= x) for X ~ Beta(a, b), a, b > 0 (Lentz's
    continued fraction, as in Numerical Recipes' ``betai``).

    >>> round(beta_cdf(0.5, 2, 2), 6), round(beta_cdf(0.3, 1, 1), 6)
    (0.5, 0.3)
    """
    if a <= 0 or b <= 0:
        raise ValueError("Beta parameters must be > 0")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-12:
            break
    return h


def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of Beta(a, b), by bisection on :func:`beta_cdf` (to 1e-9).

    >>> round(beta_quantile(0.5, 2, 2), 6), round(beta_quantile(0.1, 1, 1), 6)
    (0.5, 0.1)
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        if beta_cdf(mid, a, b) < q:
            low = mid
        else:
            high = mid
        if high - low < 1e-9:
            break
    return (low + high) / 2


def t_quantile(level: float, df: int) -> float:
    """The two-sided Student t quantile of ``level`` with ``df`` degrees of freedom (from the Beta: P(|T| > t)
    = I_{df / (df + t^2)}(df / 2, 1 / 2)).

    >>> round(t_quantile(0.95, 4), 3), round(t_quantile(0.95, 1000), 2)
    (2.776, 1.96)
    """
    if df < 1 or not 0.0 < level < 1.0:
        raise ValueError("df must be >= 1 and level in (0, 1)")
    x = beta_quantile(1.0 - level, df / 2, 0.5)
    return math.sqrt(df * (1.0 - x) / x)


def t_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float] | None:
    """The t interval of the mean of ``values`` (None for fewer than two): the interval over repeated runs."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(level, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half
