"""Streaming moments of large samples: the experiments accumulate them chunk by chunk."""

import numpy as np


class Moments:
    """Streaming central moments of a sample, accumulated chunk by chunk in float64."""

    def __init__(self):
        self.n = 0
        self.sums = np.zeros(4)

    def add(self, x):
        """Fold a chunk of values (any array-like) into the running sums."""
        x = np.asarray(x, dtype=np.float64)
        self.n += x.size
        powers = x.copy()
        for i in range(4):
            self.sums[i] += powers.sum()
            powers *= x

    def merged(self, other):
        """Moments of both samples together."""
        out = Moments()
        out.n = self.n + other.n
        out.sums = self.sums + other.sums
        return out

    @property
    def mean(self):
        return self.sums[0] / self.n

    def central(self):
        """Central moments m2, m3, m4 (biased, divided by n)."""
        r1, r2, r3, r4 = self.sums / self.n
        m2 = r2 - r1**2
        m3 = r3 - 3 * r1 * r2 + 2 * r1**3
        m4 = r4 - 4 * r1 * r3 + 6 * r1**2 * r2 - 3 * r1**4
        return m2, m3, m4

    @property
    def variance(self):
        """Unbiased sample variance."""
        return self.central()[0] * self.n / (self.n - 1)

    @property
    def excess_kurtosis(self):
        m2, _, m4 = self.central()
        return m4 / m2**2 - 3.0
