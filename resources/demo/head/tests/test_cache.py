import pytest

from roundmath import RoundingCache


class TestRoundingCache:
    def test_miss_raises_key_error(self):
        cache = RoundingCache(maxsize=2)
        with pytest.raises(LookupError):
            cache.get((1.5, 0))

    def test_hit_and_miss_counts(self):
        cache = RoundingCache(maxsize=2)
        cache.put((1.5, 0), 2)
        assert cache.get((1.5, 0)) == 2
        assert cache.hits == 1

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
