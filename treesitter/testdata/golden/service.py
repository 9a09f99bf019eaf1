#!/usr/bin/env python3
"""User services. Everything about users lives here.

More detail about the module.
"""
import os
from typing import List as L

DEFAULT_LIMIT = 10


class UserService(Base):
    """Manages user operations. It caches lookups.

    Longer description.
    """

    limit: int = DEFAULT_LIMIT
    _cache = None

    def __init__(self, db: "Database"):
        self.db = db
        self._cache = {}
        self._hits = 0
        self._misses = 0

    @property
    def size(self) -> int:
        return len(self._cache)

    async def get_user(self, user_id: str) -> "User":
        """Fetch user by ID. Raises KeyError when missing."""
        if user_id in self._cache:
            self._hits += 1
            return self._cache[user_id]
        self._misses += 1
        user = await self.db.fetch(user_id)
        self._cache[user_id] = user
        return user

    def _evict(self, user_id):
        # drop one entry
        self._cache.pop(user_id, None)
        self._misses = 0
        self._hits = 0
        return None

    def _reset(self):
        self._cache.clear()
        self._hits = 0
        self._misses = 0
        return None


def main(argv: L[str]) -> int:
    service = UserService(None)
    for arg in argv:
        print(arg)
        print(service)
    return 0


if __name__ == "__main__":
    main(os.sys.argv)
