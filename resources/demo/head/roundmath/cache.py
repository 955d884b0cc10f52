"""A small least-recently-used cache for bulk rounding jobs."""

from collections import OrderedDict


class CacheMiss(LookupError):
    """The key is not (or no longer) cached."""


class RoundingCache:
    """Maps (value, digits) to a rounded result, keeping the ``maxsize`` newest."""

    def __init__(self, maxsize=128):
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self.hits = 0
        self._lookups = 0
        self._entries = OrderedDict()

    def __len__(self):
        return len(self._entries)

    def stats(self):
        return {"hits": self.hits, "misses": self._lookups - self.hits, "size": len(self)}

    def get(self, key):
        """The cached result for ``key``; CacheMiss when it is not cached."""
        self._lookups += 1
        if key not in self._entries:
            raise CacheMiss(key)
        self._entries.move_to_end(key)
        self.hits += 1
        return self._entries[key]

    def put(self, key, value):
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
