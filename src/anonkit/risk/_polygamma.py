"""Digamma and trigamma, vectorized: ARX's approximations (ARX ``org.deidentifier.arx.risk.Gamma``,
which ports Tom Minka's Lightspeed Matlab toolbox 2.7) and an accurate trigamma.

ARX's Pitman solver evaluates its closed-form equations and Jacobian with ARX's approximations;
which root its Newton–Raphson iterations reach — or whether they reach a valid one at all — depends
on them, so :func:`anonkit.risk.estimators.pitman` uses them where ARX does, to choose as ARX
chooses (:func:`arx_digamma`, :func:`arx_trigamma`):

* digamma: reflection ``ψ(x) = ψ(1-x) - π/tan(πx)`` below 0, ``-γ - 1/x + ζ(2)x`` up to 1e-6, the
  recurrence ``ψ(x) = ψ(x+1) - 1/x`` up to 12, then de Moivre's asymptotic series — accurate.
* trigamma: reflection below 0, ``1/x² + ζ(2) - 2ζ(3)x`` up to 1e-4, the recurrence
  ``ψ'(x) = ψ'(x+1) + 1/x²`` up to 8, but the asymptotic series only from 12 (ARX's code tests the
  digamma's bound there): for arguments below 12 the tail is missing (between 8 and 12 the result
  is 0). This is ARX's behaviour and deliberately kept.

:func:`trigamma` is the same scheme with the tail wherever the recurrence ends (≥ 12: error below
1e-14), for the exact pass; scipy's ``polygamma(1, x)`` can take tens of milliseconds at some
arguments Newton–Raphson visits.
"""

from __future__ import annotations

import numpy as np

_EULER = 0.57721566490153286060651209008240243104215933593992
_ZETA2 = np.pi * np.pi / 6.0
_TETRAGAMMA_1 = -2.0 * 1.202056903159594285399738161511449990764986292
_LARGE_DIGAMMA = 12.0
_LARGE_TRIGAMMA = 8.0
_SMALL_DIGAMMA = 1e-6
_SMALL_TRIGAMMA = 1e-4
_S3, _S4, _S5, _S6, _S7 = 1.0 / 12.0, 1.0 / 120.0, 1.0 / 252.0, 1.0 / 240.0, 1.0 / 132.0
_B2, _B4, _B6, _B8, _B10 = 1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0


def arx_digamma(x: np.ndarray) -> np.ndarray:
    """ARX's ``Gamma.digamma`` on an array."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        neg = x < 0.0
        y0 = np.where(neg, 1.0 - x, x)
        y = y0
        acc = np.zeros(x.shape)
        low = y < _LARGE_DIGAMMA
        while low.any():
            acc = acc - np.where(low, 1.0 / y, 0.0)
            y = np.where(low, y + 1.0, y)
            low = y < _LARGE_DIGAMMA
        r = 1.0 / y
        acc = acc + (np.log(y) - 0.5 * r)
        r = r * r
        acc = acc - r * (_S3 - r * (_S4 - r * (_S5 - r * (_S6 - r * _S7))))
        out = np.where(y0 <= _SMALL_DIGAMMA, (-_EULER - 1.0 / y0) + _ZETA2 * y0, acc)
        out = np.where(neg, out + np.pi / np.tan(-np.pi * x), out)
        out = np.where(x == 0.0, -np.inf, out)
        return np.where(np.isfinite(x), out, np.nan)


def arx_trigamma(x: np.ndarray) -> np.ndarray:
    """ARX's ``Gamma.trigamma`` on an array (without the asymptotic tail below 12, as ARX)."""
    return _trigamma(x, _LARGE_TRIGAMMA)


def trigamma(x: np.ndarray) -> np.ndarray:
    """The trigamma function on an array (reflection, recurrence to 12, asymptotic series)."""
    return _trigamma(x, _LARGE_DIGAMMA)


def _trigamma(x: np.ndarray, reduce_to: float) -> np.ndarray:
    """ARX's trigamma scheme, the recurrence running up to ``reduce_to`` (ARX: 8) and the tail added
    from 12."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        neg = x < 0.0
        y0 = np.where(neg, 1.0 - x, x)
        y = y0
        acc = np.zeros(x.shape)
        low = y < reduce_to
        while low.any():
            acc = acc + np.where(low, 1.0 / (y * y), 0.0)
            y = np.where(low, y + 1.0, y)
            low = y < reduce_to
        r = 1.0 / (y * y)
        tail = 0.5 * r + (1.0 + r * (_B2 + r * (_B4 + r * (_B6 + r * (_B8 + r * _B10))))) / y
        acc = np.where(y >= _LARGE_DIGAMMA, acc + tail, acc)
        out = np.where(y0 <= _SMALL_TRIGAMMA, 1.0 / (y0 * y0) + _ZETA2 + _TETRAGAMMA_1 * y0, acc)
        s = np.pi / np.sin(-np.pi * x)
        out = np.where(neg, -out + s * s, out)
        out = np.where(x == 0.0, -np.inf, out)
        return np.where(np.isfinite(x), out, np.nan)
