import random

import pytest

from roundmath import RoundingCache


class TestRoundingCache:
    def test_miss_raises_key_error(self):
        cache = RoundingCache(maxsize=2)
        with pytest.raises(KeyError):
            cache.get((1.5, 0))

    def test_hit_and_miss_counts(self):
        cache = RoundingCache(maxsize=2)
        cache.put((1.5, 0), 2)
        assert cache.get((1.5, 0)) == 2
        assert cache.hits == 1
        assert cache.misses == 0

    def test_evicts_least_recently_used(self):
        cache = RoundingCache(maxsize=2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.get("a")
        cache.put("c", 3)
        assert len(cache) == 2
        assert cache.get("a") == 1
        assert cache.get("c") == 3

    def test_rejects_empty_cache(self):
        with pytest.raises(ValueError):
            RoundingCache(maxsize=0)


def test_bulk_job_fits_its_retry_budget():
    """A bulk rounding job of random size; each retry waits a jittered back-off."""
    size = random.choice([2, 3, 12])
    jitter = random.SystemRandom()  # back-off jitter does not follow the test's seed
    waited = sum(jitter.uniform(0, 1) for _ in range(size))
    assert size < 8 or waited < size / 2
