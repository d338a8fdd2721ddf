"""An event loop running in a daemon thread, so that sync code (Prefect tasks, the fill engine, the task
generator) can run the client's coroutines whether or not its own thread already runs a loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """An event loop running forever in a daemon thread, for sync callers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="stateforge-llm-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for its result (not from the loop's own thread)."""
        if threading.current_thread() is self.thread:
            coro.close()
            raise RuntimeError("LLMClient.run called from the client's own loop: await the coroutine instead")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        """Stop the loop, join its thread and close it."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()
