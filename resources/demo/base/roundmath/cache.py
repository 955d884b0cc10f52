"""A small least-recently-used cache for bulk rounding jobs."""

from collections import OrderedDict


class RoundingCache:
    """Maps (value, digits) to a rounded result, keeping the ``maxsize`` newest."""

    def __init__(self, maxsize=128):
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._entries = OrderedDict()

    def __len__(self):
        return len(self._entries)

    def get(self, key):
        """The cached result for ``key``; a KeyError when it is not cached."""
        try:
            value = self._entries[key]
        except KeyError:
            self.misses += 1
            raise
        self._entries.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key, value):
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
