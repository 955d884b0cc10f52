import asyncio

import pytest


@pytest.mark.asyncio
async def test_async_function(client):
    response = await client.get("/")
    assert response.status == 200
    assert await response.json() == {"ok": True}


async def test_await_truthiness(client):
    assert await client.ping()


class TestAsyncClass:
    @pytest.mark.asyncio
    async def test_async_method(self, event_loop):
        await asyncio.sleep(0)
        assert event_loop.is_running()


def test_sync_twin(client):
    response = client.get("/")
    assert response.status == 200
    assert response.json() == {"ok": True}
